"""The ``toy_labels`` task type (see the package docstring)."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tasks.base import (
    Demo,
    DemoTestSet,
    FileRole,
    FormatError,
    GoldSummary,
    Metric,
    ProblemCollector,
    ScoreReport,
    SettingField,
    TaskType,
)
from tasks.pages import spread

SLUG = "toy_labels"
PATH = "tests.toy_task.task:ToyLabels"


@dataclass(frozen=True, slots=True)
class Settings:
    casefold: bool = False


@dataclass(frozen=True, slots=True)
class Items:
    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Labels:
    by_id: Mapping[str, str]


def _lines(data: bytes, filename: str) -> list[tuple[int, str]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError.at(filename, None, f"not UTF-8 ({exc.reason})") from None
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def _labels(
    data: bytes, filename: str, items: Items, settings: Settings, *, complete: bool
) -> Labels:
    problems = ProblemCollector()
    known = set(items.ids)
    out: dict[str, str] = {}
    for n, line in _lines(data, filename):
        item, sep, label = line.partition("\t")
        if not sep or not label.strip():
            problems.add(filename, n, "expected id<TAB>label")
        elif item not in known:
            problems.add(filename, n, f"unknown item {item!r}")
        elif item in out:
            problems.add(filename, n, f"item {item!r} labelled twice")
        else:
            label = label.strip()
            out[item] = label.casefold() if settings.casefold else label
    if complete and not problems.total and len(out) != len(known):
        problems.add(filename, None, f"{len(known) - len(out)} item(s) have no label")
    problems.raise_if_any()
    return Labels(out)


class ToyLabels(TaskType[Settings, Items, Labels, Labels]):
    slug = SLUG
    name = "Toy labels"
    version = "1"
    settings_class = Settings
    input_roles = (FileRole("items", "Items", "One item id per line"),)
    gold_roles = (
        FileRole("labels", "Gold labels", "id<TAB>label per item", private=True),
    )
    submission_role = FileRole("run", "Run", "id<TAB>label per line")
    metrics = (
        Metric("accuracy", "Accuracy", "Correct labels over all items"),
        Metric("coverage", "Coverage", "Labelled items over all items"),
    )
    primary_metric = "accuracy"
    format_help = "One `id<TAB>label` line per item (toy labels format)."
    setting_fields = (
        SettingField("casefold", "Ignore case", "Compare labels case-insensitively."),
    )

    def parse_inputs(self, files: Mapping[str, bytes], settings: Settings) -> Items:
        ids = tuple(line.strip() for _, line in _lines(files["items"], "items"))
        if not ids:
            raise FormatError.at("items", None, "no items")
        return Items(ids)

    def parse_gold(
        self, files: Mapping[str, bytes], inputs: Items, settings: Settings
    ) -> Labels:
        return _labels(files["labels"], "labels", inputs, settings, complete=True)

    def summarise_gold(
        self, gold: Labels, inputs: Items, settings: Settings
    ) -> GoldSummary:
        labels = Counter(gold.by_id.values())
        return GoldSummary(
            counts=(("labelled items", len(gold.by_id)), ("labels", len(labels))),
            examples=spread([f"{i}: {label}" for i, label in gold.by_id.items()]),
            warnings=tuple(
                f"every item has the label {label!r}"
                for label, n in labels.items()
                if n == len(inputs.ids) > 1
            ),
        )

    def parse_run(
        self, data: bytes, filename: str, inputs: Items, settings: Settings
    ) -> Labels:
        return _labels(data, filename, inputs, settings, complete=False)

    def score(
        self, run: Labels, gold: Labels, inputs: Items, settings: Settings
    ) -> ScoreReport:
        n = len(inputs.ids)
        correct = sum(run.by_id.get(i) == gold.by_id[i] for i in inputs.ids)
        return ScoreReport(
            metrics={"accuracy": correct / n, "coverage": len(run.by_id) / n},
            payload={"items": n, "correct": correct, "labelled": len(run.by_id)},
        )

    def demo(self, seed: int = 0) -> Demo:
        items = b"a\nb\nc\nd\n"
        return Demo(
            title="Demo: toy labels",
            description="Label four items.",
            settings={},
            test_sets=(
                DemoTestSet(
                    "Test", {"items": items}, {"labels": b"a\tx\nb\ty\nc\tx\nd\ty\n"}
                ),
            ),
            runs=(("Toy team", "all x", {"run": b"a\tx\nb\tx\nc\tx\nd\tx\n"}),),
        )

    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--items", required=True, type=Path)
        parser.add_argument("--gold", required=True, type=Path)
        parser.add_argument("--run", required=True, type=Path)

    def cli_score(self, args: argparse.Namespace) -> ScoreReport:
        settings = Settings()
        items = self.parse_inputs({"items": args.items.read_bytes()}, settings)
        gold = self.parse_gold({"labels": args.gold.read_bytes()}, items, settings)
        run = self.parse_run(args.run.read_bytes(), args.run.name, items, settings)
        return self.score(run, gold, items, settings)
