"""Building a probe set from the organiser pages, through Django's client, on the real
Wiktionary de-en lexicon: preview, save into a test set (public probes + private
references), determinism, bad input named by file and line, organisers only."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions.models import TestSet, TestSetFile
from tests.paths import shared_data

pytestmark = pytest.mark.django_db

CLASSES = {"adj_list": "Adjective", "noun_list": "Noun", "verb_list": "Verb"}


def _file(name: str, split: str = "train") -> SimpleUploadedFile:
    path = shared_data("mt_lexical_coverage", "wiktionary_bli_de_en", name)
    return SimpleUploadedFile(path.name, path.read_bytes())


def _params(**overrides: object) -> dict[str, object]:
    params: dict[str, object] = {
        "lang": "en",
        "columns": "de,en",
        "per_cell": 100,
        "seed": 1,
        "medium_zipf": 3.15,
        "low_zipf": 1.75,
        "band_width": 0.15,
        "template_adj": "This is {adj}.",
        "template_noun": "The {noun} can be nice.",
        "template_verb": "We {verb}.",
    }
    params.update(overrides)
    return params


def _real_lexicon(split: str = "train") -> dict[str, object]:
    files: dict[str, object] = {
        key: _file(f"de-en.{split}.{name}") for key, name in CLASSES.items()
    }
    files["dictionary"] = _file("de-en.all")
    return files


@pytest.fixture
def probe_phase(mt_task):  # noqa: ANN001, ANN201
    from django.utils import timezone

    from evalhub.competitions.models import Phase

    now = timezone.now()
    return Phase.objects.create(
        task=mt_task,
        slug="probing",
        name="Probing",
        opens_at=now - timedelta(days=1),
        closes_at=now + timedelta(days=7),
    )


def _urls(task) -> dict[str, str]:  # noqa: ANN001
    return {
        "build": reverse("annotations:probe-set-build", args=[task.slug]),
        "save": reverse("annotations:probe-set-save", args=[task.slug]),
        "annotators": reverse("annotations:annotator-list", args=[task.slug]),
    }


def _build_and_save(client, task, phase, name: str, **params) -> TestSet:  # noqa: ANN001
    urls = _urls(task)
    response = client.post(urls["build"], {**_params(**params), **_real_lexicon()})
    assert response.status_code == 200, response.content.decode()[:2000]
    preview = response.context["preview"]
    saved = client.post(
        urls["save"],
        {"token": preview.token, "target": f"phase:{phase.pk}", "name": name},
    )
    assert saved.status_code == 302
    return TestSet.objects.get(phase=phase, name=name)


def _stored(test_set: TestSet) -> dict[str, tuple[bool, bytes]]:
    out = {}
    for f in TestSetFile.objects.filter(test_set=test_set):
        with f.file.open("rb") as handle:
            out[f.role] = (f.private, handle.read())
    return out


def test_organiser_builds_the_real_lexicon_previews_and_saves_deterministically(
    client, mt_task, probe_phase, organiser, participant
):
    client.force_login(organiser)
    urls = _urls(mt_task)
    page = client.get(urls["build"])
    assert page.status_code == 200
    form = page.context["form"]
    # The spec's defaults: 100 per cell, the CELEX 25 / 1 Zipf equivalents for English.
    assert form["per_cell"].value() == 100
    assert (form["medium_zipf"].value(), form["low_zipf"].value()) == (3.15, 1.75)
    assert form["template_noun"].value() == ""  # the paper's for the language
    assert "The {noun} can be nice. (en)" in page.content.decode()

    response = client.post(urls["build"], {**_params(), **_real_lexicon()})
    assert response.status_code == 200
    preview = response.context["preview"]
    assert preview.n_probes == 900 and not preview.warnings
    cells = {(c.pos, c.freq_class): c for c in preview.cells}
    assert len(cells) == 9 and all(c.selected == 100 for c in cells.values())
    # Counts available per band, as `evalhub probe build` prints them.
    assert cells[("verb", "low")].available < cells[("noun", "low")].available
    assert (cells[("adj", "low")].zipf_min, cells[("adj", "low")].zipf_max) == (
        1.6,
        1.9,
    )
    body = response.content.decode()
    assert 'data-cell="noun-medium"' in body and "This is other." in body
    assert "too few words" not in body
    assert all(c.samples for c in cells.values())
    assert cells[("adj", "high")].samples[0] == "other"  # the most frequent adjective

    first = _build_and_save(client, mt_task, probe_phase, "Probes A")
    again = _build_and_save(client, mt_task, probe_phase, "Probes B")
    a, b = _stored(first), _stored(again)
    assert set(a) == {"probes", "references"}
    assert a == b  # same files and seed: byte-identical probe and gold files
    private, probes = a["probes"]
    assert not private and len(probes.decode().splitlines()) == 900
    assert all(len(line.split("\t")) == 5 for line in probes.decode().splitlines())
    private, references = a["references"]
    assert private and "adj-high-002\t" in references.decode()
    assert hashlib.sha256(probes).hexdigest() == preview.sha256

    # Tuning a parameter reuses the word lists of the last build (no new upload).
    kept = preview.lists_token
    assert f'name="lists" value="{kept}"' in body
    other = client.post(urls["build"], {**_params(seed=2), "lists": kept})
    assert other.status_code == 200
    assert other.context["preview"].list_names == preview.list_names
    assert other.context["preview"].sha256 != preview.sha256  # the seed matters
    same = client.post(urls["build"], {**_params(), "lists": kept})
    assert same.context["preview"].sha256 == preview.sha256
    gone = client.post(urls["build"], {**_params(), "lists": "expired"})
    assert gone.status_code == 422 and "upload them again" in gone.content.decode()

    # Participants download the probe sentences; the references stay hidden.
    client.force_login(participant)
    files = reverse("competitions:testset-file", args=[first.pk, "probes"])
    assert client.get(files).status_code == 200
    gold = reverse("competitions:testset-file", args=[first.pk, "references"])
    assert client.get(gold).status_code == 404


def test_german_probes_take_the_german_templates_and_band_centres(
    client, mt_task, organiser
):
    client.force_login(organiser)
    params = _params(
        lang="de",
        per_cell=5,
        medium_zipf="",
        low_zipf="",
        template_adj="",
        template_noun="",
        template_verb="",
    )
    genders = SimpleUploadedFile("genders.tsv", b"Zeit\tf\n")
    response = client.post(
        _urls(mt_task)["build"],
        {**params, **_real_lexicon(split="test"), "genders": genders},
    )
    assert response.status_code == 200, response.content.decode()[:3000]
    preview = response.context["preview"]
    assert (preview.medium_zipf, preview.low_zipf) == (3.67, 2.27)
    sentences = " ".join(preview.sentences)
    assert "Es ist " in sentences and "Wir müssen " in sentences
    assert "This is" not in sentences
    nouns = [c for c in preview.cells if c.pos == "noun"]
    assert all(w[:1].isupper() for c in nouns for w in c.samples)  # German nouns


def test_an_organiser_without_probe_test_sets_finds_the_builder(
    client, mt_task, organiser
):
    client.force_login(organiser)
    home = client.get(reverse("competitions:task-list")).content.decode()
    listing = reverse("annotations:annotation-list")
    assert listing in home  # the header's Annotate link
    body = client.get(listing).content.decode()
    assert "No probe test set yet" in body
    assert _urls(mt_task)["build"] in body and _urls(mt_task)["annotators"] in body


def test_too_small_word_lists_warn_per_cell(client, mt_task, organiser):
    client.force_login(organiser)
    response = client.post(
        _urls(mt_task)["build"],
        {**_params(per_cell=60), **_real_lexicon(split="test")},
    )
    assert response.status_code == 200
    preview = response.context["preview"]
    short = {(c.pos, c.freq_class) for c in preview.cells if c.short}
    assert ("verb", "low") in short and ("adj", "high") not in short
    assert any(w.startswith("verb/low: only") for w in preview.warnings)
    assert "too few words" in response.content.decode()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"Haus\thouse\tnoun\nschnell\tfast\n", "lexicon.tsv, line 2: expected 3"),
        (
            b"Haus\thouse\tnoun\nbald\tsoon\tadverb\n",
            "lexicon.tsv, line 2: unknown pos",
        ),
        (b"\n", "lexicon.tsv: the lexicon contains no word pairs"),
    ],
)
def test_bad_lexicon_is_named_by_file_and_line(
    content, expected, client, mt_task, organiser
):
    client.force_login(organiser)
    response = client.post(
        _urls(mt_task)["build"],
        {**_params(), "lexicon": SimpleUploadedFile("lexicon.tsv", content)},
    )
    assert response.status_code == 422
    assert expected in response.content.decode()
    assert response.context["preview"] is None


def test_missing_lists_and_bad_parameters_are_explained(client, mt_task, organiser):
    client.force_login(organiser)
    url = _urls(mt_task)["build"]
    none = client.post(url, _params())
    assert none.status_code == 422 and "upload a lexicon" in none.content.decode()

    def lexicon() -> dict[str, object]:
        return {"lexicon": SimpleUploadedFile("l.tsv", b"Haus\thouse\tnoun\n")}

    bad = client.post(url, {**_params(template_noun="The thing."), **lexicon()})
    assert bad.status_code == 422
    assert "must contain {noun}" in bad.content.decode()
    cols = client.post(url, {**_params(columns="de,fr"), **lexicon()})
    assert cols.status_code == 422 and "source language en" in cols.content.decode()


def test_saving_refuses_a_test_set_with_scored_runs_and_expired_drafts(
    without_plots, mt_runs, mt_test_set, client, organiser
):
    task = mt_test_set.phase.task
    client.force_login(organiser)
    urls = _urls(task)
    before = _stored(mt_test_set)
    expired = client.post(
        urls["save"], {"token": "gone", "target": f"ts:{mt_test_set.pk}"}, follow=True
    )
    assert "preview has expired" in expired.content.decode()
    lexicon = b"Haus\thouse\tnoun\nschnell\tfast\tadj\nlaufen\trun\tverb\n"
    preview = client.post(
        urls["build"],
        {**_params(per_cell=1), "lexicon": SimpleUploadedFile("l.tsv", lexicon)},
    ).context["preview"]
    assert preview.n_probes == 3
    refused = client.post(
        urls["save"],
        {"token": preview.token, "target": f"ts:{mt_test_set.pk}"},
        follow=True,
    )
    assert "3 scored run(s)" in refused.content.decode()
    assert _stored(mt_test_set) == before


@pytest.mark.parametrize("role", ["anonymous", "participant", "annotator", "staff"])
def test_only_the_task_organisers_reach_the_builder_and_annotator_pages(
    role, client, mt_task, probe_phase, participant, annotator, django_user_model
):
    if role == "participant":
        client.force_login(participant)
    elif role == "annotator":
        client.force_login(annotator)
    elif role == "staff":
        client.force_login(django_user_model.objects.create_user("s", is_staff=True))
    urls = _urls(mt_task)
    assert client.get(urls["build"]).status_code == 404
    lexicon = {"lexicon": SimpleUploadedFile("l.tsv", b"Haus\thouse\tnoun\n")}
    assert client.post(urls["build"], {**_params(), **lexicon}).status_code == 404
    save = {"token": "x", "target": f"phase:{probe_phase.pk}", "name": "Mine"}
    assert client.post(urls["save"], save).status_code == 404
    assert client.get(urls["annotators"]).status_code == 404
    assert client.post(urls["annotators"], {"username": "alice"}).status_code == 404
    assert not TestSet.objects.filter(name="Mine").exists()
