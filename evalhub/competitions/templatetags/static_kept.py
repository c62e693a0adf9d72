"""Django's ``{% static %}`` tag, with each address built once per process.

Every page's header asks for four static addresses; the storage builds each one
afresh (whitenoise's ``CompressedStaticFilesStorage``: the app registry asked,
the name quoted and joined, about 0.3 ms a page, issue 47). A file storage's
address depends only on the storage and the name, neither of which changes while
the process runs: the tag keeps the most recent ``KEPT`` addresses per storage
object (a settings change in a test makes a new one). Other storages (a manifest,
whose names follow the files; a remote one, whose addresses may be signed and
expire) are asked every time. Installed as a template builtin
(``settings.TEMPLATES``): a template that still loads Django's ``static`` library
gets Django's tag."""

from __future__ import annotations

import functools

from django import template
from django.contrib.staticfiles.storage import (
    ManifestFilesMixin,
    StaticFilesStorage,
    staticfiles_storage,
)
from django.templatetags.static import StaticNode
from django.utils.functional import empty

register = template.Library()

#: Addresses kept per process.
KEPT = 256


@functools.lru_cache(maxsize=KEPT)
def _address(storage: StaticFilesStorage, path: str) -> str:
    return storage.url(path)


def _storage() -> object:
    if staticfiles_storage._wrapped is empty:  # noqa: SLF001
        staticfiles_storage._setup()  # noqa: SLF001
    return staticfiles_storage._wrapped  # noqa: SLF001


class KeptStaticNode(StaticNode):
    def url(self, context: template.Context) -> str:
        path = self.path.resolve(context)
        storage = _storage()
        if (
            isinstance(path, str)
            and isinstance(storage, StaticFilesStorage)
            and not isinstance(storage, ManifestFilesMixin)
        ):
            return _address(storage, str.__str__(path))
        return self.handle_simple(path)


@register.tag
def static(parser: template.base.Parser, token: template.base.Token) -> StaticNode:
    """Django's ``{% static %}`` (same syntax), its addresses kept (``_address``)."""
    return KeptStaticNode.handle_token(parser, token)
