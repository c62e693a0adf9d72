"""What the mail files say (the file backend's folder, as ``manage.py up`` writes
mails): who a mail went to, the one link a mail holds. Shared by the browser tests
that follow a mail (tests/browser/, tests/accounts/, tests/e2e/)."""

from __future__ import annotations

import re
from pathlib import Path


def recipients(token: str, folder: Path | None = None) -> list[str]:
    """The recipients of the mail files (``*.log`` in ``folder``, by default the
    settings' mail folder) whose text holds ``token``, sorted."""
    if folder is None:
        from django.conf import settings

        folder = Path(settings.EMAIL_FILE_PATH)
    found = []
    for path in sorted(folder.glob("*.log")):
        text = path.read_text(errors="replace")
        if token in text:
            found += [
                line.removeprefix("To: ").strip()
                for line in text.splitlines()
                if line.startswith("To: ")
            ]
    return sorted(found)


def link(folder: Path, to: str, path: str) -> str:
    """The one link to ``path...`` in the mail files addressed to ``to``."""
    texts = [p.read_text() for p in folder.iterdir()]
    links = {
        found
        for text in texts
        if f"To: {to}" in text
        for found in re.findall(r"https?://\S+" + re.escape(path) + r"\S+/", text)
    }
    assert len(links) == 1, texts
    return links.pop()
