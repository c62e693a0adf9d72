"""The guides' shell examples, read from their MyST source, and how one is run and
checked (``tests/test_docs_examples.py``; the convention is in
``docs/guides/contributing.md``, *Runnable examples*).

A ``code-block`` directive with the class ``runnable`` is run with bash; the
``output`` block right after it is what it prints on its standard output (whitespace
runs compare as one space, ``...`` is any text within a line); the ``export`` lines
of an ``environment`` block name the variables the guide asks the reader to set."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

SHELLS = frozenset(("sh", "bash", "shell", "console"))
_FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\{[\w-]+\})?\s*(\S*)")
_OPTION = re.compile(r"^:([\w-]+):\s*(.*)$")


@dataclass(frozen=True, slots=True)
class Block:
    line: int  # of the opening fence, 1-based
    language: str
    classes: frozenset[str]
    text: str
    output: str | None = None  # the output block right after a runnable one


def blocks(source: str) -> list[Block]:
    """Every fenced block at the top level of a page (a block shown inside a longer
    fence is that fence's text), with its directive options read off; a runnable
    block carries the output block that follows it."""
    lines = source.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        marker, directive, language = fence.groups()
        end = i + 1
        while end < len(lines) and not (
            lines[end].startswith(marker[0] * len(marker))
            and not lines[end].strip(marker[0]).strip()
        ):
            end += 1
        body = lines[i + 1 : end]
        classes: set[str] = set()
        if directive:
            while body and (option := _OPTION.match(body[0])):
                if option[1] == "class":
                    classes |= set(option[2].split())
                body = body[1:]
        if directive in (None, "{code-block}", "{code}", "{sourcecode}"):
            found.append(
                Block(i + 1, language.lower(), frozenset(classes), "\n".join(body))
            )
        i = end + 1
    return _pair(found)


def _pair(found: list[Block]) -> list[Block]:
    """An ``output`` block belongs to the runnable block before it; one anywhere
    else is a mistake of the page."""
    paired: list[Block] = []
    for block in found:
        if "output" in block.classes:
            before = paired[-1] if paired else None
            if before is None or "runnable" not in before.classes or before.output:
                raise ValueError(f"line {block.line}: an output block after no example")
            paired[-1] = Block(
                before.line, before.language, before.classes, before.text, block.text
            )
        else:
            paired.append(block)
    return paired


def shell_examples(page: Path) -> list[Block]:
    return [b for b in blocks(page.read_text(encoding="utf-8")) if b.language in SHELLS]


def runnable(page: Path) -> list[Block]:
    return [b for b in shell_examples(page) if "runnable" in b.classes]


def environment(page: Path) -> set[str]:
    """The variables the page's ``environment`` blocks export."""
    return {
        name
        for b in shell_examples(page)
        if "environment" in b.classes
        for name in re.findall(r"^export\s+(\w+)=", b.text, re.M)
    }


def _normal(text: str) -> str:
    lines = (re.sub(r"\s+", " ", line).rstrip() for line in text.splitlines())
    return "\n".join(lines).strip("\n")


def matches(shown: str, printed: str) -> bool:
    """Whether ``printed`` is what the guide shows: each whitespace run as one space,
    ``...`` any text within a line."""
    pattern = "[^\n]*?".join(re.escape(part) for part in _normal(shown).split("..."))
    return re.fullmatch(pattern, _normal(printed)) is not None


def run(block: Block, *, cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    """Run one block as a reader pastes it into bash; the empty string when it did
    what the guide says, else what went wrong."""
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block.text],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    where = f"the example at line {block.line}:\n{block.text}\n"
    if done.returncode != 0:
        return (
            f"{where}exited with status {done.returncode}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
    if block.output is not None and not matches(block.output, done.stdout):
        return (
            f"{where}printed:\n{done.stdout}\nthe guide shows:\n{block.output}\n"
            f"stderr:\n{done.stderr}"
        )
    return ""
