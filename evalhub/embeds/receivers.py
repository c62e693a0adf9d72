"""The embeds app's answers to the core's extension points: the snippets below
a phase's boards (``signals.leaderboard_panels``), and its row of a task in the
task's archive (``archive.parts``)."""

from __future__ import annotations

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from evalhub.competitions import signals
from evalhub.competitions.services import roles
from evalhub.competitions.services.archive import parts as archive_parts
from evalhub.embeds.models import EmbedSettings
from evalhub.embeds.services import origins, snippets


@receiver(signals.leaderboard_panels, dispatch_uid="embeds-snippets")
def embed_snippets(sender, phase, test_sets, track, viewer, **kwargs):  # noqa: ANN001, ANN003, ANN201, ARG001
    """Every viewer gets the same snippets (the page is shared); organisers also
    the way to the console's page of allowed origins."""
    found = snippets.for_phase(phase=phase, test_sets=test_sets, track=track)
    if not found:
        return None
    return (
        "embeds/_panel.html",
        {
            "snippets": found,
            "organiser": roles.is_organiser(viewer, phase.task),
            "task": phase.task,
        },
    )


# A task's archive keeps the origins allowed to frame its embeds.
archive_parts.register(
    archive_parts.Part(
        name="embeds",
        models=(EmbedSettings,),
        rows=lambda task: EmbedSettings.objects.filter(task=task).order_by("pk"),
    )
)


@receiver(post_save, sender=EmbedSettings, dispatch_uid="embeds-saved")
@receiver(post_delete, sender=EmbedSettings, dispatch_uid="embeds-deleted")
def settings_changed(sender: object, instance: EmbedSettings, **kwargs: object) -> None:
    """Saved from any path (the console, an archive's import, the admin) or
    deleted with its task: no cached copy of the origins outlives the row."""
    origins.forget(task_id=instance.task_id)
