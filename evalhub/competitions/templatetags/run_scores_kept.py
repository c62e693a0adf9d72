"""``{% kept_run_scores %} ... {% endkept_run_scores %}``: the run page's scores
part (``services/boards/run_scores.py``), rendered with the variables the
context's ``scores`` computes only where its audience's kept copy is missing,
and kept. The part stays written in the run page's template."""

from __future__ import annotations

from collections.abc import Mapping

from django import template

register = template.Library()


class KeptRunScoresNode(template.Node):
    def __init__(self, nodelist: template.NodeList) -> None:
        self.nodelist = nodelist

    def render(self, context: template.Context) -> str:
        def render(variables: Mapping[str, object]) -> str:
            with context.push(**variables):
                return self.nodelist.render(context)

        return context["scores"].html(render)


@register.tag
def kept_run_scores(
    parser: template.base.Parser, token: template.base.Token
) -> KeptRunScoresNode:
    nodelist = parser.parse(("endkept_run_scores",))
    parser.delete_first_token()
    return KeptRunScoresNode(nodelist)
