"""Boards follow every saved change of what they show, whichever page, admin action
or script saves it: test sets (visibility, reveal, counted, gold), phases (final-run
count, dates), tasks (state, gold release, title), gold and input files, and runs
edited or deleted outside the services (the services invalidate themselves),
tracks (names on the boards; the cached list of a phase's tracks) and team names. The
invalidation happens after the transaction commits (``services/boards/boardcache.py``).

A run's scores follow the test data the same way, whichever path changes it: any file
the scorer reads (an input or gold) stored, replaced or deleted is
``lifecycle.data_changed`` (the test set's data version is bumped and exactly the
runs scored on the old data are scored again; the file that completes a new test
set scores the phase's runs on it, the one that leaves it incomplete takes its
evaluations off).

A successful login is not counted against the login limits (``ratelimit.py``).
Connected in ``CompetitionsConfig.ready``."""

from __future__ import annotations

from allauth.account.signals import email_confirmed
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.db.models.signals import post_delete, post_save

from evalhub.competitions import ratelimit
from evalhub.competitions.models import (
    Phase,
    SharedTask,
    Submission,
    Team,
    TestSet,
    TestSetFile,
    Track,
)
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import boardcache
from evalhub.competitions.services.data import tracks
from evalhub.competitions.services.runs import lifecycle


def _test_set(*, instance: TestSet, **_: object) -> None:
    # A public test set's visibility also decides the final-run fallback on the
    # phase's private ones: the whole phase follows.
    boardcache.invalidate_phase(phase=instance.phase_id)


def _data_file(
    *,
    instance: TestSetFile,
    created: bool = False,
    origin: object = None,
    raw: bool = False,
    **kwargs: object,
) -> None:
    """Any file the scorer reads (an input or gold) stored, replaced or deleted (not
    in a cascade that deletes its test set; not loaded as it was, with its data
    version and scores, from an archive)."""
    if raw:
        return
    if origin is not None and origin is not instance:  # the test set is going
        return
    if not TestSet.objects.filter(pk=instance.test_set_id).exists():
        return
    deleted = kwargs.get("signal") is post_delete
    lifecycle.data_changed(
        test_set_id=instance.test_set_id,
        role=instance.role,
        change="deleted" if deleted else "added" if created else "replaced",
        private=instance.private,
    )


def _phase(*, instance: Phase, **_: object) -> None:
    boardcache.invalidate_phase(phase=instance.pk)


def _task(*, instance: SharedTask, **_: object) -> None:
    boardcache.invalidate_task(task=instance.pk)


def _file(*, instance: TestSetFile, **_: object) -> None:
    boardcache.invalidate(test_set_id=instance.test_set_id)


def _run(*, instance: Submission, created: bool = False, **_: object) -> None:
    if not created:
        boardcache.invalidate_phase(phase=instance.phase_id)


def _track(*, instance: Track, **_: object) -> None:
    tracks.forget(phase_id=instance.phase_id)
    boardcache.invalidate_phase(phase=instance.phase_id, refresh_statistics=False)


def _team(*, instance: Team, created: bool = False, **_: object) -> None:
    """A renamed team: every board that drew its old name (its runs' phases), none
    of them served again, not even as a stale fallback; the figures that name it
    are redrawn."""
    if created:
        return
    for phase_id in (
        Submission.objects.filter(team_id=instance.pk)
        .values_list("phase_id", flat=True)
        .distinct()
    ):
        boardcache.invalidate_phase(
            phase=phase_id, refresh_statistics=False, retract=True
        )


def _email_confirmed(*, email_address: object, **_: object) -> None:
    """A verified address may give the right to create tasks
    (``EVALHUB_TASK_CREATORS=verified``): the header's link follows at once."""
    roles.forget_header(email_address.user_id)  # type: ignore[attr-defined]


def connect() -> None:
    for model, receiver in (
        (TestSet, _test_set),
        (Phase, _phase),
        (SharedTask, _task),
        (TestSetFile, _file),
        (Submission, _run),
        (Track, _track),
        (Team, _team),
    ):
        uid = f"boards-{model.__name__}"
        post_save.connect(receiver, sender=model, dispatch_uid=uid + "-save")
        post_delete.connect(receiver, sender=model, dispatch_uid=uid + "-delete")
    post_save.connect(_data_file, sender=TestSetFile, dispatch_uid="runs-file-save")
    post_delete.connect(_data_file, sender=TestSetFile, dispatch_uid="runs-file-del")
    user_logged_in.connect(ratelimit.login_succeeded, dispatch_uid="ratelimit-login")
    email_confirmed.connect(_email_confirmed, dispatch_uid="creators-email-confirmed")
    user_login_failed.connect(ratelimit.login_failed, dispatch_uid="ratelimit-failed")
