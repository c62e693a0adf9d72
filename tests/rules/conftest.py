from __future__ import annotations

from tests.api.fixtures import tokens  # noqa: F401
