"""Whether an SVG file is one of our figures: what ``archive import`` asks of every
SVG an archive brings, before anything is written.

The site serves SVG figures as documents of its own origin, and the static
snapshot (``archive site``) puts them on hosts that send no Content-Security-Policy:
an SVG that a browser would run code from, or load anything from elsewhere, must
never be stored. Matching bytes cannot tell (``<s:script xmlns:s=...>``,
``javascript&#58;``), so the file is read as a browser reads it: parsed by an XML
parser (``defusedxml``: no entity declarations, no external entities; no
processing instruction, no internal DTD subset), every name taken with its
namespace and every value after its character references are decoded. Then each
element and attribute must be on an allow-list of what matplotlib's SVG backend
writes for our figures (``tasks/common/plotting.py``: text drawn as paths, no
links), and the values that name something else may only name a part of the same
file (``#id``, ``url(#id)``) or, for an embedded image, be a PNG ``data:`` URL.
No ``on*`` attribute, no script, no ``foreignObject``, no link and no
``javascript:`` anywhere pass.

``problem(data)`` gives the first reason a file is refused, or "" when it is a
figure."""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
XML = "http://www.w3.org/XML/1998/namespace"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#: The metadata matplotlib writes (``<metadata><rdf:RDF><cc:Work>…``): RDF, Creative
#: Commons and Dublin Core elements, which no browser draws or runs.
METADATA = frozenset(
    {RDF, "http://creativecommons.org/ns#", "http://purl.org/dc/elements/1.1/"}
)

#: SVG elements matplotlib's backend writes (figures, clip paths, glyphs as paths,
#: hatches, gradients of Gouraud shading, images, text when not drawn as paths).
ELEMENTS = frozenset(
    """svg g defs style path use clipPath rect title desc metadata text tspan image
    pattern linearGradient stop filter feColorMatrix feComposite""".split()
)
#: Attributes without a namespace they may carry: geometry and presentation.
ATTRIBUTES = frozenset(
    """id class version width height viewBox x y x1 y1 x2 y2 d transform style type
    clip-path fill fill-opacity fill-rule opacity stroke stroke-width
    stroke-opacity stroke-linejoin stroke-linecap stroke-dasharray stroke-dashoffset
    stroke-miterlimit shape-rendering patternUnits gradientUnits offset stop-color
    stop-opacity filter in in2 operator k1 k2 k3 k4 values result font-family
    font-size font-style font-weight text-anchor dominant-baseline
    preserveAspectRatio""".split()
)
#: The one link an element may carry, and where to: a glyph or a marker of the
#: same file, or an image embedded as PNG.
LINKS = {"use": "#", "image": "data:image/png;base64,"}

# Characters a browser drops from a URL before reading its scheme.
_IGNORED_IN_URLS = re.compile(r"[\x00-\x20\x7f]+")
# A CSS function and what follows its parenthesis; only ``url(#id)`` (a clip path,
# a hatch, a filter of the same file) and colours are our figures' own.
_FUNCTION = re.compile(r"([-\w]*)\(\s*['\"]?(.?)")
_COLOURS = frozenset({"rgb", "rgba"})
_DECLARED = re.compile(
    rb"""^(?:\xef\xbb\xbf)?<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']"""
)


class _Refused(Exception):
    pass


class _Parser(DefusedXMLParser):
    """defusedxml's parser (no entity declarations, no external entities) that also
    refuses an internal DTD subset (a default attribute there would reach every
    element) and processing instructions (``<?xml-stylesheet?>`` loads CSS)."""

    def __init__(self) -> None:
        super().__init__(forbid_dtd=False, forbid_entities=True, forbid_external=True)
        self.parser.StartDoctypeDeclHandler = self._refuse_doctype
        self.parser.ProcessingInstructionHandler = self._refuse_instruction

    @staticmethod
    def _refuse_doctype(name: str, sysid: str, pubid: str, internal: bool) -> None:
        if internal or name != "svg":
            raise _Refused("a document type with declarations of its own")

    @staticmethod
    def _refuse_instruction(target: str, data: str) -> None:
        raise _Refused(f"a processing instruction (<?{target} …?>)")


def problem(data: bytes) -> str:
    """Why ``data`` is not an SVG figure of ours, or ""."""
    try:
        declared = _DECLARED.match(data)
        if declared and declared.group(1).lower() not in (b"utf-8", b"utf8"):
            raise _Refused("not UTF-8")
        data.decode("utf-8")
        parser = _Parser()
        parser.feed(data)
        root = parser.close()
        _check_tree(root)
    except UnicodeDecodeError:
        return "not UTF-8"
    except _Refused as exc:
        return str(exc)
    except DefusedXmlException as exc:
        return f"not a plain XML file ({type(exc).__name__})"
    except ParseError as exc:
        return f"not well-formed XML ({exc})"
    return ""


def _name(tag: str) -> tuple[str, str]:
    namespace, _, local = tag[1:].partition("}") if tag[:1] == "{" else ("", "", tag)
    return namespace, local


def _check_tree(root: Element) -> None:
    if root.tag != f"{{{SVG}}}svg":
        raise _Refused(f"its root is <{root.tag}>, not an SVG <svg>")
    todo: list[tuple[Element, bool]] = [(root, False)]
    while todo:  # no recursion: an element may nest as deep as the file allows
        element, in_metadata = todo.pop()
        namespace, local = _name(element.tag)
        name = local if namespace == SVG else f"{{{namespace}}}{local}"
        if name in ELEMENTS:
            in_metadata = in_metadata or name == "metadata"
        elif not (in_metadata and namespace in METADATA):
            raise _Refused(f"an element <{name}>")
        for key, value in element.attrib.items():
            _check_attribute(name, key, value)
        if name == "style":
            _check_css("".join(element.itertext()), "<style>")
        todo.extend((child, in_metadata) for child in element)


def _check_attribute(element: str, key: str, value: str) -> None:
    namespace, local = _name(key)
    if local.lower().startswith("on"):
        raise _Refused(f"an event handler ({local}=…) on <{element}>")
    if _IGNORED_IN_URLS.sub("", value).lower().find("javascript:") >= 0:
        raise _Refused(f"a javascript: address in {local}= on <{element}>")
    if namespace == XLINK and local == "href" and element in LINKS:
        if not _IGNORED_IN_URLS.sub("", value).startswith(LINKS[element]):
            raise _Refused(f"a link to {value[:60]!r} on <{element}>")
    elif namespace == RDF and local in ("resource", "about"):
        pass  # metadata: a name, never fetched
    elif namespace == XML and local == "space":
        pass
    elif namespace or local not in ATTRIBUTES:
        raise _Refused(f"an attribute {_shown(namespace, local)}= on <{element}>")
    elif local == "style":
        _check_css(value, f"style= on <{element}>")
    elif local != "transform" and "(" in value:
        _check_css(value, f"{local}= on <{element}>")


def _check_css(css: str, where: str) -> None:
    """Plain declarations: no at-rule (``@import``), no escape that could spell
    one, and every ``url(…)`` a part of the same file."""
    if "@" in css or "\\" in css:
        raise _Refused(f"CSS with an at-rule or an escape in {where}")
    for function, first in _FUNCTION.findall(css):
        function = function.lower()
        if function not in _COLOURS and not (function == "url" and first == "#"):
            raise _Refused(f"CSS calling {function}( in {where}")


def _shown(namespace: str, local: str) -> str:
    return f"{{{namespace}}}{local}" if namespace else local
