"""A description that grows in the HTML cleaner (issue 41, item 8): formatting
left open is opened again by the parser in every paragraph after it, so 50,000
characters made megabytes of stored HTML that every visitor downloads, and each
preview spent seconds on it. The size is bounded once cleaned, the organiser told
the limit, and the preview does bounded work."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from evalhub.competitions import markdown
from evalhub.competitions.models import SharedTask
from tests.competitions.test_markdown_pages import (  # noqa: F401 (a fixture)
    _import,
    _settings_post,
    co_organiser,
)

pytestmark = pytest.mark.django_db


def _reopened(open_tags: str) -> str:
    """``open_tags`` left open, then paragraphs up to 50,000 characters."""
    return open_tags + "x<p>" * ((markdown.MAX_CHARS - len(open_tags)) // 4)


#: 90 bold elements told apart by a title (the parser keeps three alike), and
#: eight kinds of formatting eleven times: each was more than 2 MB once cleaned.
GROWING = {
    "titled bold": _reopened("".join(f'<b title="{i}">' for i in range(90))),
    "every formatting tag": _reopened("<b><i><em><strong><code><a><s><u>" * 11),
}
LIMIT = f"at most {markdown.MAX_HTML_CHARS:,} are allowed"


@pytest.mark.parametrize("name", sorted(GROWING))
def test_the_form_refuses_a_description_that_grows_naming_the_limit(
    name,
    client,
    task,
    co_organiser,  # noqa: ANN001, F811
):
    text = GROWING[name]
    assert len(text) <= markdown.MAX_CHARS
    client.force_login(co_organiser)
    response = _settings_post(client, task, text)
    assert response.status_code == 422
    (error,) = response.context["form"].errors["description"]
    assert error == (
        "The description renders to more than 1,000,000 characters of HTML once "
        "cleaned (formatting left open, such as <b> or <em>, is repeated in every "
        f"paragraph after it); {LIMIT}."
    )
    task.refresh_from_db()
    assert task.description == "A *test* task."
    assert len(task.description_html) < 1_000


@pytest.mark.parametrize("name", sorted(GROWING))
def test_the_preview_does_bounded_work(name, client, task, co_organiser):  # noqa: ANN001, F811
    client.force_login(co_organiser)
    url = reverse("console:markdown-preview")
    start = time.process_time()
    response = client.post(url, {"description": GROWING[name]})
    assert time.process_time() - start < 1.0
    answer = response.content.decode()
    assert LIMIT in answer and len(answer) < 20_000


def test_the_bundle_import_refuses_it_too(client, organiser):  # noqa: ANN001
    client.force_login(organiser)
    response = _import(client, '"' + GROWING["titled bold"].replace('"', "'") + '"')
    assert response.status_code == 422
    (problem,) = [str(p) for p in response.context["problems"]]
    assert problem.startswith(
        "task.yaml, line 3: 'description' renders to more than 1,000,000 characters "
        "of HTML once cleaned"
    )
    assert not SharedTask.objects.filter(slug="bundled").exists()


def test_what_the_cleaner_adds_counts_too(client, task, co_organiser, monkeypatch):  # noqa: ANN001, F811
    """Measured once cleaned: each link gains its ``rel``, so a description under
    the limit as parsed may be over it as stored."""
    links = "[a](https://example.org/) " * 400
    parsed = len(markdown._parse(links))
    monkeypatch.setattr(markdown, "MAX_HTML_CHARS", parsed + 100)
    client.force_login(co_organiser)
    response = _settings_post(client, task, links)
    assert response.status_code == 422
    (error,) = response.context["form"].errors["description"]
    stored = len(markdown._clean(markdown._parse(links)))
    assert error == (
        f"The description renders to {stored:,} characters of HTML once cleaned; "
        f"at most {parsed + 100:,} are allowed."
    )
