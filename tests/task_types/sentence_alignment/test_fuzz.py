"""Parser fuzzing (hostile bytes, invalid UTF-8, huge and many lines, wrong column
counts, mixed line endings, zip bombs and path traversal): FormatError or a result."""

from tests.reliability.fuzzing import suite

globals().update(suite("sentence_alignment"))
