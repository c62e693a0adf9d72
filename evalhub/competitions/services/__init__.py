"""Use cases: submit, score, rank, analyse, rescore, demo. Keyword-only functions."""
