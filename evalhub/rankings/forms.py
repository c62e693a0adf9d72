"""The console's form of a phase's ranking settings; the allowed values are the
``PhaseRanking`` model's validators."""

from __future__ import annotations

from django import forms

from evalhub.rankings.models import PhaseRanking
from evalhub.rankings.services import ranking_settings

HELP = {
    "metric": "The metric that ranks this phase's boards, its overall ranking, "
    "the Ladder's decisions, the intervals and bands, the figures and the "
    "overview-paper package; only metrics the task type computes and declares "
    "rankable, each in its own direction.",
    "columns": "The metric columns a board shows, in this order, as keys "
    "separated by commas (the others are shown on request); empty: the task "
    "type's columns. The ranking metric is always shown.",
    "overall": "How the overall ranking combines the counted test sets: the mean "
    "of the ranking metric, or each run's rank on each test set averaged (lower "
    "is better; ties share the better rank).",
    "ladder": "Blum & Hardt's Ladder: on this phase's public test sets, a team's "
    "shown score changes only when a new run beats its shown run by more than the "
    "margin. Private test sets are not affected.",
    "ladder_margin": "How much better a new run must be to replace the shown one, "
    "in standard errors of the paired difference (0 to 10; 1 is the paper's "
    "parameter-free Ladder, 0 shows every improvement).",
    "bootstrap_samples": "Resamples of the gold items behind every confidence "
    "interval (value ± half-width) and the paired bootstrap tests (100 to 20,000): "
    "more samples give steadier intervals and take the worker longer.",
    "seed": "Seed of the resampling: the same seed gives the same intervals, so "
    "anyone can reproduce them offline (evalhub compare --seed).",
    "alpha": "Significance level (0.001 to 0.5) of the rank bands and the "
    "significance pages: two runs share a band unless their difference is "
    "significant at this level.",
}


class RankingForm(forms.ModelForm):
    # Declared here (a choice of the task type's rankable metrics, keys as text):
    # their label and help are set here too, Meta's apply to generated fields only.
    metric = forms.ChoiceField(
        required=False,
        label=ranking_settings.LABELS["metric"],
        help_text=HELP["metric"],
    )
    columns = forms.CharField(required=False, label=ranking_settings.LABELS["columns"])

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        task_type = self.instance.phase.task.type
        primary = task_type.metric(task_type.primary_metric)
        self.fields["metric"].choices = [
            ("", f"The task type's: {primary.label} ({primary.key})"),
            *(
                (key, f"{task_type.metric(key).label} ({key})")
                for key in task_type.rankable_metrics()
                if key != primary.key
            ),
        ]
        keys = ", ".join(m.key for m in task_type.metrics)
        self.fields["columns"].help_text = f"{HELP['columns']} Metrics: {keys}."
        self.initial["columns"] = ", ".join(self.instance.columns or [])
        self.fields["overall"].required = False  # not sent: the mean, as before

    def clean_overall(self) -> str:
        return self.cleaned_data.get("overall") or PhaseRanking.Overall.MEAN

    def clean_columns(self) -> list[str]:
        text = self.cleaned_data.get("columns") or ""
        return [key.strip() for key in text.split(",") if key.strip()]

    class Meta:
        model = PhaseRanking
        fields = ranking_settings.FIELDS
        labels = ranking_settings.LABELS
        help_texts = HELP
