"""A phase's tracks as the rest of the platform uses them: listing them, resolving
the track a run declares (form, API, ``evalhub submit --track``) with a clear error,
and the organiser's changes (add, edit, reorder, delete while no run uses it).

Rules (``docs/internals/boards.md``, *Tracks*): a phase without tracks takes runs
without one; a phase with tracks requires one of its own tracks; a run's track is fixed once it is being
scored (``Submission.save`` and ``Submission.change_track`` refuse). Boards are per
(test set, track): ``leaderboard.board(test_set=..., track=...)``."""

from __future__ import annotations

from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, Max

from evalhub.competitions.models import Phase, Submission, Track
from evalhub.competitions.services.boards import boardcache


class TrackError(Exception):
    """The declared track is missing, unknown or not allowed; the message says why
    and lists the phase's tracks."""


_FIELDS = ("id", "phase_id", "slug", "name", "description", "order")


def _key(phase_id: int) -> str:
    return f"tracks:phase:{phase_id}"


def phase_tracks(phase: Phase) -> list[Track]:
    """The phase's tracks in their order (empty: the phase has no tracks). The one
    function other apps use to list them. Kept in the cache (the leaderboard page
    reads them on every request), forgotten whenever a track is saved or deleted
    (``forget``, called by ``competitions/receivers.py`` and the services here)."""
    rows = cache.get(_key(phase.pk))
    if rows is None:
        rows = list(
            Track.objects.filter(phase_id=phase.pk)
            .order_by("order", "pk")
            .values_list(*_FIELDS)
        )
        cache.set(_key(phase.pk), rows, timeout=24 * 3600)
    found = []
    for row in rows:
        track = Track.from_db("default", _FIELDS, row)
        track.phase = phase
        found.append(track)
    return found


def forget(*, phase_id: int) -> None:
    """Drop the cached tracks of the phase, now and once the transaction commits
    (a reader between the two cannot keep the old list)."""
    cache.delete(_key(phase_id))
    transaction.on_commit(lambda: cache.delete(_key(phase_id)), robust=True)


def _choices(tracks: list[Track]) -> str:
    return ", ".join(t.slug for t in tracks)


def resolve(*, phase: Phase, slug: str | None) -> Track | None:
    """The track a run declares by ``slug`` ("" or None: none declared). Raises
    ``TrackError`` when the phase has tracks and none (or an unknown one) is given,
    or when it has none and one is given."""
    tracks = phase_tracks(phase)
    slug = (slug or "").strip()
    if not tracks:
        if slug:
            raise TrackError(
                f"The {phase.name} phase has no tracks; submit without a track "
                f"(got track '{slug}')."
            )
        return None
    if not slug:
        raise TrackError(
            f"The {phase.name} phase has tracks: choose one of {_choices(tracks)}."
        )
    for track in tracks:
        if track.slug == slug:
            return track
    raise TrackError(
        f"The {phase.name} phase has no track '{slug}': choose one of "
        f"{_choices(tracks)}."
    )


def by_slug(*, phase: Phase, slug: str | None) -> Track | None:
    """The phase's track with this slug, or None (no slug, or no such track): for
    pages whose address keeps a track choice (``?track=``). From the cached list:
    no query."""
    if not slug:
        return None
    return next((t for t in phase_tracks(phase) if t.slug == slug), None)


def change_track(*, submission: Submission, track: Track | None) -> None:
    """Move a run not yet being scored to another track of its phase."""
    if track is not None and track.phase_id != submission.phase_id:
        raise TrackError("That track belongs to another phase.")
    if track is None and Track.objects.filter(phase_id=submission.phase_id).exists():
        raise TrackError("A run of a phase with tracks needs one of them.")
    if not Submission.change_track(submission.pk, track.pk if track else None):
        raise TrackError(
            f"Run {submission.pk} is already being scored: its track can no "
            "longer change."
        )
    submission.refresh_from_db()


# --- organisers' changes ---------------------------------------------------------


def save_track(
    *,
    phase: Phase,
    slug: str,
    name: str,
    description: str = "",
    track: Track | None = None,
) -> Track:
    """Add a track to the phase (``track`` None, placed last) or edit one. The slug
    of a track that runs use cannot change (addresses and the CLI name it)."""
    slug = slug.strip()
    if Track.objects.filter(phase=phase, slug=slug).exclude(
        pk=getattr(track, "pk", None)
    ):
        raise TrackError(f"The {phase.name} phase already has a track '{slug}'.")
    with transaction.atomic():
        if track is None:
            last = Track.objects.filter(phase=phase).aggregate(m=Max("order"))["m"]
            track = Track(phase=phase, order=0 if last is None else last + 1)
        elif track.slug != slug and track.submissions.exists():
            raise TrackError(
                f"Runs were submitted to track '{track.slug}': its slug cannot change."
            )
        track.slug, track.name, track.description = slug, name, description
        track.save()  # boards and the cached list follow (competitions/receivers.py)
    return track


def set_limits_per_track(*, phase: Phase, per_track: bool) -> None:
    """Count the limits per track (True) or shared by the phase's tracks."""
    Phase.objects.filter(pk=phase.pk).update(limits_per_track=per_track)
    phase.limits_per_track = per_track


def run_counts(phase: Phase) -> dict[int, int]:
    """Track id -> how many runs (any state, hidden included) entered it: for the
    organisers' page only (it counts runs the public does not see)."""
    return dict(
        Submission.objects.filter(phase=phase, track__isnull=False)
        .values("track_id")
        .annotate(n=Count("pk"))
        .values_list("track_id", "n")
    )


def move_track(*, track: Track, up: bool) -> None:
    """Swap the track with its neighbour above (``up``) or below."""
    with transaction.atomic():
        tracks = list(Track.objects.select_for_update().filter(phase_id=track.phase_id))
        tracks.sort(key=lambda t: (t.order, t.pk))
        i = next(i for i, t in enumerate(tracks) if t.pk == track.pk)
        j = i - 1 if up else i + 1
        if 0 <= j < len(tracks):
            tracks[i], tracks[j] = tracks[j], tracks[i]
        for position, t in enumerate(tracks):
            if t.order != position:
                Track.objects.filter(pk=t.pk).update(order=position)
        forget(phase_id=track.phase_id)
        boardcache.invalidate_phase(phase=track.phase_id, refresh_statistics=False)


def delete_track(*, track: Track) -> None:
    """Delete a track no run uses (a track with runs stays: they were ranked in
    it)."""
    with transaction.atomic():
        used = track.submissions.count()
        if used:
            raise TrackError(
                f"{used} run{'s' if used != 1 else ''} use track '{track.slug}': it "
                "cannot be deleted."
            )
        track.delete()  # boards and the cached list follow (receivers.py)
