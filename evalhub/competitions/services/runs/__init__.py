"""A run's life: submitting, checking, scoring, the sweeper, rescoring and
final runs. ``lifecycle`` is the one writer of a run's status."""
