"""Clearing the cache deletes its own keys only: the Redis database it lives in
also holds Celery's queues under ``manage.py up`` (and the other tests' keys when
the suite runs in parallel)."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache


@pytest.fixture
def prefixed(settings):  # noqa: ANN001, ANN201
    prefix = f"test-[clear]*-{uuid.uuid4().hex[:8]}"  # glob characters are literal
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": prefix}}
    return prefix


def test_clear_deletes_the_cache_keys_and_nothing_else(prefixed):
    client = cache._cache.get_client(write=True)
    foreign = [f"unacked-{uuid.uuid4().hex}", f"{prefixed[:-1]}-other:1:k"]
    for key in foreign:
        client.set(key, b"queued job")
    try:
        for n in range(2500):  # more than one batch of deletions
            cache.set(f"k{n}", n, 60)
        cache.set("kept", 1, 60, version=2)
        assert cache.get("k2499") == 2499
        cache.clear()
        assert cache.get("k0") is None and cache.get("k2499") is None
        assert cache.get("kept", version=2) is None
        assert all(client.get(key) == b"queued job" for key in foreign)
    finally:
        client.delete(*foreign)
