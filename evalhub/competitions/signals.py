"""Signals other apps listen to (sent after the transaction commits).

Competitions never imports its listeners (notifications, annotations): it only says
what happened, by primary key, once the change is in the database.
"""

from __future__ import annotations

from django.dispatch import Signal

#: Sent with ``submission_id`` and ``test_set_ids`` once a run is scored.
submission_scored = Signal()
#: Sent with ``submission_id`` once a run moved to ``failed`` (scorer, timeout,
#: infrastructure; upload-time rejections are shown at once and are not sent).
submission_failed = Signal()
#: Sent with ``registration_id`` when an organiser approved or rejected it.
registration_decided = Signal()
#: Sent with ``test_set_id`` when a private test set's scores became public.
test_set_revealed = Signal()
#: Sent with ``task_id`` when the organisers released a task's gold.
gold_released = Signal()
#: Sent (not after a commit: when the page is built) with ``task`` while its organiser
#: dashboard is rendered. A receiver returns ``None`` or ``(heading, links)``, links
#: being ``(label, url)`` pairs: what a feature app offers for this task (e.g. the
#: annotation pages of an mt_lexicon_probe task). Receivers must not write.
dashboard_links = Signal()
#: Sent with ``test_set_id`` after the transaction commits, whenever the runs or
#: scores a test set's boards rank may have changed (a run scored or rescored,
#: hidden or shown, chosen as final; gold replaced; a setting of the phase). Sent by
#: ``services/boardcache.invalidate``; receivers recompute what they derive from
#: the scores (the rankings app: intervals, significance and the Ladder) and
#: must be quick (enqueue a job). Return values are ignored.
scores_changed = Signal()
