"""How the organisers' settings form asks for each MT-probing setting."""

from __future__ import annotations

from tasks.settings import SettingField

SETTING_FIELDS = (
    SettingField(
        "source_lang",
        "Source language",
        "Language of the probe sentences (picks the paper's templates).",
    ),
    SettingField(
        "count_proposed_correct",
        "Count proposed 'correct' tags",
        "Provisional scores count automatic 'c' proposals before an annotator confirms them.",
    ),
    SettingField(
        "template_adj",
        "Adjective template",
        "Probe sentence template for adjectives; empty: the paper's.",
    ),
    SettingField(
        "template_noun",
        "Noun template",
        "Probe sentence template for nouns; empty: the paper's.",
    ),
    SettingField(
        "template_verb",
        "Verb template",
        "Probe sentence template for verbs; empty: the paper's.",
    ),
)
