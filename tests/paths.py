"""Where the real public data lives: ``../shared/data`` beside the repository."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def shared_data(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: the tests need ../shared/data beside the repository"
        )
    return path
