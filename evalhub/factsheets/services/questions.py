"""The organisers' side: a task's fact-sheet questions (add, edit, reorder,
delete), and the bundle's ``factsheet`` section (export and import).

A question's kind cannot change once it has answers, nor can a list question lose
an option some team chose (their stored answers would stop meaning anything); a
deleted question takes its answers with it. Every change invalidates the task's
boards (their columns show the questions).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction
from django.db.models import Max
from django.utils.text import slugify

from evalhub.competitions.models import SharedTask
from evalhub.competitions.services.boards import boardcache
from evalhub.factsheets.models import Answer, Question
from evalhub.factsheets.services import kinds


class QuestionInvalid(Exception):
    """``errors`` maps field names to messages."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


FIELDS = ("key", "label", "help_text", "kind", "choices", "required", "on_board")


def clean(
    *, task: SharedTask, data: Mapping[str, object], question: Question | None = None
) -> dict[str, object]:
    """The question's fields from ``data`` (``choices``: a list or one option per
    line), checked; raises ``QuestionInvalid``."""
    errors: dict[str, str] = {}
    values: dict[str, object] = {}
    label = str(data.get("label") or "")
    try:
        values["label"] = kinds.plain_line(label, 200, "The question")
        if not values["label"]:
            errors["label"] = "Write the question."
    except kinds.Invalid as exc:
        errors["label"] = str(exc)
    try:
        values["help_text"] = kinds.plain_line(
            str(data.get("help_text") or ""), 500, "The explanation"
        )
    except kinds.Invalid as exc:
        errors["help_text"] = str(exc)
    key = slugify(str(data.get("key") or "")) or slugify(label)[:50]
    values["key"] = key[:50]
    if not key:
        errors["key"] = "Give a key: letters, digits and hyphens."
    elif (
        Question.objects.filter(task=task, key=values["key"])
        .exclude(pk=getattr(question, "pk", None))
        .exists()
    ):
        errors["key"] = f"Another question of this task has the key {key!r}."
    kind = str(data.get("kind") or "")
    values["kind"] = kind
    if kind not in Question.Kind.values:
        errors["kind"] = "Choose a kind: " + ", ".join(Question.Kind.values) + "."
    values["choices"] = []
    if kind == Question.Kind.CHOICE:
        try:
            values["choices"] = kinds.parse_choices(data.get("choices") or [])  # type: ignore[arg-type]
        except kinds.Invalid as exc:
            errors["choices"] = str(exc)
    values["required"] = bool(data.get("required"))
    values["on_board"] = bool(data.get("on_board"))
    if question is not None and not errors:
        answered = Answer.objects.filter(question=question)
        if kind != question.kind and answered.exists():
            errors["kind"] = (
                f"Teams have answered this question ({answered.count()} answers): "
                "its kind cannot change. Add a new question instead."
            )
        elif kind == Question.Kind.CHOICE:
            lost = sorted(
                set(answered.values_list("value", flat=True)) - set(values["choices"])  # type: ignore[arg-type]
            )
            if lost:
                errors["choices"] = (
                    "Teams chose "
                    + ", ".join(repr(v) for v in lost)
                    + ": keep these options."
                )
    if errors:
        raise QuestionInvalid(errors)
    return values


def add(*, task: SharedTask, data: Mapping[str, object]) -> Question:
    values = clean(task=task, data=data)
    with transaction.atomic():
        last = Question.objects.filter(task=task).aggregate(n=Max("order"))["n"]
        question = Question.objects.create(
            task=task, order=0 if last is None else last + 1, **values
        )
        boardcache.invalidate_task(task=task)
    return question


def update(*, question: Question, data: Mapping[str, object]) -> Question:
    values = clean(task=question.task, data=data, question=question)
    with transaction.atomic():
        for name, value in values.items():
            setattr(question, name, value)
        question.save()
        boardcache.invalidate_task(task=question.task_id)
    return question


def delete(*, question: Question) -> None:
    with transaction.atomic():
        task_id = question.task_id
        question.delete()
        boardcache.invalidate_task(task=task_id)


def move(*, question: Question, by: int) -> None:
    """Move the question ``by`` places (-1: up, 1: down) in its task's order."""
    with transaction.atomic():
        ordered = list(
            Question.objects.select_for_update().filter(task_id=question.task_id)
        )
        index = next(i for i, q in enumerate(ordered) if q.pk == question.pk)
        target = min(max(index + by, 0), len(ordered) - 1)
        ordered.insert(target, ordered.pop(index))
        for order, q in enumerate(ordered):
            if q.order != order:
                Question.objects.filter(pk=q.pk).update(order=order)
        boardcache.invalidate_task(task=question.task_id)


# --- the bundle's section ------------------------------------------------------------
SECTION = "factsheet"


def export_section(*, task: SharedTask) -> list[dict[str, object]] | None:
    questions = list(Question.objects.filter(task=task))
    if not questions:
        return None
    return [
        {
            "key": q.key,
            "question": q.label,
            **({"help": q.help_text} if q.help_text else {}),
            "kind": q.kind,
            **({"choices": list(q.choices)} if q.kind == Question.Kind.CHOICE else {}),
            "required": q.required,
            "on_leaderboard": q.on_board,
        }
        for q in questions
    ]


_BUNDLE_KEYS = {
    "key": "key",
    "question": "label",
    "help": "help_text",
    "kind": "kind",
    "choices": "choices",
    "required": "required",
    "on_leaderboard": "on_board",
}


def import_section(
    *, task: SharedTask, section: object
) -> list[tuple[int | None, str]]:
    """Create the questions of a bundle's ``factsheet`` section (``section``: the
    core's line-numbered node, ``.value`` and ``.line``). Returns the problems as
    (line, message); the caller creates nothing when there are any."""
    problems: list[tuple[int | None, str]] = []
    items = getattr(section, "value", None)
    line = getattr(section, "line", None)
    if not isinstance(items, list):
        return [(line, f"{SECTION!r} must be a list of questions")]
    for order, item in enumerate(items):
        mapping = getattr(item, "value", None)
        if not isinstance(mapping, dict):
            problems.append((item.line, "a question must be a mapping (key: value)"))
            continue
        unknown = sorted(set(mapping) - set(_BUNDLE_KEYS))
        if unknown:
            problems.append(
                (
                    item.line,
                    f"unknown key(s) {', '.join(map(repr, unknown))}; known: "
                    + ", ".join(_BUNDLE_KEYS),
                )
            )
            continue
        data: dict[str, object] = {}
        for name, node in mapping.items():
            value = node.value
            if isinstance(value, list):
                value = [v.value for v in value]
            if name in ("required", "on_leaderboard") and not isinstance(value, bool):
                problems.append((node.line, f"{name!r} must be true or false"))
            data[_BUNDLE_KEYS[name]] = value
        try:
            values = clean(task=task, data=data)
        except QuestionInvalid as exc:
            problems += [(item.line, f"{k}: {v}") for k, v in exc.errors.items()]
            continue
        Question.objects.create(task=task, order=order, **values)
    return problems
