"""Forms of the fact-sheet pages: they render and collect the raw values; the
services check them (``services/kinds.py``) and the views put their messages on
the fields."""

from __future__ import annotations

from django import forms

from evalhub.factsheets.models import Question


class QuestionForm(forms.Form):
    label = forms.CharField(label="Question", max_length=200)
    key = forms.CharField(
        max_length=50,
        required=False,
        help_text="Column name in the exports (letters, digits, hyphens); "
        "made from the question when empty",
    )
    help_text = forms.CharField(label="Explanation", max_length=500, required=False)
    kind = forms.ChoiceField(choices=Question.Kind.choices)
    choices = forms.CharField(
        label="Options",
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        help_text="For 'one of a list': one option per line",
    )
    required = forms.BooleanField(
        required=False, help_text="A final run needs an answer"
    )
    on_board = forms.BooleanField(label="Show on the leaderboard", required=False)

    @classmethod
    def of(cls, question: Question, data: object = None) -> QuestionForm:
        initial = {
            "label": question.label,
            "key": question.key,
            "help_text": question.help_text,
            "kind": question.kind,
            "choices": "\n".join(question.choices),
            "required": question.required,
            "on_board": question.on_board,
        }
        return cls(data, initial=initial)


_YES_NO = [("", "—"), ("yes", "Yes"), ("no", "No")]


class SheetForm(forms.Form):
    """One field per question (all optional here: a required question is needed
    for a final run, not for saving)."""

    def __init__(
        self, questions: list[Question], data: object = None, initial: object = None
    ) -> None:
        super().__init__(data, initial=initial)
        for q in questions:
            label = q.label + (" (required)" if q.required else "")
            if q.kind == Question.Kind.YES_NO:
                widget = forms.Select(choices=_YES_NO)
            elif q.kind == Question.Kind.CHOICE:
                widget = forms.Select(choices=[("", "—")] + [(c, c) for c in q.choices])
            elif q.kind == Question.Kind.URL:
                widget = forms.URLInput(attrs={"placeholder": "https://"})
            else:
                widget = forms.TextInput(
                    attrs={"inputmode": "decimal"}
                    if q.kind == Question.Kind.NUMBER
                    else {}
                )
            self.fields[q.key] = forms.CharField(
                label=label,
                required=False,
                widget=widget,
                help_text=q.help_text,
                strip=False,
            )


class PaperForm(forms.Form):
    title = forms.CharField(max_length=300)
    url = forms.CharField(label="URL", required=False, max_length=500)
    doi = forms.CharField(label="DOI", required=False, max_length=200)
