"""The console's form of a phase's ranking settings; the allowed values are the
``PhaseRanking`` model's validators."""

from __future__ import annotations

from django import forms

from evalhub.rankings.models import PhaseRanking
from evalhub.rankings.services import ranking_settings

HELP = {
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
    class Meta:
        model = PhaseRanking
        fields = ranking_settings.FIELDS
        labels = ranking_settings.LABELS
        help_texts = HELP
