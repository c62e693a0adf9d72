"""Where a participant finds itself: its team's rows marked on the boards, a run's
rank on each board it appears on, and its team's runs of a task with what the
viewer may see of their scores.

Boards are cached fragments shared by every viewer of one audience
(``board_pages.boards_fragment``), so nothing of the viewer is drawn into them:
each team's rows carry a neutral placeholder (``placeholder``: the team's id in an
HTML comment, the same for every viewer), and the page replaces the viewer's own
ones with the visible marker after reading the fragment (``mark``). A second
viewer's copy of the fragment never holds the first one's marker.

Scores come only through ``visibility.visible`` (for the rows the viewer may see)
and ranks only from the boards the viewer may see (``leaderboard.track_boards``
after ``access.can_see_scores``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.urls import reverse
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe

from evalhub.competitions import signals
from evalhub.competitions.models import (
    Phase,
    Registration,
    Score,
    SharedTask,
    Submission,
    TestSet,
    member_team_ids,
)
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import (
    access,
    leaderboard,
    ranking,
    tails,
    visibility,
)

#: What the boards' template writes into each team's row (``placeholder``) and
#: what ``mark`` puts in place of the viewer's own.
_PLACEHOLDER = re.compile(r"<!--you:(\d+)-->")
MARKER = ' <strong class="badge you">you</strong>'


def placeholder(team_id: int) -> SafeString:
    """The mark of a team's row in a cached fragment (the same for every viewer;
    team names are escaped, so no name can forge one)."""
    return mark_safe(f"<!--you:{int(team_id)}-->")  # noqa: S308 - an int


def own_team_ids(user: object) -> frozenset[int]:
    """The teams ``user`` is a member of (none when not signed in)."""
    if not getattr(user, "is_authenticated", False):
        return frozenset()
    return member_team_ids(user)


def mark(html: str, user: object) -> SafeString:
    """``html`` (a fragment read from the cache) with a long board's rows of
    ``user``'s teams past its first rows put in (``tails.insert``), the rows of
    ``user``'s teams marked "you" and every other placeholder removed; the teams
    are looked up only when the boards have rows."""
    if "<!--you:" not in html:
        return mark_safe(html)  # noqa: S308 - the caller's fragment
    teams = own_team_ids(user)
    html = tails.insert(html, teams)
    own = {str(pk) for pk in teams}
    return mark_safe(  # noqa: S308 - the fragment is escaped; MARKER is constant
        _PLACEHOLDER.sub(lambda m: MARKER if m.group(1) in own else "", html)
    )


@dataclass(frozen=True, slots=True)
class RunRank:
    """Where a run stands on one board: ``rank`` among its ``of`` rows (baselines
    included, as the board numbers them; None when the board does not list the
    run: not its team's best or chosen run, or hidden from the public), and the
    board's address."""

    rank: int | None
    of: int
    url: str
    track_name: str = ""


def board_url(phase: Phase, test_set_id: int, track_slug: str = "") -> str:
    url = reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    if track_slug:
        url += "?" + urlencode({"track": track_slug})
    return f"{url}#testset-{test_set_id}"


def run_ranks(
    *, submission: Submission, user: object, test_sets: Iterable[TestSet]
) -> dict[int, RunRank]:
    """Test set id -> the run's place on that test set's board as ``user`` sees it
    (the board of the run's track in a phase with tracks), for the test sets whose
    scores ``user`` may see. Baselines are listed apart from the ranking: none."""
    if submission.is_baseline:
        return {}
    phase = submission.phase
    track = submission.track if submission.track_id else None
    out: dict[int, RunRank] = {}
    for ts in test_sets:
        if not access.can_see_scores(user, ts):
            continue
        boards = leaderboard.track_boards(test_set=ts, user=user, track=track)
        for shown_track, board in boards:
            rank = next(
                (r.rank for r in board.rows if r.submission_id == submission.pk), None
            )
            slug = "" if shown_track is None else shown_track.slug
            out[ts.pk] = RunRank(
                rank=rank,
                of=len(board.rows),  # numbered as the board numbers them
                url=board_url(phase, ts.pk, slug),
                track_name="" if shown_track is None else shown_track.name,
            )
    return out


@dataclass(frozen=True, slots=True)
class OwnCell:
    """A run on one test set: its primary score as text, or why the viewer sees
    none, and its rank on that board (None: the viewer does not see the board)."""

    test_set: TestSet
    score: str
    rank: RunRank | None


@dataclass(frozen=True, slots=True)
class OwnRun:
    run: Submission
    #: One per test set of the phase, in order.
    cells: tuple[OwnCell, ...]
    #: What a feature app says of the run (``signals.run_states``): (text, url).
    state: tuple[str, str]


@dataclass(frozen=True, slots=True)
class OwnPhase:
    phase: Phase
    test_sets: tuple[TestSet, ...]
    runs: tuple[OwnRun, ...]
    #: The heading of the feature app's state column ("": none).
    state_heading: str


def own_runs_page(*, task: SharedTask, user: object) -> dict[str, object]:
    """A task's "My runs" page: every run of the viewer's teams in the task, per
    phase, with its status, primary score per test set as the visibility rule lets
    the viewer see it, its rank on each board, hidden/final, and what feature apps
    say of it (its fact sheet)."""
    teams = own_team_ids(user)
    registrations = list(
        Registration.objects.filter(task=task, team_id__in=teams).select_related("team")
    )
    phases = []
    for phase in task.phases.prefetch_related("test_sets"):
        metric = ranking.metric(phase)
        runs = list(
            Submission.objects.filter(phase=phase, team_id__in=teams)
            .select_related("team", "track", "phase__task")
            .order_by("-created_at")
        )
        test_sets = tuple(phase.test_sets.all())
        scores = _scores(user, test_sets, runs, metric)
        heading, states = run_states(phase, user, runs)
        rows = []
        for run in runs:
            ranks = (
                run_ranks(submission=run, user=user, test_sets=test_sets)
                if run.status == Submission.Status.SCORED
                else {}
            )
            rows.append(
                OwnRun(
                    run=run,
                    cells=tuple(
                        OwnCell(ts, score, ranks.get(ts.pk))
                        for ts, score in zip(test_sets, scores[run.pk], strict=True)
                    ),
                    state=states.get(run.pk, ("–", "")),
                )
            )
        phases.append(
            OwnPhase(
                phase=phase,
                test_sets=test_sets,
                runs=tuple(rows),
                state_heading=heading,
            )
        )
    return {
        "task": task,
        "registrations": registrations,
        "phases": phases,
        "metric": metric,
        "is_organiser": roles.is_organiser(user, task),
    }


def _scores(
    user: object, test_sets: Iterable[TestSet], runs: list[Submission], metric
) -> Mapping[int, tuple[str, ...]]:  # noqa: ANN001
    """Run id -> the primary score per test set as ``user`` may see it
    (``visibility.visible``, in bulk per test set), else why not."""
    test_sets = list(test_sets)
    scored = [r for r in runs if r.status == Submission.Status.SCORED]
    values = dict(
        (
            ((sub, ts), value)
            for sub, ts, value in Score.objects.filter(
                submission__in=scored, test_set__in=test_sets, metric=metric.key
            ).values_list("submission_id", "test_set_id", "value")
        )
    )
    shown = {
        ts.pk: visibility.visible(viewer=user, test_set=ts, runs=scored)
        for ts in test_sets
    }
    out: dict[int, tuple[str, ...]] = {}
    for run in runs:
        cells = []
        for ts in test_sets:
            if run.status != Submission.Status.SCORED:
                cells.append("–")
            elif run.pk in shown[ts.pk]:
                cells.append(metric.format(values.get((run.pk, ts.pk))))
            elif not ts.scores_public:
                cells.append("private until revealed")
            else:
                cells.append("withheld")
        out[run.pk] = tuple(cells)
    return out


def run_states(
    phase: Phase, user: object, runs: list[Submission]
) -> tuple[str, dict[int, tuple[str, str]]]:
    """A feature app's column of the runs (``signals.run_states``, the fact
    sheets' state): its heading and run id -> (text, url); ("", {}) without one."""
    for _receiver, answer in signals.run_states.send(
        sender=Phase, phase=phase, viewer=user, runs=runs
    ):
        if answer:
            heading, states = answer
            return str(heading), dict(states)
    return "", {}
