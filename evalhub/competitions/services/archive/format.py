"""The archive's format, shared by the writer and the reader.

A zip with three kinds of members:

- ``manifest.json``: ``format`` ("evalhub-archive"), ``version`` (``VERSION``), the
  task's slug and type, the scorer version, when it was written, the database
  schema it was written from (each app's latest migration) and counts;
- ``rows.jsonl``: one row a line, as Django serialises a model row (``model``,
  ``pk``, ``fields``), every row after the rows it refers to; user accounts are
  reduced to their user name (what the team pages show);
- ``files/<name>``: every stored file a row names (inputs, gold, run files,
  figures), under its storage name.

Versions: 1 (every row's fields as they stand). A newer version adds an upgrade
step to ``reader.UPGRADES``, so an older archive still imports."""

from __future__ import annotations

import datetime as dt
import json

from django.core.serializers.json import DjangoJSONEncoder

FORMAT = "evalhub-archive"
VERSION = 1
MANIFEST = "manifest.json"
ROWS = "rows.jsonl"
FILES = "files/"


class Encoder(DjangoJSONEncoder):
    """Django's encoder keeps milliseconds of a time; a run's place in its team's
    history (``lifecycle.stamp``) may differ by one microsecond, so every digit is
    kept."""

    def default(self, o: object) -> object:
        if isinstance(o, dt.datetime):
            text = o.isoformat()
            return text[:-6] + "Z" if text.endswith("+00:00") else text
        return super().default(o)


def dumps(row: object) -> str:
    return json.dumps(row, cls=Encoder, ensure_ascii=False)
