from __future__ import annotations

from tests.api.fixtures import analysed, scored, secret_test_set, tokens  # noqa: F401
