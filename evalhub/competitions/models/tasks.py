"""A shared task, and who organises it (asked on almost every page)."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.db import models
from django.urls import reverse

from evalhub.competitions import markdown
from evalhub.precompiled import Precompiled
from tasks import registry


def _task_type_choices() -> list[tuple[str, str]]:
    return [(slug, slug.replace("_", " ")) for slug in registry.slugs()]


class SharedTask(models.Model):
    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"
        ARCHIVED = "archived", "Archived"

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(
        blank=True, help_text="Markdown", validators=[markdown.validate]
    )
    #: ``description`` rendered and sanitised when saved (``save``): pages print it.
    description_html = models.TextField(blank=True, editable=False)
    task_type = models.CharField(max_length=64, choices=_task_type_choices)
    task_settings = models.JSONField(
        default=dict, blank=True, help_text="Task-type settings (JSON)"
    )
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="organised_tasks", blank=True
    )
    #: Who created the task (or was handed it): an organiser no co-organiser can
    #: remove (``evalhub.console.services.people``).
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="owned_tasks",
    )
    state = models.CharField(max_length=16, choices=State.choices, default=State.DRAFT)
    requires_approval = models.BooleanField(default=False)
    gold_released = models.BooleanField(
        default=False, help_text="Per-item outcomes become public"
    )
    #: Submissions paused by the organisers (``services/runs/submit.py`` refuses
    #: every run, whatever the door, with ``pause_message``).
    submissions_paused = models.BooleanField(
        default=False, help_text="No run is accepted while ticked"
    )
    pause_message = models.CharField(
        max_length=300,
        blank=True,
        help_text="Why submissions are paused (plain text, shown to teams)",
    )
    #: The most members a team registered for the task may have (None: no cap);
    #: ``services/teams.refuse_over_cap`` is the rule, invitations and joins ask it.
    max_team_size = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Most members per team (empty: no cap)"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        """Every save path (console, bundle import, admin, demo seeding) stores the
        description rendered, so no page view renders Markdown."""
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "description" in update_fields:
            self.description_html = markdown.render(self.description)
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "description_html"}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("competitions:task-detail", args=[self.slug])

    @property
    def type(self):  # noqa: ANN201 - a tasks.base.TaskType
        return registry.get(self.task_type)

    def parsed_settings(self):  # noqa: ANN201
        return self.type.parse_settings(self.task_settings)

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        from tasks.base import SettingsError

        try:
            self.type.parse_settings(self.task_settings)
        except (SettingsError, KeyError) as exc:
            raise ValidationError({"task_settings": str(exc)}) from exc


# --- who organises what, read once per user object ---------------------------------
# Pages ask "is this viewer an organiser?" several times per request (each leak rule
# asks it); the answer for every task is one query, kept on the user object, which
# Django builds afresh for each request. Changes made in this process (adding or
# removing organisers, deleting a task) make every kept answer stale at once.
_organisers_generation = [0]
#: Asked on every signed-in page (precompiled: see evalhub.precompiled).
_ORGANISED = Precompiled(
    lambda user_id: SharedTask.organisers.through.objects.filter(
        user_id=user_id
    ).values_list("sharedtask_id"),
    user_id=-2_000_000_001,
)


def organised_task_ids(user: object) -> frozenset[int]:
    kept = getattr(user, "_evalhub_organised", None)
    if kept is None or kept[0] != _organisers_generation[0]:
        generation = _organisers_generation[0]
        ids = frozenset(
            row[0]
            for row in _ORGANISED.rows(user_id=user.pk)  # type: ignore[attr-defined]
        )
        kept = (generation, ids)
        user._evalhub_organised = kept  # type: ignore[attr-defined]
    limit = getattr(user, "_evalhub_organising_limit", None)
    return kept[1] if limit is None else kept[1] & limit


def limit_organising(user: object, task_ids: Iterable[int]) -> None:
    """Let ``user`` (this object: one request's) organise at most ``task_ids`` of
    the tasks it organises, superusers included: what a credential narrower than its
    account may do (an API token's scope). Every organiser check is ``is_organiser``,
    which honours the limit, as does :func:`organised_task_ids`."""
    user._evalhub_organising_limit = frozenset(task_ids)  # type: ignore[attr-defined]


def _organisers_changed(**_: object) -> None:
    _organisers_generation[0] += 1


models.signals.m2m_changed.connect(
    _organisers_changed, sender=SharedTask.organisers.through
)
models.signals.post_delete.connect(_organisers_changed, sender=SharedTask)
