"""The references of the documentation site, generated from the code when it is
built, so they never go stale: the ``--help`` of every ``evalhub`` command
(``evalhub-cli-help``), the REST API from django-ninja's OpenAPI schema
(``evalhub-openapi``) and every setting with its default from ``.env.example``
(``evalhub-settings``), and each task type's run format with an example
(``evalhub-formats``). Each is a MyST directive of a page in ``docs/reference/``."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("get", "post", "put", "patch", "delete")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # noqa: SLF001 - argparse keeps them there
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return dict(action.choices)
    return {}


def _paths(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator:
    yield path
    for name, sub in _subcommands(parser).items():
        yield from _paths(sub, (*path, name))


@contextmanager
def _columns(width: int) -> Iterator[None]:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


def cli_help() -> list[tuple[str, str]]:
    """(command, its --help) for every ``evalhub`` command and sub-command. Each
    parser is built as the command line builds it for that command (only the task
    type it names gets its arguments)."""
    from evalhub import cli

    out = []
    with _columns(88):
        for path in _paths(cli.build_parser(argv=["score", "compare", "probe"])):
            parser = cli.build_parser(argv=list(path))
            for name in path:
                parser = _subcommands(parser)[name]
            out.append((" ".join(("evalhub", *path)), parser.format_help()))
    return out


def openapi_operations() -> list[tuple[str, str, str, str]]:
    """(method, path, tag, summary) of every operation of the REST API."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalhub.settings")
    django.setup()
    from evalhub.api.api import api

    schema = api.get_openapi_schema(path_prefix="/api/")
    rows = []
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                op = item[method]
                summary = op.get("summary") or op.get("operationId", "")
                rows.append(
                    (method.upper(), path, ", ".join(op.get("tags", ())), summary)
                )
    return rows


SETTING = re.compile(r"^#\s*([A-Z][A-Z0-9_]*)=(.*)$")
OTHER = re.compile(r"^/\s*([A-Z][A-Z0-9_]*)=\s*(.*)$")


def _setting(line: str) -> tuple[str, str, str] | None:
    """``# NAME=default   # meaning`` as (names, default, meaning). A value followed
    by ``# default: ...`` is an example, and the default is what the comment says."""
    found = SETTING.match(line)
    if not found:
        return None
    name, rest = found.groups()
    comment = re.search(r"\s#\s*", rest)
    value, meaning = (
        (rest[: comment.start()], rest[comment.end() :]) if comment else (rest, "")
    )
    value, meaning = value.strip(), meaning.strip()
    other = OTHER.match(value)
    if other:  # AWS_ACCESS_KEY_ID= / AWS_SECRET_ACCESS_KEY=
        name, value = f"{name}, {other.group(1)}", other.group(2)
    if meaning.startswith("default:"):
        value, meaning = meaning.removeprefix("default:").strip(), f"e.g. {value}"
    return name, value, meaning


def settings_table() -> list[tuple[str, list[tuple[str, str, str]]]]:
    """``.env.example`` as groups: (the group's note, [(variable, default, meaning)])."""
    groups: list[tuple[str, list[tuple[str, str, str]]]] = []
    note: list[str] = []
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    for line in lines:
        setting = _setting(line)
        if setting:
            if note or not groups:
                groups.append((" ".join(note), []))
                note = []
            groups[-1][1].append(setting)
        elif re.match(r"^#\s{3,}#", line) and groups and groups[-1][1]:
            # A meaning continued on the next line.
            var, default, meaning = groups[-1][1][-1]
            more = line.split("#", 2)[2].strip()
            groups[-1][1][-1] = (var, default, f"{meaning} {more}".strip())
        elif line.startswith("#"):
            note.append(line.lstrip("#").strip())
    if note:
        groups.append((" ".join(note), []))
    return groups


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]], code: tuple[int, ...]):
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)
    head, body = nodes.thead(), nodes.tbody()
    group += head
    group += body

    def row(cells: tuple[str, ...], *, literal: tuple[int, ...]) -> nodes.row:
        out = nodes.row()
        for i, text in enumerate(cells):
            entry = nodes.entry()
            para = nodes.paragraph()
            para += (
                nodes.literal(text, text) if i in literal and text else nodes.Text(text)
            )
            entry += para
            out += entry
        return out

    head += row(header, literal=())
    for cells in rows:
        body += row(cells, literal=code)
    return table


def formats() -> list[tuple[str, str, str, str, str]]:
    """(slug, name, the run file's label and help, the format help (Markdown), the
    first lines of the type's demo run) for every task type."""
    from tasks import registry

    out = []
    for slug in registry.slugs():
        task_type = registry.get(slug)
        _, _, files = task_type.demo(0).runs[0]
        example = next(iter(files.values())).decode("utf-8")
        head = "\n".join(example.splitlines()[:8])
        role = task_type.submission_role
        out.append(
            (
                slug,
                task_type.name,
                f"{role.label}: {role.help}",
                task_type.format_help,
                head,
            )
        )
    return out


class Formats(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for slug, name, role, help_text, example in formats():
            out.append(nodes.rubric(f"{name} ({slug})", f"{name} ({slug})"))
            out.extend(self.parse_text_to_nodes(help_text))
            caption = f"The first lines of the demo task's run ({role})"
            out.append(nodes.paragraph(caption, caption))
            out.append(nodes.literal_block(example, example, language="text"))
        return out


class CliHelp(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for command, text in cli_help():
            out.append(nodes.rubric(command, command))
            out.append(nodes.literal_block(text, text, language="text"))
        return out


class OpenApi(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        rows = openapi_operations()
        return [_table(("method", "path", "tag", "what"), rows, code=(0, 1))]


class Settings(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(ROOT / ".env.example"))
        out: list[nodes.Node] = []
        for note, rows in settings_table():
            if note:
                out.append(nodes.paragraph(note, note))
            if rows:
                out.append(
                    _table(("variable", "default", "meaning"), rows, code=(0, 1))
                )
        return out


class RepositoryLinks(SphinxPostTransform):
    """A page's link to a Markdown file of the repository outside ``docs/`` (the
    README, ``bench/README.md``) is not a page of the site: it is shown as its text,
    instead of a broken reference (``tests/test_docs_links.py`` checks that the file
    exists). Runs before MyST's resolver."""

    default_priority = 5

    def run(self, **kwargs) -> None:  # noqa: ANN003
        srcdir = Path(self.env.srcdir).resolve()
        here = Path(self.env.doc2path(self.env.docname)).parent
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("reftype") != "myst":
                continue
            target = str(node.get("reftarget", "")).partition("#")[0]
            if node.get("refdomain") == "doc":
                if target in self.env.all_docs:
                    continue
                path = Path(target if target.startswith("/") else here / target)
                path = path.with_suffix(".md")
            else:
                path = here / target
            path = path.resolve()
            if path.is_file() and srcdir not in path.parents:
                node.replace_self(nodes.inline("", "", *node.children))


def setup(app):  # noqa: ANN001, ANN201
    app.add_post_transform(RepositoryLinks)
    app.add_directive("evalhub-formats", Formats)
    app.add_directive("evalhub-cli-help", CliHelp)
    app.add_directive("evalhub-openapi", OpenApi)
    app.add_directive("evalhub-settings", Settings)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
