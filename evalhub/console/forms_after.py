"""The form of the evaluation after the campaign: its closing date (read in the
organiser's time zone, stored in UTC) and its limits."""

from __future__ import annotations

from django import forms

from evalhub.console.forms import ZonedTimes, datetime_input, time_zone_field


class AfterCampaignForm(ZonedTimes, forms.Form):
    time_zone = time_zone_field()
    closes_at = forms.DateTimeField(
        label="Open until", widget=datetime_input(), help_text="Runs are accepted "
        "until this date and time; you can change it or close earlier at any time.",
    )  # fmt: skip
    daily_limit = forms.IntegerField(
        min_value=1, initial=5, label="Runs per team per day (UTC)"
    )
    total_limit = forms.IntegerField(
        min_value=1, initial=20, label="Runs per team in all"
    )
    time_fields = ("closes_at",)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.zone_times()

    def clean_closes_at(self):  # noqa: ANN201
        return self.in_zone("closes_at")
