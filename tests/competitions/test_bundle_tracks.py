"""Tracks in task bundles: imported with their order, description and the phase's
limit rule, exported again (round trip), and bad track entries named by line."""

from __future__ import annotations

import pytest

from evalhub.competitions.models import SharedTask
from evalhub.competitions.services.data import bundles, tracks
from tests.competitions.test_bundles import MANIFEST, demo_files  # noqa: F401
from tests.zips import zip_bytes

pytestmark = pytest.mark.django_db

WITH_TRACKS = MANIFEST.replace(
    "    daily_limit: 4\n",
    """\
    daily_limit: 4
    limits_per_track: true
    tracks:
      - slug: open
        name: Open
        description: "any resource; <b>not</b> HTML"
      - slug: closed
        name: Closed
""",
)


def test_tracks_round_trip(organiser, demo_files, isolated_storage):  # noqa: F811
    task = bundles.import_bundle(
        data=zip_bytes({"task.yaml": WITH_TRACKS.encode(), **demo_files}),
        user=organiser,
    )
    phase = task.phases.get()
    assert phase.limits_per_track is True
    found = [(t.slug, t.name, t.description) for t in tracks.phase_tracks(phase)]
    assert found == [
        ("open", "Open", "any resource; <b>not</b> HTML"),
        ("closed", "Closed", ""),
    ]
    exported = bundles.export_bundle(task=task)
    task.delete()
    again = bundles.import_bundle(data=exported, user=organiser)
    phase = again.phases.get()
    assert phase.limits_per_track is True
    assert [
        (t.slug, t.name, t.description) for t in tracks.phase_tracks(phase)
    ] == found


def test_bad_tracks_are_named_by_line(organiser, demo_files, isolated_storage):  # noqa: F811
    bad = WITH_TRACKS.replace("- slug: open", "- slug: o p").replace(
        "name: Closed", "description: no name"
    )
    with pytest.raises(bundles.BundleError) as info:
        bundles.import_bundle(
            data=zip_bytes({"task.yaml": bad.encode(), **demo_files}), user=organiser
        )
    text = [str(p) for p in info.value.problems]
    assert any("line 15" in t and "track slug 'o p'" in t for t in text), text
    assert any("line 18" in t and "missing key 'name'" in t for t in text), text
    assert not SharedTask.objects.exists()


def test_a_repeated_track_slug_is_refused(organiser, demo_files, isolated_storage):  # noqa: F811
    bad = WITH_TRACKS.replace("slug: closed", "slug: open")
    with pytest.raises(bundles.BundleError) as info:
        bundles.import_bundle(
            data=zip_bytes({"task.yaml": bad.encode(), **demo_files}), user=organiser
        )
    assert "task.yaml, line 18: track 'open' appears twice" in str(info.value)
