"""Text in figures: user text (team, method and track names, titles built from them)
is drawn as it is written, never read as mathtext; matplotlib's own tick labels are
plain numbers ("1", "10", "100" on a log axis, not ``$\\mathdefault{10^{2}}$``).

Matplotlib reads a string with a pair of unescaped ``$`` as mathtext unless the
artist's ``parse_math`` is off. Switching it off globally also turns the mathtext the
log formatter writes into raw text on every log-x figure, so it is decided per
artist instead, in :func:`protect`, which ``plotting.render`` and
``plotting.render_pdf`` call on every figure before it is saved:

- every text the figure holds (titles, axis labels, legend entries, annotations,
  table cells, the figure's own texts) is set with ``parse_math`` off;
- tick labels are made anew by the axis' formatter at each draw (a tick created
  then does not inherit ``parse_math``), so the formatters that label ticks with
  given text (fixed labels, categories: team names) are wrapped to escape every
  ``$`` (``\\$``, which matplotlib draws as a plain dollar sign);
- the formatters that write mathtext (the log axes' default, ``ScalarFormatter``
  with ``useMathText``) are replaced by plain-number ones.
"""

from __future__ import annotations

from matplotlib.category import StrCategoryFormatter
from matplotlib.figure import Figure
from matplotlib.table import Table
from matplotlib.text import Text
from matplotlib.ticker import (
    FixedFormatter,
    Formatter,
    FuncFormatter,
    LogFormatter,
    ScalarFormatter,
    StrMethodFormatter,
)


def escape(text: str) -> str:
    """``text`` as matplotlib draws it literally with math parsing on.

    >>> escape("$x^2$ costs $5")
    '\\\\$x^2\\\\$ costs \\\\$5'
    """
    return text.replace("$", r"\$")


def unescape(text: str) -> str:
    """The inverse of :func:`escape` (a tick label's text as the user wrote it).

    >>> unescape(escape(r"a \\$ b $c$")) == r"a \\$ b $c$"
    True
    """
    return text.replace(r"\$", "$")


class LiteralFormatter(Formatter):
    """Another formatter's labels, each ``$`` escaped: given text (a team's name as
    a category or fixed tick label) is drawn as written."""

    def __init__(self, inner: Formatter) -> None:
        self.inner = inner

    def set_axis(self, axis) -> None:  # type: ignore[no-untyped-def]  # noqa: ANN001
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def __call__(self, x: float, pos: int | None = None) -> str:
        return escape(str(self.inner(x, pos)))

    def format_ticks(self, values) -> list[str]:  # type: ignore[no-untyped-def]  # noqa: ANN001
        return [escape(str(s)) for s in self.inner.format_ticks(values)]

    def set_locs(self, locs) -> None:  # type: ignore[no-untyped-def]  # noqa: ANN001
        self.inner.set_locs(locs)

    def get_offset(self) -> str:
        return escape(str(self.inner.get_offset()))


class PlainLogFormatter(LogFormatter):
    """A log axis' labels as plain numbers: 0.01, 0.1, 1, 10, 100, 1000, 10000,
    1e+05 (which ticks are labelled is the default's rule)."""

    def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
        return f"{x:g}"


#: Formatters whose labels are given text rather than numbers.
_GIVEN_TEXT = (FixedFormatter, StrCategoryFormatter, FuncFormatter, StrMethodFormatter)


def _plain(formatter: Formatter) -> Formatter:
    """``formatter`` with user text escaped and without mathtext."""
    if isinstance(formatter, LiteralFormatter | PlainLogFormatter):
        return formatter
    if isinstance(formatter, LogFormatter):  # the default writes 10^{n} as mathtext
        plain = PlainLogFormatter(
            base=formatter._base,  # noqa: SLF001
            labelOnlyBase=formatter.labelOnlyBase,
            minor_thresholds=formatter.minor_thresholds,
            linthresh=formatter._linthresh,  # noqa: SLF001
        )
        return plain
    if isinstance(formatter, ScalarFormatter):
        formatter.set_useMathText(False)
        return formatter
    if isinstance(formatter, _GIVEN_TEXT):
        return LiteralFormatter(formatter)
    return formatter


def protect(fig: Figure) -> None:
    """Make every text of ``fig`` plain text (see the module's docstring); safe to
    call more than once."""
    tick_labels: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                get = getattr(axis, f"get_{which}_formatter")
                set_ = getattr(axis, f"set_{which}_formatter")
                formatter = get()
                plain = _plain(formatter)
                if plain is not formatter:
                    set_(plain)
            for tick in [*axis.majorTicks, *axis.minorTicks]:
                tick_labels.update((id(tick.label1), id(tick.label2)))
    texts = fig.findobj(Text)
    for table in fig.findobj(Table):  # a cell's text is not among its children
        texts += [cell.get_text() for cell in table.get_celld().values()]
    for text in texts:
        if id(text) not in tick_labels:
            text.set_parse_math(False)  # type: ignore[attr-defined]
