"""What is wrong with an input file or a setting: problems with file and line, the
errors that carry them (part of the task-type contract, :mod:`tasks.base`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tasks.reports import JSON


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file. ``line`` is 1-based, None for the whole file.

    Messages must never quote hidden gold: a problem found in a *run* may quote the
    run's own line, never a gold line.
    """

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}, line {self.line}" if self.line else self.file
        return f"{where}: {self.message}"

    def to_json(self) -> dict[str, JSON]:
        return {"file": self.file, "line": self.line, "message": self.message}


class FormatError(ValueError):
    """A file cannot be used. Carries up to ``MAX_PROBLEMS`` problems, first ones first."""

    MAX_PROBLEMS = 20

    def __init__(self, problems: Sequence[Problem], *, total: int | None = None):
        if not problems:
            raise ValueError("FormatError needs at least one problem")
        self.problems: tuple[Problem, ...] = tuple(problems)[: self.MAX_PROBLEMS]
        self.total = max(total or 0, len(problems))
        more = self.total - len(self.problems)
        text = "; ".join(str(p) for p in self.problems[:5])
        if self.total > 5:
            text += f" (and {self.total - 5} more problem(s))"
        super().__init__(text)
        self.more = more

    @classmethod
    def at(cls, file: str, line: int | None, message: str) -> FormatError:
        return cls([Problem(file, line, message)])

    def to_json(self) -> dict[str, JSON]:
        return {
            "errors": [p.to_json() for p in self.problems],
            "n_errors": self.total,
        }


class ProblemCollector:
    """Collect problems while parsing; ``raise_if_any()`` at the end."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.total = 0

    def add(self, file: str, line: int | None, message: str) -> None:
        self.total += 1
        if len(self.problems) < FormatError.MAX_PROBLEMS:
            self.problems.append(Problem(file, line, message))

    def raise_if_any(self) -> None:
        if self.total:
            raise FormatError(self.problems, total=self.total)


class SettingsError(ValueError):
    """A task-type setting has a bad value; the message names the setting."""
