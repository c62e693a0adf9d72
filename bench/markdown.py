"""Markdown benchmark (issue 28, item 8): which parser renders hostile input in
linear time.

Times, in one process, every installed renderer on normal task descriptions and on
the pathological inputs a co-organiser could store: Python-Markdown (the old
renderer, with the ``tables`` and ``fenced_code`` extensions the site used),
markdown-it-py (CommonMark preset with tables and strikethrough) and cmark-gfm
through ``cmarkgfm`` (with tables, as the site uses it), each without sanitising;
then the site's whole ``evalhub.competitions.markdown.render`` (cmark-gfm, the
size and depth guards, nh3). A renderer that is not installed is skipped; one that
fails shows its exception.

Each case is rendered ``--repeat`` times; the median is printed in milliseconds. A
renderer whose first run of a case exceeds ``--budget`` seconds is run only once,
and not on a larger size of that case where quadratic growth would take it past the
budget (Python-Markdown on 100,000 ``[`` would take minutes).

Run: ``.venv/bin/python bench/markdown.py`` (``--sizes 10000,100000``).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# This file is named like Python-Markdown's package: its folder must not shadow it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

NORMAL = """## Task

Systems extract **terms** from a specialised corpus; the output is a list of
terms, one a line. See the [guidelines](https://example.org/guide) and the
*ACTER* data set.

| language | documents | terms |
|---|---:|---:|
| en | 12 | 2,585 |
| fr | 12 | 2,423 |

```
term<TAB>score
```

1. Download the inputs.
2. Submit a run:
   - one term a line,
   - UTF-8.

> Runs are scored as the paper defines.
"""


def _cases(size: int) -> dict[str, str]:
    """The pathological inputs, each about ``size`` characters."""
    return {
        "[ x N": "[" * size,
        "[a]( x N/4": "[a](" * (size // 4),
        "> x N": ">" * size,
        "* x N": "*" * size,
        "_ x N": "_" * size,
        "*a x N/2": "*a" * (size // 2),
        "**_ nested N/6": "**_" * (size // 6) + "x" + "_**" * (size // 6),
        "` runs": "".join("`" * k + "a" for k in range(1, 450))[:size],
        "&< entities N/6": "&amp;<" * (size // 6),
        "deep list": "".join("  " * k + "- a\n" for k in range(int(size**0.5))),
        "1. nested N/3": "1. " * (size // 3),
        "<a x N/3": "<a " * (size // 3),
        "<div> x N/5": "<div>" * (size // 5),
        "table 200 cols": "|"
        + "a|" * 200
        + "\n|"
        + "-|" * 200
        + "\n"
        + "a\n" * ((size - 810) // 2),
    }


def _renderers() -> dict[str, Callable[[str], str]]:
    found: dict[str, Callable[[str], str]] = {}
    if importlib.util.find_spec("markdown"):
        import markdown

        found["Python-Markdown"] = lambda text: markdown.markdown(
            text, extensions=["tables", "fenced_code"]
        )
    if importlib.util.find_spec("markdown_it"):
        from markdown_it import MarkdownIt

        parser = MarkdownIt("commonmark", {"html": False}).enable(
            ["table", "strikethrough"]
        )
        found["markdown-it-py"] = parser.render
    if importlib.util.find_spec("cmarkgfm"):
        import cmarkgfm

        found["cmarkgfm"] = lambda text: cmarkgfm.markdown_to_html_with_extensions(
            text, extensions=["table"]
        )
        from evalhub.competitions import markdown as site

        found["evalhub render"] = site.render
    return found


def _time(render: Callable[[str], str], text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        render(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--budget", type=float, default=2.0)
    args = parser.parse_args()
    renderers = _renderers()
    names = list(renderers)
    print("| case | chars | " + " | ".join(f"{n} ms" for n in names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    row = [
        f"{_time(r, NORMAL, args.repeat * 20) * 1000:.3f}" for r in renderers.values()
    ]
    print(f"| normal description | {len(NORMAL):,} | " + " | ".join(row) + " |")
    too_slow: set[tuple[str, str]] = set()
    sizes = [int(s) for s in args.sizes.split(",")]
    for size in sizes:
        for case, text in _cases(size).items():
            cells = []
            for name, render in renderers.items():
                if (name, case) in too_slow:
                    cells.append("skipped")
                    continue
                try:
                    first = _time(render, text, 1)
                except Exception as exc:  # noqa: BLE001 - shown in the table
                    too_slow.add((name, case))
                    cells.append(type(exc).__name__)
                    continue
                bigger = [s for s in sizes if s > size]
                if bigger and first * (min(bigger) / size) ** 2 > args.budget:
                    too_slow.add((name, case))
                if first > args.budget:
                    cells.append(f"**{first * 1000:,.0f}** (once)")
                    continue
                cells.append(f"{_time(render, text, args.repeat) * 1000:,.1f}")
            print(f"| {case} | {len(text):,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
