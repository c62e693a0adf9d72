"""Response schemas more than one module of the API answers with."""

from __future__ import annotations

from ninja import Schema


class ErrorOut(Schema):
    detail: str


class ProblemOut(Schema):
    file: str
    line: int | None
    message: str


class ProblemsOut(Schema):
    detail: str
    errors: list[ProblemOut]
    total: int
    run: int | None


class TaskOut(Schema):
    slug: str
    title: str
    task_type: str
    state: str
    url: str
