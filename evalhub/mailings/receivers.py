"""The messages' place on the organiser dashboard (``dashboard_links``)."""

from __future__ import annotations

from django.dispatch import receiver
from django.urls import reverse

from evalhub.competitions import signals


@receiver(signals.dashboard_links, dispatch_uid="mailings-dashboard-links")
def dashboard_links(sender: object, task, **kwargs: object):  # noqa: ANN001, ANN201
    return (
        "Messages to teams",
        (
            ("Write to teams", reverse("console:message-create", args=[task.slug])),
            ("Messages sent", reverse("console:messages", args=[task.slug])),
        ),
    )
