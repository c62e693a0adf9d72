"""The organiser console: set up and run a campaign in evalhub's own pages.

A feature app: it builds on the core (tasks, phases, test sets, gold) and offers
its pages on the task's dashboard through ``competitions.signals.dashboard_links``.
"""
