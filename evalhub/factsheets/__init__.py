"""System fact sheets and paper links: what each team says about each method.

A feature app: it answers ``competitions.signals.system_columns`` so leaderboards,
exports and the overview-paper package show the answers the viewer may see.
"""
