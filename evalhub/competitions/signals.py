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
#: Sent with ``submission_id`` once a worker's full check of a large run file
#: rejected it (``validating -> rejected``); a rejection at upload is shown at once
#: and not sent.
submission_rejected = Signal()
#: Sent with ``registration_id`` when an organiser approved or rejected it.
registration_decided = Signal()
#: Sent with ``test_set_id`` when a private test set's scores became public.
test_set_revealed = Signal()
#: Sent with ``task_id`` when the organisers released a task's gold.
gold_released = Signal()
#: Sent with ``change_id`` (a ``CreatorChange``) after site staff granted a user the
#: right to create tasks (``services/creators.py``), once the grant is committed.
creator_granted = Signal()
#: Sent (not after a commit: when the page is built) with ``task`` while its organiser
#: dashboard is rendered. A receiver returns ``None`` or ``(heading, links)``, links
#: being ``(label, url)`` pairs: what a feature app offers for this task (e.g. the
#: annotation pages of an mt_lexicon_probe task). Receivers must not write.
dashboard_links = Signal()
#: Sent (when the page is built; not after a commit) with ``task`` while its organiser
#: dashboard is rendered. A receiver returns ``None`` or ``(template_name, context)``:
#: a panel shown at the top of the dashboard, the template included with ``panel``
#: bound to ``context`` (e.g. the console's checklist of what is missing before the
#: task can open). Receivers must not write.
dashboard_panels = Signal()
#: Sent (when the page is built; not after a commit) with ``task`` and ``viewer`` (a
#: user, possibly anonymous) while the public task page (or its preview) is rendered.
#: A receiver returns ``None`` or ``(template_name, context)``: a panel shown below
#: the task's description, the template included with ``panel`` bound to
#: ``context`` (e.g. the console's announcements, newest first). Only what this
#: viewer may see; plain text. Receivers must not write.
task_page_panels = Signal()
#: Sent (when the page is built; not after a commit) with ``phase``, ``test_sets``
#: (the phase's), ``track`` (the page's, None: every track) and ``viewer`` (a user,
#: possibly anonymous) while a phase's leaderboard page is rendered. A receiver
#: returns ``None`` or ``(template_name, context)``: a panel shown below the boards,
#: the template included with ``panel`` bound to ``context`` (e.g. the embeds app's
#: snippets). The page anonymous visitors share is cached under the task, the phase,
#: its test sets (names, visibility, board versions) and the address: what a panel
#: shows anyone but the task's organisers must depend on these alone. Plain text;
#: receivers must not write.
leaderboard_panels = Signal()
#: Sent with ``test_set_id`` after the transaction commits, whenever the runs or
#: scores a test set's boards rank may have changed (a run scored or rescored,
#: hidden or shown, chosen as final; gold replaced; a setting of the phase). Sent by
#: ``services/boards/boardcache.invalidate``; receivers recompute what they derive from
#: the scores (the rankings app: intervals, significance and the Ladder) and
#: must be quick (enqueue a job). Return values are ignored.
scores_changed = Signal()
#: Sent (when a page, export or package is built; not after a commit) with ``phase``
#: and ``viewer`` (a user, possibly anonymous). A receiver returns ``None`` or a list
#: of ``services.systems.SystemColumn``: per-method columns (fact-sheet answers, paper
#: links) holding only what this viewer may see. Read them through
#: ``services.systems.system_columns``. Receivers must not write.
system_columns = Signal()
#: Sent with ``submission`` before a team chooses it as a final run. A receiver returns
#: ``None`` or a plain-text reason the choice is refused (e.g. the method's fact sheet
#: is incomplete). Read through ``services.systems.final_choice_refusals``.
final_choice_check = Signal()
#: Sent (when the run page or the submit page is built; not after a commit) with
#: ``phase``, ``viewer`` and ``submission`` (``None`` on the submit page). A receiver
#: returns ``None`` or ``(heading, items)``, items being ``(text, url)`` pairs (``url``
#: "" for plain text): what a feature app shows about the run's method or the
#: viewer's team there (its fact sheet, its paper), only what this viewer may see.
#: Receivers must not write.
run_panels = Signal()
#: Sent (when a team's "My runs" page is built; not after a commit) with ``phase``,
#: ``viewer`` and ``runs`` (the viewer's teams' runs of the phase). A receiver returns
#: ``None`` or ``(heading, states)``, ``states`` mapping a run's id to ``(text, url)``
#: (``url`` "" for plain text): one short state per run (e.g. its method's fact sheet:
#: "complete"), only what this viewer may see. The first answer is shown (one column).
#: Read through ``services/boards/own_rows.run_states`` (the "My runs" page and the
#: participation app's roster). Receivers must not write.
run_states = Signal()
#: Sent with ``task`` while its bundle is exported. A receiver returns ``None`` or
#: ``(key, value)``: a top-level key of ``task.yaml`` and its YAML-safe value.
bundle_export = Signal()
#: Sent with ``task`` and ``sections`` (top-level key of ``task.yaml`` -> its node:
#: ``.value`` and 1-based ``.line``, nested the same way) while a bundle is imported,
#: inside its transaction, after the task, phases and test sets are created. A
#: receiver reads its own key, creates its rows and returns ``None`` or a list of
#: ``(line, message)`` problems: with any, the import fails and nothing is created.
bundle_import = Signal()
#: Sent with ``tasks`` (the demo tasks just created, their runs submitted) by
#: ``services/data/demo.seed_demo``: feature apps add their demo rows. Return values are
#: ignored.
demo_seeded = Signal()
#: Sent (inside the transaction that creates it, not after the commit) with ``phase``
#: (the evaluation after the campaign, just created) and ``source`` (the official
#: phase whose tracks and test sets it copies) by ``services/after_campaign``. A
#: receiver copies what its app keeps per phase and must carry over (the rankings
#: app: the Ladder's settings, so that its decisions continue on the copies).
#: Return values are ignored; an exception undoes the opening.
after_campaign_opened = Signal()
#: Sent (before a participant gets a task's files, submits a run or registers a team;
#: not after a commit) with ``task``, ``user`` (possibly anonymous) and ``action``
#: (``services/gates.DOWNLOAD``, ``SUBMIT`` or ``REGISTER``). A receiver returns
#: ``None`` or a ``services.gates.Refusal``: a plain-text reason and the site path
#: where the user can put it right (e.g. the participation app's data terms, not yet
#: accepted in their current version; a profile field the task requires). The
#: task's organisers are never asked. Read through ``services/gates.refusal``; the
#: browser, the REST API and the CLI meet the same answer. Receivers must not write.
participation_check = Signal()
