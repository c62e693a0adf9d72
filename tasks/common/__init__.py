"""Pieces shared by several task types: text decoding, ranked-list metrics, plots."""
