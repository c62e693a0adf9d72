"""What feature apps say about each system (team + method): extra columns, checks.

The core does not know fact sheets or paper links; it asks the receivers of
``signals.system_columns`` and ``signals.final_choice_check`` (see there) and shows
what they return wherever systems are listed: leaderboards, exports and the
overview-paper package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from evalhub.competitions import signals
from evalhub.competitions.models import Submission

#: A system: the team's primary key and the run's method name.
SystemKey = tuple[int, str]


@dataclass(frozen=True)
class SystemColumn:
    key: str  #: stable identifier, e.g. ``fact:external-data`` or ``paper``
    label: str  #: plain text
    on_board: bool  #: the organisers show it as a leaderboard column
    values: Mapping[SystemKey, str]  #: plain text per system; missing: no answer
    urls: Mapping[SystemKey, str] = field(default_factory=dict)  #: optional links
    description: str = ""  #: plain text (the question, for a hover/legend)


def system_columns(phase, viewer, *, board_only: bool = False) -> list[SystemColumn]:  # noqa: ANN001
    """Every column the feature apps offer for ``phase`` to ``viewer``, in order."""
    columns: list[SystemColumn] = []
    for _receiver, result in signals.system_columns.send(
        sender=type(phase), phase=phase, viewer=viewer
    ):
        if result:
            columns.extend(result)
    if board_only:
        columns = [column for column in columns if column.on_board]
    return columns


def final_choice_refusals(submission) -> list[str]:  # noqa: ANN001
    """Plain-text reasons why ``submission`` cannot be chosen as a final run."""
    return [
        str(result)
        for _receiver, result in signals.final_choice_check.send(
            sender=type(submission), submission=submission
        )
        if result
    ]


def panels(
    phase,
    viewer,
    submission=None,  # noqa: ANN001
) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """What feature apps show on the run page (``submission``) or the submit page
    (``submission=None``): ``(heading, ((text, url), ...))`` per app
    (``signals.run_panels``)."""
    return [
        (heading, tuple(items))
        for _receiver, result in signals.run_panels.send(
            sender=type(phase), phase=phase, viewer=viewer, submission=submission
        )
        if result
        for heading, items in [result]
    ]


def cells(
    columns: list[SystemColumn],
    rows,
    team_of: Mapping[int, int],  # noqa: ANN001
) -> dict[int, tuple[tuple[str, str], ...]]:
    """Per board row (by run id): each column's ``(text, url)`` for the row's
    system ("" where there is no answer). ``team_of``: run id -> team id."""
    out = {}
    for row in rows:
        system = (team_of.get(row.submission_id), row.method_name)
        out[row.submission_id] = tuple(
            (column.values.get(system, ""), column.urls.get(system, ""))
            for column in columns
        )
    return out


def export_fields(columns: list[SystemColumn]) -> list[str]:
    """The export's field names for ``columns``: each key, and ``<key>:url`` for a
    column with links."""
    fields: list[str] = []
    for column in columns:
        fields.append(column.key)
        if column.urls:
            fields.append(f"{column.key}:url")
    return fields


def export_values(columns: list[SystemColumn], system: SystemKey) -> dict[str, str]:
    """One system's values under ``export_fields(columns)`` ("" for no answer)."""
    values: dict[str, str] = {}
    for column in columns:
        values[column.key] = column.values.get(system, "")
        if column.urls:
            values[f"{column.key}:url"] = column.urls.get(system, "")
    return values


def teams_of(run_ids) -> dict[int, int]:  # noqa: ANN001
    """Run id -> team id (board rows name their team, the columns key on its id)."""
    return dict(
        Submission.objects.filter(pk__in=list(run_ids)).values_list("pk", "team_id")
    )
