"""A task's archive keeps its licence, its terms' versions and who accepted which:
exported, the task deleted, imported, they are back (accounts by user name)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from evalhub.competitions.models import SharedTask
from evalhub.participation.models import Acceptance, DataSettings, TermsVersion
from tests.competitions.archive_helpers import TRACKS, finished_campaign
from tests.participation.helpers import accept, set_terms

pytestmark = pytest.mark.django_db


def test_the_terms_and_their_acceptances_survive_the_archive(
    isolated_storage, tmp_path
):
    task = finished_campaign(TRACKS)
    organiser = task.organisers.first()
    member = task.registrations.first().team.members.first()
    set_terms(organiser, task, "Research only.", licence="CC-BY-NC-4.0")
    set_terms(organiser, task, "Research only. Cite us.", licence="CC-BY-NC-4.0")
    accept(member, task, 2)
    path = tmp_path / "archive.zip"
    call_command("archive", "export", task.slug, str(path), stdout=io.StringIO())
    task.delete()
    assert not TermsVersion.objects.exists()
    call_command("archive", "import", str(path), stdout=io.StringIO())
    back = SharedTask.objects.get(slug=task.slug)
    assert DataSettings.objects.get(task=back).licence == "CC-BY-NC-4.0"
    assert list(
        TermsVersion.objects.filter(task=back).values_list("number", "text")
    ) == [(2, "Research only. Cite us."), (1, "Research only.")]
    record = Acceptance.objects.get(version__task=back)
    assert (record.version.number, record.user.username) == (2, member.username)
