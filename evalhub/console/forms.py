"""The console's forms. The task-type settings fields are built from the task
type's declarations (``TaskType.settings_form()``, plain Python in ``tasks/``);
values are still validated by ``TaskType.parse_settings``, whose errors are shown
at the field they name."""

from __future__ import annotations

import sys
import zoneinfo

from django import forms
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from evalhub.competitions import markdown
from evalhub.competitions.models import Phase, SharedTask
from evalhub.console.slugs import slug_from_name
from tasks import registry
from tasks.base import SettingsError, SettingSpec

#: Prefix of the generated settings fields' names (``setting_tau``).
PREFIX = "setting_"


def describe(task_type: object) -> str:
    """The first paragraph of the task type's package docstring (its own words)."""
    package = type(task_type).__module__.rpartition(".")[0]
    doc = (sys.modules[package].__doc__ or "") if package in sys.modules else ""
    return " ".join(doc.strip().split("\n\n")[0].split()).replace("``", "")


def _type_choices() -> list[tuple[str, str]]:
    return [(slug, registry.get(slug).name) for slug in registry.slugs()]


def _settings_field(spec: SettingSpec) -> forms.Field:
    common = {"label": spec.label, "help_text": spec.help}
    if spec.kind == "bool":
        return forms.BooleanField(required=False, **common)
    required = not spec.optional
    if spec.kind == "int":
        return forms.IntegerField(required=required, **common)
    if spec.kind == "float":
        return forms.FloatField(required=required, **common)
    if spec.kind == "choice":
        choices = [(c, c) for c in spec.choices]
        if spec.optional:
            choices = [("", "—"), *choices]
        return forms.ChoiceField(choices=choices, required=required, **common)
    if spec.kind == "list" and spec.choices:
        return forms.MultipleChoiceField(
            choices=[(c, c) for c in spec.choices],
            widget=forms.CheckboxSelectMultiple,
            required=False,
            **common,
        )
    if spec.kind == "list":
        return forms.CharField(
            widget=forms.Textarea(attrs={"rows": 3}),
            required=False,
            **{**common, "help_text": f"{spec.help} One value per line."},
        )
    return forms.CharField(required=False, strip=False, **common)


def _initial(spec: SettingSpec, value: object) -> object:
    if spec.kind == "list" and not spec.choices:
        return "\n".join(str(v) for v in value or ())
    return value


#: The task's own fields the form shows in "The task" (the template's order).
OWN_FIELDS = (
    "title",
    "requires_approval",
    "state",
    "submissions_paused",
    "pause_message",
    "max_team_size",
)


class TaskForm(forms.Form):
    """A task's own fields and its task type's settings. ``task_type`` fixes the
    type (the settings page; a task's type never changes once created); without it
    the form asks for the type and offers every type's settings, and only the
    chosen type's are read."""

    task_type = forms.ChoiceField(choices=_type_choices, widget=forms.RadioSelect)
    title = forms.CharField(max_length=200)
    slug = forms.SlugField(
        max_length=50,
        help_text="The task's address: letters, digits, hyphens and underscores.",
    )
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 10}),
        required=False,
        validators=[markdown.validate],
        help_text=f"Markdown, up to {markdown.MAX_CHARS:,} characters; shown on the "
        "task page (scripts and other unsafe HTML are removed).",
    )
    requires_approval = forms.BooleanField(
        required=False, label="Teams need the organisers' approval"
    )
    state = forms.ChoiceField(
        choices=SharedTask.State.choices,
        initial=SharedTask.State.DRAFT,
        help_text="Draft: only organisers see the task. Published: everyone. "
        "Archived: shown, closed.",
    )
    submissions_paused = forms.BooleanField(
        required=False,
        label="Pause submissions",
        help_text="While ticked, no run is accepted (page, API and CLI alike).",
    )
    pause_message = forms.CharField(
        max_length=300,
        required=False,
        help_text="Why, in plain text: every refused submission shows it.",
    )
    max_team_size = forms.IntegerField(
        min_value=1,
        max_value=1000,
        required=False,
        label="Most members per team",
        help_text="Empty: no cap. Invitations and joins over it are refused.",
    )

    def __init__(self, *args, task: SharedTask | None = None, **kwargs):  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.task = task
        self.specs: dict[str, tuple[SettingSpec, ...]] = {}
        slugs = [task.task_type] if task else registry.slugs()
        for slug in slugs:
            self.specs[slug] = registry.get(slug).settings_form()
            current = task.task_settings if task else {}
            for spec in self.specs[slug]:
                name = self.field_name(slug, spec.key)
                self.fields[name] = _settings_field(spec)
                self.initial[name] = _initial(spec, current.get(spec.key, spec.default))
        chosen = task.task_type if task else self.data.get("task_type")
        for slug in slugs if self.is_bound else ():
            if slug != chosen:  # another type's settings: not read, not checked
                for spec in self.specs[slug]:
                    self.fields[self.field_name(slug, spec.key)].disabled = True
        if task is not None:
            del self.fields["task_type"]
            self.fields["slug"].disabled = True
            for name in (*OWN_FIELDS, "slug", "description"):
                self.initial[name] = getattr(task, name)

    @staticmethod
    def field_name(slug: str, key: str) -> str:
        return f"{PREFIX}{slug}__{key}"

    def settings_groups(
        self,
    ) -> list[tuple[str, object, list[forms.BoundField], str, object]]:
        """(slug, task type, its settings' bound fields, its description, its primary
        metric: pages show the metric's label, never its internal key) per type."""
        return [
            (
                slug,
                registry.get(slug),
                [self[self.field_name(slug, s.key)] for s in specs],
                describe(registry.get(slug)),
                registry.get(slug).metric(registry.get(slug).primary_metric),
            )
            for slug, specs in self.specs.items()
        ]

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"]
        if self.task is None and SharedTask.objects.filter(slug=slug).exists():
            raise forms.ValidationError("A task with this address exists already.")
        return self.task.slug if self.task else slug

    def clean(self):  # noqa: ANN201
        data = super().clean()
        slug = self.task.task_type if self.task else data.get("task_type")
        if slug not in self.specs:
            return data
        raw: dict[str, object] = {}
        for spec in self.specs[slug]:
            name = self.field_name(slug, spec.key)
            if name not in data:
                continue  # the field's own error is shown already
            value = data[name]
            if spec.kind == "list" and not spec.choices:
                value = [v.strip() for v in (value or "").splitlines() if v.strip()]
            elif spec.kind == "list":
                value = list(value or ())
            elif spec.optional and value in ("", None):
                value = None
            raw[spec.key] = value
        if len(raw) < len(self.specs[slug]):
            return data
        task_type = registry.get(slug)
        try:
            parsed = task_type.parse_settings(raw)
        except SettingsError as exc:
            message = str(exc)
            key = message.partition(":")[0].strip()
            if any(s.key == key for s in self.specs[slug]):
                self.add_error(self.field_name(slug, key), message)
            else:
                self.add_error(None, message)
            return data
        data["task_settings"] = task_type.settings_to_json(parsed)
        return data


class ZoneInput(forms.TextInput):
    """A text field searched through a list of every time zone (a ``datalist``:
    typing part of a name, e.g. "Paris", offers the matches), ``first`` on top."""

    def __init__(self, attrs: dict | None = None) -> None:
        super().__init__({"list": "time-zones", "autocomplete": "off", **(attrs or {})})
        self.first = "UTC"

    def render(self, name, value, attrs=None, renderer=None):  # noqa: ANN001, ANN201
        names = [self.first, *(n for n in zone_names() if n != self.first)]
        options = format_html_join("", '<option value="{}">', ((n,) for n in names))
        field = super().render(name, value, attrs, renderer)
        return format_html('{}<datalist id="time-zones">{}</datalist>', field, options)


def zone_names() -> list[str]:
    return sorted(zoneinfo.available_timezones() | {"UTC"})


def datetime_input() -> forms.DateTimeInput:
    return forms.DateTimeInput(
        attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
    )


class ZonedTimes(forms.BaseForm):
    """A form mixin: the ``time_fields`` are read in ``time_zone`` (the
    organiser's, from the browser, or one they choose) and stored in UTC. Call
    ``zone_times()`` at the end of ``__init__``; each ``clean_<field>`` returns
    ``self.in_zone(<field>)``."""

    time_fields: tuple[str, ...] = ()

    def zone_times(self) -> None:
        names = set(zone_names())
        own = str(timezone.get_current_timezone())
        own = own if own in names else "UTC"
        self.fields["time_zone"].widget.first = own  # type: ignore[attr-defined]
        zone = (self.data.get("time_zone") if self.is_bound else None) or own
        self.fields["time_zone"].initial = zone if zone in names else "UTC"
        self.zone = zoneinfo.ZoneInfo(self.fields["time_zone"].initial)
        for name in self.time_fields:
            self.fields[name].input_formats = ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"]
            value = self.initial.get(name)
            if value is not None:
                self.initial[name] = value.astimezone(self.zone).replace(tzinfo=None)

    def in_zone(self, name: str):  # noqa: ANN201
        value = self.cleaned_data.get(name)
        if value is None:
            return None
        # Django read the naive input in the active zone: re-read it in the chosen one.
        naive = timezone.make_naive(value, timezone.get_current_timezone())
        return naive.replace(tzinfo=self.zone)

    def clean_time_zone(self) -> str:
        zone = self.cleaned_data["time_zone"].strip()
        if zone not in set(zone_names()):
            raise forms.ValidationError(
                f"“{zone}” is not a time zone: type part of a city or region and "
                "choose one of the list (e.g. Europe/Paris)."
            )
        return zone


def time_zone_field() -> forms.CharField:
    return forms.CharField(
        widget=ZoneInput,
        help_text="Times below are in this zone; they are stored in UTC. Type part "
        "of a city or region to search, e.g. Paris.",
    )


class PhaseForm(ZonedTimes, forms.ModelForm):
    """A phase; opening and closing times are read in ``time_zone`` (the
    organiser's, from the browser, or one they choose) and stored in UTC. An empty
    slug is made from the name, as a test set's."""

    time_zone = time_zone_field()
    time_fields = ("opens_at", "closes_at")
    confirm = forms.BooleanField(
        required=False, label="Save although runs already made are affected"
    )

    field_order = ["name", "slug", "time_zone"]

    class Meta:
        model = Phase
        fields = [
            "name",
            "slug",
            "opens_at",
            "closes_at",
            "daily_limit",
            "total_limit",
            "failed_runs_count",
            "max_final_runs",
        ]
        widgets = {"opens_at": datetime_input(), "closes_at": datetime_input()}

    def __init__(self, *args, task: SharedTask, **kwargs):  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.task = task
        self.fields["slug"].required = False
        self.fields["slug"].help_text = (
            "The phase's address in URLs: letters, digits and hyphens. Left empty: "
            "made from the name."
        )
        self.zone_times()

    def clean_opens_at(self):  # noqa: ANN201
        return self.in_zone("opens_at")

    def clean_closes_at(self):  # noqa: ANN201
        return self.in_zone("closes_at")

    def clean_slug(self) -> str:
        slug = slug_from_name(self.cleaned_data["slug"], self.cleaned_data.get("name"))
        if not slug:
            raise forms.ValidationError("Give the phase a name or an address.")
        if slug == "new":
            raise forms.ValidationError("'new' is reserved: choose another address.")
        others = Phase.objects.filter(task=self.task, slug=slug)
        if self.instance.pk:
            others = others.exclude(pk=self.instance.pk)
        if others.exists():
            raise forms.ValidationError("This task has a phase with this address.")
        return slug

    def clean(self):  # noqa: ANN201
        data = super().clean()
        opens, closes = data.get("opens_at"), data.get("closes_at")
        if opens and closes and closes <= opens:
            self.add_error("closes_at", "The phase must close after it opens.")
        return data


class OrganiserForm(forms.Form):
    username = forms.CharField(max_length=150, label="User name")


class HandOverForm(forms.Form):
    """The owner names the organiser who becomes the task's owner."""

    new_owner = forms.ModelChoiceField(
        queryset=None, label="New owner", empty_label="Choose an organiser"
    )
    confirm = forms.BooleanField(
        label="I hand ownership of this task over (I stay an organiser; the new "
        "owner can then remove me)"
    )

    def __init__(self, *args: object, task: SharedTask, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        field = self.fields["new_owner"]
        field.queryset = task.organisers.exclude(pk=task.owner_id).order_by(  # type: ignore[attr-defined]
            "username"
        )
        field.label_from_instance = lambda user: user.username  # type: ignore[attr-defined]


class AnnouncementForm(forms.Form):
    text = forms.CharField(
        max_length=220,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Plain text, up to 220 characters; every member of every "
        "approved team gets it as a notification.",
    )
