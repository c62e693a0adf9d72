"""Annotation use cases: judging (record, undo), reading judgements (current tags,
history, agreement), the annotation page, and re-scoring runs with the stored
judgements."""
