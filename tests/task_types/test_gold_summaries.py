"""``TaskType.summarise_gold``: what the organiser's preview shows of a gold file,
on the real data of ``../shared/data`` (and the demo probes: there is no public MT
probing gold), for every task type and the toy type."""

from __future__ import annotations

import dataclasses

from tasks import registry
from tasks.pages import GoldSummary
from tests.paths import shared_data
from tests.toy_task.task import ToyLabels
from tests.zips import zip_bytes


def _summary(slug: str, inputs: dict, gold: dict, raw: dict | None = None):  # noqa: ANN202
    task_type = registry.get(slug)
    settings = task_type.parse_settings(raw or {})
    parsed = task_type.parse_inputs(inputs, settings)
    summary = task_type.summarise_gold(
        task_type.parse_gold(gold, parsed, settings), parsed, settings
    )
    assert isinstance(summary, GoldSummary)
    assert GoldSummary.from_json(summary.to_json()) == summary
    return dict(summary.counts), summary


def _acter(name: str) -> bytes:
    return shared_data(
        "term_extraction", "acter", "en", "htfl", "annotated", "annotations",
        "unique_annotation_lists", name,
    ).read_bytes()  # fmt: skip


def test_acter_terms_labels_and_merged_lines() -> None:
    counts, summary = _summary(
        "term_extraction", {}, {"gold": _acter("htfl_en_terms.tsv")}
    )
    # 2,361 lines, two pairs of which are one term after normalisation.
    assert counts["gold terms"] == 2359
    assert counts["lines merged into another term"] == 2
    assert sum(n for k, n in counts.items() if k.startswith("label ")) == 2359
    assert set(k for k in counts if k.startswith("label ")) == {
        "label Common_Term", "label OOD_Term", "label Specific_Term"
    }  # fmt: skip
    assert summary.warnings == (
        "gold lines 954, 959 are one term after normalisation (whitespace/case)",
        "gold lines 2140, 2145 are one term after normalisation (whitespace/case)",
    )
    assert summary.examples[0].startswith("line 1: ")
    assert 3 <= len(summary.examples) <= 5


def test_acter_named_entities_left_out_by_the_task_setting() -> None:
    data = _acter("htfl_en_terms_nes.tsv")
    with_nes, _ = _summary("term_extraction", {}, {"gold": data})
    without, _ = _summary(
        "term_extraction", {}, {"gold": data}, {"exclude_labels": ["Named_Entity"]}
    )
    n_entities = with_nes["label Named_Entity"]
    assert n_entities > 0
    assert without["lines left out (Named_Entity)"] >= n_entities
    assert "label Named_Entity" not in without
    assert without["gold terms"] == with_nes["gold terms"] - n_entities


def test_wiktionary_dictionary_pairs_as_its_readme_counts() -> None:
    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    inputs = {
        "source_terms": (base / "source_terms.txt").read_bytes(),
        "target_terms": (base / "target_terms.txt").read_bytes(),
    }
    gold = (base / "gold.tsv").read_bytes()
    counts, summary = _summary("bilingual_term_alignment", inputs, {"gold": gold})
    # README: 2,884 pairs, D1 4,850 (gold 2,425), D2 7,320 (gold 1,464), 328
    # English terms with several translations.
    assert counts["gold pairs"] == 2884
    assert counts["source terms with a pair"] == 2425
    assert counts["target terms with a pair"] == 1464
    assert counts["source terms without a gold pair (distractors)"] == 2425
    assert counts["source terms with several translations"] == 328
    assert counts["repeated gold lines (counted once)"] == 0
    assert summary.warnings == ()
    first = gold.decode().splitlines()[0].replace("\t", " → ")
    assert summary.examples[0] == first
    # A repeated line is counted and warned about.
    counts, summary = _summary(
        "bilingual_term_alignment", inputs, {"gold": gold + gold.splitlines(True)[0]}
    )
    assert counts["repeated gold lines (counted once)"] == 1
    assert counts["gold pairs"] == 2884
    assert "1 gold line(s) repeat a pair" in summary.warnings[0]


def test_text_berg_reference_alignments() -> None:
    data = shared_data("sentence_alignment", "vecalign_bleualign_data")
    docs, gold = {}, {}
    for i in range(7):
        docs[f"test{i}.src"] = (data / f"test{i}.de").read_bytes()
        docs[f"test{i}.tgt"] = (data / f"test{i}.fr").read_bytes()
        gold[f"test{i}.align"] = (data / f"test{i}.defr").read_bytes()
    counts, summary = _summary(
        "sentence_alignment", {"documents": zip_bytes(docs)}, {"gold": zip_bytes(gold)}
    )
    n_lines = sum(
        len([x for x in (data / f"test{i}.defr").read_text().splitlines() if x.strip()])
        for i in range(7)
    )
    assert counts["documents"] == 7
    assert counts["bisegments"] == n_lines
    assert sum(n for k, n in counts.items() if k[0].isdigit()) == n_lines
    assert counts["1-1 bisegments"] > n_lines // 2
    # The data's quirk: a few sentences in no bisegment ([]:[22] and the like).
    assert counts["0-1 bisegments"] + counts.get("1-0 bisegments", 0) > 0
    assert all(" ⇔ " in e and e.startswith("test") for e in summary.examples)


def test_probe_references_with_and_without() -> None:
    task_type = registry.get("mt_lexicon_probe")
    demo = task_type.demo().test_sets[0]
    counts, summary = _summary("mt_lexicon_probe", dict(demo.inputs), dict(demo.gold))
    n_probes = counts["probes"]
    assert n_probes == len(
        [x for x in demo.inputs["probes"].decode().splitlines() if x.strip()]
    )
    assert counts["probes with references"] == n_probes
    assert summary.warnings == ()
    # Keep the references of half of the probes: the rest are warned about.
    lines = demo.gold["references"].decode().splitlines(True)
    kept = lines[: len(lines) // 2]
    counts, summary = _summary(
        "mt_lexicon_probe", dict(demo.inputs), {"references": "".join(kept).encode()}
    )
    with_refs = len([x for x in kept if x.partition("\t")[2].strip()])
    assert counts["probes with references"] == with_refs
    assert f"{n_probes - with_refs} of the {n_probes} probes" in summary.warnings[0]


def test_toy_type_and_the_default() -> None:
    toy = ToyLabels()
    settings = toy.parse_settings({})
    items = toy.parse_inputs({"items": b"a\nb\nc\n"}, settings)
    gold = toy.parse_gold({"labels": b"a\tx\nb\tx\nc\tx\n"}, items, settings)
    summary = toy.summarise_gold(gold, items, settings)
    assert dict(summary.counts) == {"labelled items": 3, "labels": 1}
    assert summary.warnings == ("every item has the label 'x'",)
    # A task type without a summary of its own: its gold warnings, no counts.
    base = registry.get("term_extraction")
    default = super(type(base), base).summarise_gold
    gold = base.parse_gold(
        {"gold": b"heart  failure\nheart failure\n"}, None, base.parse_settings({})
    )
    plain = default(gold, None, base.parse_settings({}))
    assert plain.counts == () and len(plain.warnings) == 1
    assert dataclasses.is_dataclass(plain)
