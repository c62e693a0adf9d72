"""What the participation tests share: the organiser sets terms through the
console, a participant accepts them on the terms page (both web requests)."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse


def client_of(user) -> Client:  # noqa: ANN001
    c = Client()
    c.force_login(user)
    return c


def set_terms(organiser, task, text: str, licence: str = "CC-BY-4.0", **extra):  # noqa: ANN001, ANN003, ANN201
    response = client_of(organiser).post(
        reverse("console:data-terms", args=[task.slug]),
        {"text": text, "licence": licence, **extra},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return response


def accept(user, task, version: int, next_url: str = ""):  # noqa: ANN001, ANN201
    data = {"version": version, "agree": "on"}
    if next_url:
        data["next"] = next_url
    return client_of(user).post(reverse("participation:terms", args=[task.slug]), data)
