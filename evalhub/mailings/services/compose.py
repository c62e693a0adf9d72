"""Writing to teams: whom a message reaches (a recipient filter of
``competitions/services/recipients.py``, or one team), and storing it with one
``Delivery`` per recipient, at once, in one transaction; its job is sent once the
message is committed (beat sends it again if the broker lost it:
``jobs.resume_messages``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from evalhub.competitions import markdown
from evalhub.competitions.models import SharedTask, Team
from evalhub.competitions.services import recipients
from evalhub.console.services import people
from evalhub.mailings import jobs
from evalhub.mailings.models import Delivery, Message

#: The audience "one team" (its team chosen apart), beside the registered filters.
ONE_TEAM = "team"


class NoRecipients(Exception):
    """No approved team matches: nothing is stored or sent."""


@dataclass(frozen=True, slots=True)
class Audience:
    key: str
    label: str
    teams: tuple[Team, ...]
    #: (user, team) of every member addressed, each user once, by team and name.
    members: tuple[tuple[object, Team], ...]


def choices() -> list[tuple[str, str]]:
    """The audiences an organiser may choose from: every filter, then one team."""
    return [(f.key, f.label) for f in recipients.filters()] + [(ONE_TEAM, "One team")]


def approved_teams(*, task: SharedTask) -> list[Team]:
    return list(recipients.approved_teams(task).order_by("name"))


def audience(*, task: SharedTask, key: str, team: Team | None = None) -> Audience:
    """Whom a message to ``key`` (or to ``team``, with ``ONE_TEAM``) reaches now."""
    if key == ONE_TEAM:
        team_id = team.pk if team is not None else -1
        teams = recipients.select(task=task, key=recipients.ALL, team_id=team_id)
        label = f"One team: {teams[0].name}" if teams else "One team"
    else:
        found = recipients.get(key)
        teams = recipients.select(task=task, key=key) if found else []
        label = found.label if found else key
    seen: set[int] = set()
    members = []
    for t in teams:
        for user in t.members.order_by("username"):
            if user.pk not in seen:
                seen.add(user.pk)
                members.append((user, t))
    return Audience(key=key, label=label, teams=tuple(teams), members=tuple(members))


def post(
    *,
    task: SharedTask,
    author: object,
    subject: str,
    body: str,
    key: str,
    team: Team | None = None,
    announce: bool = False,
) -> Message:
    """Store the message and a pending delivery for each member of the teams it
    reaches (``NoRecipients`` if none), with ``announce`` also as an announcement
    on the task page (not announced again: this message is the mail); a worker
    mails them (``jobs.send_message``) once this is committed."""
    reached = audience(task=task, key=key, team=team)
    if not reached.members:
        raise NoRecipients(
            "No member of an approved team matches: nothing was sent. Choose "
            "other recipients."
        )
    with transaction.atomic():
        message = Message.objects.create(
            task=task,
            author=author,
            subject=" ".join(subject.split()),
            body=body,
            body_html=markdown.render(body),
            audience=key,
            audience_label=reached.label[:250],
            team=team if key == ONE_TEAM else None,
            teams_count=len(reached.teams),
            recipients=len(reached.members),
            announced=announce,
        )
        Delivery.objects.bulk_create(
            Delivery(message=message, user=user, team_name=t.name)
            for user, t in reached.members
        )
        if announce:
            people.post_announcement(
                task=task, author=author, text=message.subject, body=body, tell=False
            )
        pk = message.pk
        transaction.on_commit(lambda: jobs.send_message.delay(pk), robust=True)
    return message


@dataclass(frozen=True, slots=True)
class Preview:
    audience: Audience
    html: str


def preview(*, task: SharedTask, body: str, key: str, team: Team | None) -> Preview:
    """What ``post`` would send, before it is sent: the recipients and the body as
    the mail's HTML part renders it."""
    return Preview(
        audience=audience(task=task, key=key, team=team), html=markdown.render(body)
    )
