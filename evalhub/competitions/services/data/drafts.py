"""The organiser's gold drafts (``services/test_data.py``: the console's page and the
organiser API): uploaded files that parsed, kept in a temporary area of private
storage (``console/drafts/<test set>/<organiser>/<token>/``) and described in the
cache for :data:`DRAFT_SECONDS` until the organiser confirms or discards them. One draft per organiser and test set: keeping a new one deletes whatever
is left of the last, and the files of any draft of the test set whose description
expired."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from tasks.base import GoldSummary

DRAFT_SECONDS = 24 * 3600
#: The storage folder (and the cache key's name below) kept from when only the
#: console made drafts, so drafts kept before an upgrade are still found and swept.
AREA = "console/drafts"


class DraftGone(LookupError):
    """The draft expired, was discarded or is someone else's."""


@dataclass(frozen=True, slots=True)
class DraftFile:
    role: str
    name: str
    size: int
    sha256: str
    path: str
    private: bool


@dataclass(frozen=True, slots=True)
class Draft:
    token: str
    test_set_id: int
    files: tuple[DraftFile, ...]
    #: role -> sha256 of the stored files the draft was checked with
    basis: Mapping[str, str]
    before: GoldSummary | None
    after: GoldSummary | None


def _folder(test_set_id: int, user_id: int) -> str:
    return f"{AREA}/{test_set_id}/{user_id}"


def _key(test_set_id: int, user_id: int, token: str) -> str:
    return f"evalhub:console-draft:{test_set_id}:{user_id}:{token}"


def clear_area(test_set_id: int, user_id: int) -> None:
    """Delete every draft file of this organiser and test set (one draft each)."""
    folder = _folder(test_set_id, user_id)
    try:
        tokens, _ = default_storage.listdir(folder)
    except FileNotFoundError:
        return
    for token in tokens:
        _, files = default_storage.listdir(f"{folder}/{token}")
        for name in files:
            default_storage.delete(f"{folder}/{token}/{name}")
        cache.delete(_key(test_set_id, user_id, token))


def sweep(test_set_id: int) -> None:
    """Delete the files of this test set's drafts whose description expired (an
    organiser who never came back); called whenever a draft is kept for it."""
    folder = f"{AREA}/{test_set_id}"
    try:
        users, _ = default_storage.listdir(folder)
    except FileNotFoundError:
        return
    for user in users:
        tokens, _ = default_storage.listdir(f"{folder}/{user}")
        for token in tokens:
            if user.isdigit() and cache.get(_key(test_set_id, int(user), token)):
                continue
            _, files = default_storage.listdir(f"{folder}/{user}/{token}")
            for name in files:
                default_storage.delete(f"{folder}/{user}/{token}/{name}")


def keep(
    *,
    test_set_id: int,
    user_id: int,
    uploads: list[tuple[str, str, bytes]],
    kinds: Mapping[str, bool],
    basis: Mapping[str, str],
    before: dict | None,
    after: dict | None,
) -> Draft:
    """Keep ``uploads`` ((role, name, data), parsed already) as the draft."""
    clear_area(test_set_id, user_id)
    sweep(test_set_id)
    token = secrets.token_urlsafe(12)
    files = []
    for role, name, data in uploads:
        path = default_storage.save(
            f"{_folder(test_set_id, user_id)}/{token}/{role}", ContentFile(data)
        )
        files.append(
            DraftFile(
                role=role,
                name=name.rsplit("/", 1)[-1][:255] or role,
                size=len(data),
                sha256=hashlib.sha256(data).hexdigest(),
                path=path,
                private=kinds[role],
            )
        )
    draft = Draft(
        token=token,
        test_set_id=test_set_id,
        files=tuple(files),
        basis=dict(basis),
        before=GoldSummary.from_json(before) if before else None,
        after=GoldSummary.from_json(after) if after else None,
    )
    cache.set(_key(test_set_id, user_id, token), _to_json(draft), DRAFT_SECONDS)
    return draft


def _to_json(draft: Draft) -> dict:
    return {
        "token": draft.token,
        "test_set_id": draft.test_set_id,
        "files": [
            [f.role, f.name, f.size, f.sha256, f.path, f.private] for f in draft.files
        ],
        "basis": dict(draft.basis),
        "before": draft.before.to_json() if draft.before else None,
        "after": draft.after.to_json() if draft.after else None,
    }


def load(*, test_set_id: int, user_id: int, token: str) -> Draft:
    """The organiser's draft ``token`` for this test set; DraftGone otherwise."""
    kept = cache.get(_key(test_set_id, user_id, token))
    if not kept or kept.get("test_set_id") != test_set_id:
        raise DraftGone(
            "this upload has expired or was discarded; upload the files again"
        )
    return Draft(
        token=kept["token"],
        test_set_id=kept["test_set_id"],
        files=tuple(DraftFile(*f) for f in kept["files"]),
        basis=kept["basis"],
        before=GoldSummary.from_json(kept["before"]) if kept["before"] else None,
        after=GoldSummary.from_json(kept["after"]) if kept["after"] else None,
    )


def discard(*, test_set_id: int, user_id: int, token: str) -> None:
    load(test_set_id=test_set_id, user_id=user_id, token=token)
    clear_area(test_set_id, user_id)
