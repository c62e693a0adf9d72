from __future__ import annotations

from django import forms

from evalhub.annotations.services import probe_sets
from tasks.mt_lexicon_probe.builder import default_zipf, templates_for
from tasks.mt_lexicon_probe.probes import Pos

LANGUAGES = probe_sets.LANGUAGES
LANGUAGE_CHOICES = [(lang, lang) for lang in LANGUAGES]


class ProbeBuildForm(forms.Form):
    """Word lists and the builder's parameters (spec defaults from the service)."""

    lexicon = forms.FileField(
        required=False,
        help_text="Word list with parts of speech: three tab-separated columns, "
        "word, translation and pos (adj, noun or verb), the two word columns' "
        "languages as below.",
    )
    adj_list = forms.FileField(
        required=False,
        label="Adjectives",
        help_text="Or one bilingual list per word class: two tab-separated columns "
        "(e.g. Wiktionary de-en.train.Adjective), or a JSON/zip {word: [translations]}.",
    )
    noun_list = forms.FileField(required=False, label="Nouns")
    verb_list = forms.FileField(required=False, label="Verbs")
    dictionary = forms.FileField(
        required=False,
        help_text="Optional bilingual dictionary (two columns): words spelt the same "
        "in both languages are left out (the paper's “international”).",
    )
    exclude = forms.FileField(
        required=False, help_text="Optional words to leave out, one per line."
    )
    genders = forms.FileField(
        required=False,
        help_text="Optional German noun genders: two tab-separated columns, noun "
        "and m, f, n or pl (article choice).",
    )
    lists = forms.CharField(max_length=64, required=False, widget=forms.HiddenInput)
    lang = forms.ChoiceField(choices=LANGUAGE_CHOICES, label="Source language")
    columns = forms.CharField(
        max_length=20,
        help_text="Languages of the files' two word columns, e.g. de,en.",
    )
    per_cell = forms.IntegerField(min_value=1, max_value=2000, label="Words per cell")
    medium_zipf = forms.FloatField(
        min_value=0,
        max_value=8,
        required=False,
        label="Medium band centre (Zipf)",
        help_text="The paper's CELEX count 25: "
        + ", ".join(f"{default_zipf(lang, 25)} ({lang})" for lang in LANGUAGES)
        + "; empty = the source language's.",
    )
    low_zipf = forms.FloatField(
        min_value=0,
        max_value=8,
        required=False,
        label="Low band centre (Zipf)",
        help_text="The paper's CELEX count 1: "
        + ", ".join(f"{default_zipf(lang, 1)} ({lang})" for lang in LANGUAGES)
        + "; empty = the source language's.",
    )
    band_width = forms.FloatField(
        min_value=0.01, max_value=2, label="Band half-width (Zipf)"
    )
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1)
    template_adj = forms.CharField(
        max_length=200, required=False, label="Adjective template"
    )
    template_noun = forms.CharField(
        max_length=200,
        required=False,
        label="Noun template",
        help_text="Empty: the paper's template for the source language (German "
        "nouns then take Ein/Eine/Die by gender when genders are given).",
    )
    template_verb = forms.CharField(
        max_length=200, required=False, label="Verb template"
    )

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        for pos in ("adj", "noun", "verb"):
            defaults = " / ".join(
                f"{getattr(templates_for(lang), pos)} ({lang})" for lang in LANGUAGES
            )
            self.fields[f"template_{pos}"].widget.attrs["placeholder"] = defaults

    def params(self) -> probe_sets.Params:
        d = self.cleaned_data
        columns = tuple(c.strip() for c in d["columns"].split(","))
        return probe_sets.Params(
            lang=d["lang"],
            columns=columns,  # type: ignore[arg-type]
            per_cell=d["per_cell"],
            seed=d["seed"],
            medium_zipf=d["medium_zipf"],
            low_zipf=d["low_zipf"],
            band_width=d["band_width"],
            template_adj=d["template_adj"],
            template_noun=d["template_noun"],
            template_verb=d["template_verb"],
        )

    def word_lists(self) -> probe_sets.WordLists:
        def read(key: str) -> probe_sets.Upload | None:
            f = self.cleaned_data.get(key)
            return probe_sets.Upload(f.name, f.read()) if f else None

        return probe_sets.WordLists(
            lexicon=read("lexicon"),
            class_lists={
                pos: upload
                for pos in Pos
                if (upload := read(f"{pos.value}_list")) is not None
            },
            dictionary=read("dictionary"),
            exclude=read("exclude"),
            genders=read("genders"),
        )


class ProbeSaveForm(forms.Form):
    token = forms.CharField(max_length=64, widget=forms.HiddenInput)
    target = forms.ChoiceField(label="Save into")
    name = forms.CharField(
        max_length=100,
        required=False,
        label="New test set name",
        help_text="Only for a new test set.",
    )

    def __init__(self, *args, targets=(), **kwargs) -> None:  # noqa: ANN001, ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.fields["target"].choices = list(targets)


class AnnotatorAddForm(forms.Form):
    username = forms.CharField(max_length=150, label="Username")
