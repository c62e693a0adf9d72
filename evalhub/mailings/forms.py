"""The form of a message to teams."""

from __future__ import annotations

from django import forms

from evalhub.competitions import markdown
from evalhub.competitions.models import SharedTask, Team
from evalhub.competitions.services import recipients
from evalhub.mailings.services import compose


class MessageForm(forms.Form):
    subject = forms.CharField(max_length=150)
    body = forms.CharField(
        label="Message",
        strip=False,
        widget=forms.Textarea(attrs={"rows": 12}),
        help_text=f"Markdown, up to {markdown.MAX_CHARS:,} characters, rendered as "
        "task descriptions are (scripts and other unsafe HTML are removed).",
    )
    audience = forms.ChoiceField(label="To", choices=())
    team = forms.ModelChoiceField(
        queryset=Team.objects.none(),
        required=False,
        label="The team",
        help_text="For “One team”: one of the approved teams.",
    )
    announce = forms.BooleanField(
        required=False,
        label="Also post it on the task page as an announcement (everyone who can "
        "see the task reads it there)",
    )

    def __init__(self, *args, task: SharedTask, **kwargs):  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.fields["audience"].choices = compose.choices()
        self.fields["team"].queryset = recipients.approved_teams(task).order_by("name")

    def clean_subject(self) -> str:
        return " ".join(self.cleaned_data["subject"].split())

    def clean_body(self) -> str:
        body = self.cleaned_data["body"]
        if not body.strip():
            raise forms.ValidationError("Write the message.")
        try:
            markdown.check(body, what="The message")
        except markdown.MarkdownRefused as exc:
            raise forms.ValidationError(str(exc)) from None
        return body

    def clean(self) -> dict:
        data = super().clean()
        if data.get("audience") == compose.ONE_TEAM and not data.get("team"):
            self.add_error("team", "Choose the team to write to.")
        return data
