"""Annotation use cases: judging (record, undo, agreement), the annotation page,
and re-scoring runs with the stored judgements."""
