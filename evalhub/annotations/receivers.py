"""What annotations adds to the core's flows: a newly scored mt_lexicon_probe run got
automatic tags only, so apply the stored judgements to it (and to nothing else: other
runs' scores cannot change); the annotation pages on such a task's dashboard; the
header's "Annotate" link forgotten when who may annotate changes."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver
from django.urls import reverse

from evalhub.annotations import jobs
from evalhub.annotations.models import Annotator, Judgement
from evalhub.annotations.services import access, systems
from evalhub.competitions import signals
from evalhub.competitions.models import Registration, SharedTask, Team
from evalhub.competitions.services.archive import parts as archive_parts


@receiver(signals.submission_scored, dispatch_uid="annotations-rescore")
def rescore_after_scoring(
    sender: object, submission_id: int, test_set_ids: list[int], **kwargs: object
) -> None:
    judged = (
        Judgement.objects.filter(
            test_set_id__in=test_set_ids,
            test_set__phase__task__task_type=systems.SLUG,
        )
        .values_list("test_set_id", flat=True)
        .distinct()
    )
    for test_set_id in sorted(set(judged)):
        transaction.on_commit(lambda pk=test_set_id: jobs.rescore_judged_runs.delay(pk))


@receiver(signals.dashboard_links, dispatch_uid="annotations-dashboard-links")
def dashboard_links(
    sender: object, task: SharedTask, **kwargs: object
) -> tuple[str, list[tuple[str, str]]] | None:
    if task.task_type != systems.SLUG:
        return None
    return "MT lexicon probing", [
        ("Build a probe set", reverse("annotations:probe-set-build", args=[task.slug])),
        ("Annotators", reverse("annotations:annotator-list", args=[task.slug])),
        ("Annotate", reverse("annotations:annotation-list")),
    ]


# The header's "Annotate" link (access.header_may_annotate) depends on annotator
# rows, organisers, registrations and team members: forget it for whoever changed.
@receiver(post_save, sender=Annotator, dispatch_uid="annotations-header-annotator")
@receiver(post_delete, sender=Annotator, dispatch_uid="annotations-header-annotator-d")
def _annotator_changed(sender: object, instance: Annotator, **kwargs: object) -> None:
    access.forget_header([instance.user_id])


@receiver(post_save, sender=Registration, dispatch_uid="annotations-header-reg")
@receiver(post_delete, sender=Registration, dispatch_uid="annotations-header-reg-d")
def _registration_changed(
    sender: object, instance: Registration, **kwargs: object
) -> None:
    # Through the membership rows: when a team is deleted, its registrations go
    # first and the team row may be gone already.
    members = Team.members.through.objects.filter(team_id=instance.team_id)
    access.forget_header(members.values_list("user_id", flat=True))


def _members_changed(
    sender: object, instance: object, action: str, reverse: bool,
    pk_set: set[int] | None, **kwargs: object,
) -> None:  # fmt: skip
    if reverse:  # user.organised_tasks / user.teams changed: the user is the instance
        if action in ("post_add", "post_remove", "pre_clear"):
            access.forget_header([instance.pk])  # type: ignore[attr-defined]
    elif action in ("post_add", "post_remove"):
        access.forget_header(pk_set or ())
    elif action == "pre_clear":  # who is about to go
        related = sender.objects.filter(**{_FIELD[sender]: instance})  # type: ignore[attr-defined]
        access.forget_header(related.values_list("user_id", flat=True))


_FIELD = {SharedTask.organisers.through: "sharedtask", Team.members.through: "team"}


m2m_changed.connect(
    _members_changed, sender=SharedTask.organisers.through,
    dispatch_uid="annotations-header-organisers",
)  # fmt: skip
m2m_changed.connect(
    _members_changed, sender=Team.members.through,
    dispatch_uid="annotations-header-members",
)  # fmt: skip


# A task's archive keeps its annotators and every judgement (undone ones too): an
# mt_lexicon_probe run's scores are computed from them.
archive_parts.register(
    archive_parts.Part(
        name="annotations",
        models=(Annotator, Judgement),
        rows=lambda task: [
            *Annotator.objects.filter(task=task).order_by("pk"),
            *Judgement.objects.filter(test_set__phase__task=task).order_by("pk"),
        ],
    )
)
