"""``{% url %}`` reverses each address once per process
(``competitions/templatetags/urls_kept.py``): a page rendered twice reverses
nothing the second time, and gives the same bytes; arguments other than plain
strings and integers are reversed every time."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.urls import reverse

from evalhub.competitions.templatetags import urls_kept


def test_an_address_is_reversed_once_and_the_same(monkeypatch) -> None:  # noqa: ANN001
    urls_kept._reversed.cache_clear()  # noqa: SLF001
    calls = []
    real = urls_kept.django_reverse

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(urls_kept, "django_reverse", counting)
    page = Template(
        "{% url 'competitions:own-run-list' slug %}|{% url 'competitions:task-list' %}"
        "|{% url 'competitions:own-run-list' slug as mine %}{{ mine }}"
    )
    first = page.render(Context({"slug": "demo-1"}))
    assert calls == ["competitions:own-run-list", "competitions:task-list"]
    assert page.render(Context({"slug": "demo-1"})) == first
    assert len(calls) == 2
    own = reverse("competitions:own-run-list", args=["demo-1"])
    assert first == f"{own}|{reverse('competitions:task-list')}|{own}"
    page.render(Context({"slug": "other"}))
    assert calls[-1] == "competitions:own-run-list" and len(calls) == 3

    class Slug:
        def __str__(self) -> str:
            return "x"

    Template("{% url 'competitions:own-run-list' slug %}").render(
        Context({"slug": Slug()})
    )
    Template("{% url 'competitions:own-run-list' slug %}").render(
        Context({"slug": Slug()})
    )
    assert len(calls) == 5


def test_an_address_that_does_not_exist_still_fails() -> None:
    from django.urls import NoReverseMatch

    with pytest.raises(NoReverseMatch):
        Template("{% url 'competitions:no-such-view' %}").render(Context({}))
    assert (
        Template("{% url 'competitions:no-such-view' as u %}[{{ u }}]").render(
            Context({})
        )
        == "[]"
    )
