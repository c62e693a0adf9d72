"""Django's ``{% url %}`` tag, with each address reversed once per process.

A signed-in leaderboard page reverses some twenty addresses on every request
(``base.html``'s header, the page's links): a sixth of its CPU (issue 47,
``bench/request_cpu.py``). An address depends only on the view's name, its
arguments, the namespace the request was resolved in, the URLconf and the script
prefix, none of which change while the process runs: the tag keeps the most
recent ``KEPT`` addresses under all of them. Only arguments that are plain
strings or integers are kept (another object's text could change under the same
key); anything else is reversed every time. Installed as a template builtin
(``settings.TEMPLATES``), it replaces Django's tag of the same name and syntax."""

from __future__ import annotations

import functools

from django import template
from django.template.defaulttags import URLNode
from django.template.defaulttags import url as django_url
from django.urls import NoReverseMatch, get_resolver, get_script_prefix, get_urlconf
from django.urls import reverse as django_reverse
from django.utils.html import conditional_escape

register = template.Library()

#: Addresses kept per process.
KEPT = 4096
_PLAIN = (str, int)


@functools.lru_cache(maxsize=KEPT)
def _reversed(
    resolver: object,
    prefix: str,
    view_name: str,
    args: tuple[tuple[type, object], ...],
    kwargs: tuple[tuple[str, type, object], ...],
    current_app: str | None,
) -> str:
    return django_reverse(
        view_name,
        args=[value for _, value in args],
        kwargs={name: value for name, _, value in kwargs},
        current_app=current_app,
    )


def _plain(value: object) -> bool:
    return type(value) in _PLAIN or isinstance(value, str)


class KeptURLNode(URLNode):
    def render(self, context: template.Context) -> str:
        args = [arg.resolve(context) for arg in self.args]
        kwargs = {k: v.resolve(context) for k, v in self.kwargs.items()}
        view_name = self.view_name.resolve(context)
        try:
            current_app = context.request.current_app
        except AttributeError:
            try:
                current_app = context.request.resolver_match.namespace
            except AttributeError:
                current_app = None
        url = ""
        try:
            if (
                isinstance(view_name, str)
                and (current_app is None or isinstance(current_app, str))
                and all(_plain(a) for a in args)
                and all(_plain(v) for v in kwargs.values())
            ):
                url = _reversed(
                    get_resolver(get_urlconf()),
                    get_script_prefix(),
                    str(view_name),
                    tuple((type(a), str(a) if isinstance(a, str) else a) for a in args),
                    tuple(
                        (k, type(v), str(v) if isinstance(v, str) else v)
                        for k, v in sorted(kwargs.items())
                    ),
                    current_app,
                )
            else:
                url = django_reverse(
                    view_name, args=args, kwargs=kwargs, current_app=current_app
                )
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser: template.base.Parser, token: template.base.Token) -> KeptURLNode:
    """Django's ``{% url %}`` (same syntax), its addresses kept (``_reversed``)."""
    node = django_url(parser, token)
    return KeptURLNode(node.view_name, node.args, node.kwargs, node.asvar)
