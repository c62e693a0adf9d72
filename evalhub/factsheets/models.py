"""A task's fact-sheet questions, each team's answers per method, and the
system-description papers teams attach to their methods once a phase has closed.

A *system* is a team's method in a phase: (phase, team, method name), the key of
``competitions.services.systems.SystemColumn`` within a phase. Answers belong to the
system, so every run of the same method shares them (a later run reuses them).
Values are stored as the text the kind's parser accepted (``services/kinds.py``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evalhub.competitions.models import Phase, SharedTask, Team


class Question(models.Model):
    class Kind(models.TextChoices):
        YES_NO = "yes_no", "Yes or no"
        CHOICE = "choice", "One of a list"
        NUMBER = "number", "Number"
        TEXT = "text", "Short text"
        URL = "url", "URL"

    task = models.ForeignKey(
        SharedTask, on_delete=models.CASCADE, related_name="factsheet_questions"
    )
    key = models.SlugField(
        max_length=50, help_text="Stable identifier (column name in exports)"
    )
    label = models.CharField(max_length=200)
    help_text = models.CharField(max_length=500, blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    #: The options of a ``choice`` question, in order.
    choices = models.JSONField(default=list, blank=True)
    required = models.BooleanField(default=False)
    on_board = models.BooleanField(
        default=False, help_text="Shown as a leaderboard column"
    )
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["task", "key"], name="factsheet_question_key_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.key} of task {self.task_id}"


class Answer(models.Model):
    """One team's answer to one question for one of its methods in a phase."""

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="answers"
    )
    phase = models.ForeignKey(
        Phase, on_delete=models.CASCADE, related_name="factsheet_answers"
    )
    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="factsheet_answers"
    )
    method_name = models.CharField(max_length=100)
    value = models.CharField(max_length=500)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["question", "phase", "team", "method_name"],
                name="factsheet_answer_unique",
            )
        ]
        indexes = [models.Index(fields=["phase", "team", "method_name"])]

    def __str__(self) -> str:
        # No value: answers of hidden methods must not show up in lists or logs.
        return f"answer to {self.question_id} by team {self.team_id}"


class PaperLink(models.Model):
    """A system-description paper of a method (after its phase has closed)."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="papers")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="papers")
    method_name = models.CharField(max_length=100)
    title = models.CharField(max_length=300)
    url = models.URLField(max_length=500, blank=True)
    doi = models.CharField(max_length=200, blank=True)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["phase", "team", "method_name"], name="paperlink_unique"
            )
        ]

    def __str__(self) -> str:
        return f"paper of team {self.team_id} in phase {self.phase_id}"

    @property
    def link(self) -> str:
        """Where the paper is read: its URL, else its DOI resolved."""
        return self.url or (f"https://doi.org/{self.doi}" if self.doi else "")
