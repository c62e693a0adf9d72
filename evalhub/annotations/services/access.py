"""Who may annotate. One place for the annotator rule, beside the platform's leak
rules (:mod:`evalhub.competitions.services.boards.access`), which stay unchanged:

- organisers of an mt_lexicon_probe task annotate its test sets and manage it;
- annotators (:class:`~evalhub.annotations.models.Annotator`) annotate its test sets
  unless they are in a team registered for the task (annotators see every team's
  translations, which participants must not), and nothing more: no gold file, no per-item gold outcomes, no hidden (private,
  unrevealed) scores, no dashboard, no admin, no other task. On the annotation page
  they see the probe sentence, the systems' translations and the automatic proposals,
  but not which reference a proposal matched.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q, QuerySet

from evalhub.annotations.models import Annotator
from evalhub.cache import forget, kept_for_user, register_header_key
from evalhub.competitions.models import Registration, SharedTask, TestSet
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import access

SLUG = "mt_lexicon_probe"


def _participations(user: object) -> QuerySet[Registration]:
    return Registration.objects.filter(team__members=user).exclude(
        status=Registration.Status.REJECTED
    )


def is_participant(user: object, task: SharedTask) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return _participations(user).filter(task=task).exists()


def is_annotator(user: object, task: SharedTask) -> bool:
    """Assigned as annotator and not (or no longer) a participant of the task."""
    if not getattr(user, "is_authenticated", False):
        return False
    return Annotator.objects.filter(task=task, user=user).exists() and (
        not is_participant(user, task)
    )


def can_annotate(user: object, task: SharedTask) -> bool:
    """Open the annotation pages of the task's test sets, tag and undo."""
    if task.task_type != SLUG:
        return False
    return roles.is_organiser(user, task) or is_annotator(user, task)


def can_manage(user: object, task: SharedTask) -> bool:
    """Build probe sets and assign annotators: the task's organisers."""
    return task.task_type == SLUG and roles.is_organiser(user, task)


def can_see_references(user: object, task: SharedTask) -> bool:
    """Which reference translation a proposed ``c`` matched (hidden gold)."""
    return access.can_see_detail(user, task)


def can_see_scores(user: object, test_set: TestSet) -> bool:
    """The systems' scores on the annotation page: the platform's rule."""
    return access.can_see_scores(user, test_set)


def managed_tasks(user: object) -> QuerySet[SharedTask]:
    """mt_lexicon_probe tasks ``user`` organises (see :func:`can_manage`)."""
    qs = SharedTask.objects.filter(task_type=SLUG)
    if not getattr(user, "is_authenticated", False):
        return qs.none()
    if getattr(user, "is_superuser", False):
        return qs
    return qs.filter(organisers=user)


def annotatable_test_sets(user: object) -> QuerySet[TestSet]:
    """mt_lexicon_probe test sets ``user`` may annotate."""
    qs = TestSet.objects.filter(phase__task__task_type=SLUG)
    if not getattr(user, "is_authenticated", False):
        return qs.none()
    if getattr(user, "is_superuser", False):
        return qs
    return qs.filter(
        Q(phase__task__in=SharedTask.objects.filter(organisers=user))
        | Q(
            phase__task__in=SharedTask.objects.filter(annotators__user=user).exclude(
                pk__in=_participations(user).values("task")
            )
        )
    )


#: The header link's answer is kept per user for at most this many seconds, and
#: forgotten at once when a role it depends on changes (see ``receivers``).
HEADER_CACHE_SECONDS = 60


def header_may_annotate(user: object) -> bool:
    """:func:`may_annotate` for the site header, kept in the cache per user (it is on
    every page a signed-in user sees). Only the link is cached: every annotation page
    applies the rules afresh."""
    if not getattr(user, "is_authenticated", False):
        return False
    return kept_for_user(
        user,
        _header_key(user.pk),  # type: ignore[attr-defined]
        lambda: may_annotate(user),
        HEADER_CACHE_SECONDS,
    )


def forget_header(user_ids: Iterable[int]) -> None:
    """A role of these users changed: now, and again once the transaction commits
    (a page may have read the old rows in between)."""
    forget([_header_key(pk) for pk in user_ids])


def _header_key(user_id: int) -> str:
    return f"annotations:may-annotate:{user_id}"


register_header_key(_header_key)


def may_annotate(user: object) -> bool:
    """The site header's "Annotate" link: ``user`` annotates an mt_lexicon_probe
    test set or organises such a task. It is on every page a signed-in user sees,
    so most users (organisers and annotators of no such task) are answered by one
    plain query, a condition both rules need."""
    if not getattr(user, "is_authenticated", False):
        return False
    if not getattr(user, "is_superuser", False) and not (
        SharedTask.objects.filter(task_type=SLUG)
        .filter(Q(organisers=user) | Q(annotators__user=user))
        .exists()
    ):
        return False
    return annotatable_test_sets(user).exists() or managed_tasks(user).exists()
