"""The console's place on the core's pages: its pages as links on the dashboard
(``dashboard_links``: the set-up pages, and every run of the task), the checklist of
what is missing and, once the campaign is over, the evaluation after it
(``dashboard_panels``) and the announcements on the public task page
(``task_page_panels``); an archive export's file leaves the storage with its row."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.urls import reverse

from evalhub.competitions import signals
from evalhub.competitions.services import after_campaign
from evalhub.competitions.services.archive import parts as archive_parts
from evalhub.console.models import Announcement, ArchiveExport
from evalhub.console.services import archive_exports, checklist, people


@receiver(signals.dashboard_links, dispatch_uid="console-dashboard-links")
def console_links(sender: object, task, **kwargs: object):  # noqa: ANN001, ANN201
    def url(name: str) -> str:
        return reverse(f"console:{name}", kwargs={"slug": task.slug})

    return (
        "Set up",
        (
            ("Task settings", url("task-settings")),
            ("Phases", url("phases")),
            ("Test sets and gold", checklist.testsets_url(task)),
            ("Organisers", url("organisers")),
            ("Announcements", url("announcements")),
            ("Preview as a participant", url("preview-participant")),
            ("Preview as the public", url("preview-public")),
        ),
    )


@receiver(signals.dashboard_links, dispatch_uid="console-dashboard-runs")
def console_runs_link(sender: object, task, **kwargs: object):  # noqa: ANN001, ANN201
    url = reverse("console:runs", kwargs={"slug": task.slug})
    return ("Runs", (("Every run: filter, rescore, hide, download", url),))


@receiver(signals.dashboard_panels, dispatch_uid="console-checklist")
def console_checklist(sender: object, task, **kwargs: object):  # noqa: ANN001, ANN201
    return ("console/task_checklist.html", {"items": checklist.checklist(task=task)})


@receiver(signals.dashboard_panels, dispatch_uid="console-after-campaign")
def after_campaign_panel(sender: object, task, **kwargs: object):  # noqa: ANN001, ANN201
    """Once the campaign is over: the way to keep the task open for evaluation."""
    state = after_campaign.current(task=task)
    if state.refused is not None:
        return None
    url = reverse("console:after-campaign", kwargs={"slug": task.slug})
    return ("console/after_campaign_panel.html", {"state": state, "url": url})


@receiver(signals.task_page_panels, dispatch_uid="console-announcements")
def task_announcements(sender: object, task, **kwargs: object):  # noqa: ANN001, ANN201
    shown = people.public_announcements(task=task)
    return ("console/task_announcements.html", {"items": shown}) if shown else None


# A task's archive keeps its announcements (their authors reduced to a user name).
archive_parts.register(
    archive_parts.Part(
        name="announcements",
        models=(Announcement,),
        rows=lambda task: Announcement.objects.filter(task=task).order_by("pk"),
    )
)


@receiver(post_delete, sender=ArchiveExport, dispatch_uid="console-archive-deleted")
def archive_export_deleted(sender: object, instance: ArchiveExport, **kwargs: object) -> None:  # fmt: skip
    """Its task deleted (or the export expired): its archive goes from the storage
    too, once the deletion is committed."""
    task_id = instance.task_id
    transaction.on_commit(lambda: archive_exports.delete_files(task_id))
