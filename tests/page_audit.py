"""Crawl a site as one role and audit each page in a real browser (the
accessibility suite, tests/browser/test_accessibility.py).

``crawl`` starts from the home page (and any other pages it is given) and follows
same-site links and GET forms (submitted as they stand, each group of unticked
checkboxes with its first ``FORM_TICKS`` ticked: the run boxes of a board's
compare form), never the logout page, a download or a non-HTML answer, and at
most ``PER_PATTERN`` pages per URL pattern (the resolved URL name: the first ones
found, breadth first). A form its defaults do not fill validly (answered 400: a
compare form with a single run) is passed over. ``audit`` checks one page at the size it is shown:

- axe-core (WCAG 2.x A/AA rules) finds no serious or critical violation;
- nothing is wider than the screen and nothing hides part of its content in a box
  of its own, except a table or a figure in a scroll box that says it scrolls (a
  visible ``.scroll-hint`` just before it, evalhub.js) — a table's cells may not break a
  short word letter by letter to fit either;
- every text is at least ``MIN_PX`` px as displayed: the page's own (computed font
  size; inline SVG text scaled as drawn) and the figures' (an SVG image's text at
  the size the image is shown, measured from its glyphs' transform on screen; a
  PNG's from the SVG drawn with it, scaled to the PNG's displayed width)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from urllib.parse import urldefrag, urlsplit

from django.urls import Resolver404, resolve

PER_PATTERN = 2
#: Checkboxes of one name a GET form is submitted with, when none is ticked.
FORM_TICKS = 3
MIN_PX = 11
#: The two widths every page is checked at.
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}
#: Links not followed: leaving, files (by their name's ending).
SKIP_NAMES = {"account_logout"}
FILE = re.compile(r"\.(csv|zip|gz|tsv|txt|json|jsonl|svg|png|pdf|tex|bib|xml|tar)$")

LINKS = """() => [...document.querySelectorAll('a[href]')]
  .filter(a => !a.hasAttribute('download'))
  .map(a => a.href)"""

#: Each GET form's URL as submitted with its defaults (see ``FORM_TICKS``).
FORMS = """ticks => [...document.querySelectorAll('form')]
  .filter(f => (f.getAttribute('method') || 'get').toLowerCase() === 'get')
  .map(f => {
    const data = new FormData(f);
    const boxes = {};
    for (const el of f.elements)
      if (el.type === 'checkbox' && el.name && !el.disabled)
        (boxes[el.name] = boxes[el.name] || []).push(el);
    for (const [name, els] of Object.entries(boxes))
      if (!els.some(el => el.checked))
        for (const el of els.slice(0, ticks)) data.append(name, el.value);
    const url = new URL(f.action);
    url.search = new URLSearchParams(data).toString();
    return url.href;
  })"""

#: What does not fit: the page's overflow and its widest elements, the boxes
#: hiding content (a table in a hinted scroll box excepted), words broken inside.
LAYOUT = """() => {
  const out = [];
  const W = window.innerWidth;
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.className && typeof el.className === 'string'
       ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const shown = el => { const r = el.getBoundingClientRect();
    return r.width > 1 && r.height > 1 && getComputedStyle(el).visibility !== 'hidden'; };
  const hinted = el => { const h = el.previousElementSibling;
    return el.querySelector('table, img') && h && h.matches('.scroll-hint') && shown(h)
      && /scroll/i.test(h.textContent); };
  const inHinted = el => { for (let p = el.parentElement; p; p = p.parentElement)
      if (p.scrollWidth > p.clientWidth + 1 && /auto|scroll/.test(getComputedStyle(p).overflowX))
        return hinted(p);
    return false; };
  const over = document.documentElement.scrollWidth - W;
  if (over > 1) {
    const wide = [...document.body.querySelectorAll('*')]
      .filter(el => shown(el) && el.getBoundingClientRect().right > W + 1 && !inHinted(el))
      .filter(el => ![...el.children].some(c => c.getBoundingClientRect().right > W + 1));
    out.push(`the page scrolls sideways by ${over}px: `
      + wide.slice(0, 4).map(name).join(', '));
  }
  for (const el of document.body.querySelectorAll('*')) {
    const s = getComputedStyle(el);
    if (!shown(el) || s.overflowX === 'visible') continue;
    const hidden = el.scrollWidth - el.clientWidth;
    if (hidden <= 1 || s.textOverflow === 'ellipsis') continue;
    if (/auto|scroll/.test(s.overflowX) && hinted(el)) continue;
    if (el.matches('pre, code, textarea, select, input, .invite-link')) continue;
    out.push(`${name(el)} hides ${hidden}px sideways`
      + (/auto|scroll/.test(s.overflowX) ? ' (a scroller with no hint)' : ' (cut)'));
  }
  const broken = [];
  for (const cell of document.querySelectorAll('th, td')) {
    if (!shown(cell)) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode());) {
      // A word of up to 20 characters (a long token, e.g. a signature, may
      // break anywhere), in its parts between hyphens and slashes.
      for (const w of node.data.matchAll(/\\S{2,20}(?!\\S)/g)) {
        if (w.index > 0 && /\\S/.test(node.data[w.index - 1])) continue;
        for (const m of w[0].matchAll(/[^\\u2013\\u2014/-]{2,}/g)) {
          const range = document.createRange();
          const at = w.index + m.index;
          range.setStart(node, at); range.setEnd(node, at + m[0].length);
          const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
          if (lines.size > 1) broken.push(`"${m[0]}" broken over ${lines.size} lines in ${name(cell)}`);
        }
      }
    }
  }
  return out.concat(broken.slice(0, 5));
}"""

#: Every text of the page smaller than the minimum as displayed.
SMALL_TEXT = """min => {
  const out = [];
  const hidden = el => { for (let p = el; p; p = p.parentElement) {
      const r = p.getBoundingClientRect();
      if (p.nodeType === 1 && (r.width <= 1 || r.height <= 1)
          && getComputedStyle(p).overflow === 'hidden') return true; }
    return false; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    if (!node.data.trim()) continue;
    const el = node.parentElement;
    if (!el || el.closest('script, style, noscript, template, option')) continue;
    const range = document.createRange(); range.selectNodeContents(node);
    const rects = range.getClientRects();
    if (!rects.length || getComputedStyle(el).visibility === 'hidden') continue;
    if (hidden(el)) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    const svgText = el.closest('svg text');
    if (svgText) { const m = svgText.getScreenCTM(); px *= Math.hypot(m.a, m.b); }
    if (px < min - 0.05)
      out.push(`"${node.data.trim().slice(0, 40)}" is ${px.toFixed(1)} px`);
  }
  return out;
}"""

#: A figure image's texts at the size it is shown: (text, px, inside the figure).
FIGURE_TEXT = """async img => {
  const src = img.currentSrc;
  let body = await (await fetch(src)).text();
  if (!/<svg/.test(body.slice(0, 2000))) {
    if (!/\\.png(\\?|$)/.test(src)) return null;
    const svgSrc = src.replace(/\\.png(\\?|$)/, '.svg$1');
    const answer = await fetch(svgSrc);
    if (!answer.ok) return {src, unmeasured: true};
    body = await answer.text();
  }
  const holder = document.createElement('div');
  holder.style.cssText = 'position:absolute;left:0;top:0;width:' + img.clientWidth + 'px';
  holder.innerHTML = body.replace(/^[\\s\\S]*?(<svg)/, '$1');
  document.body.appendChild(holder);
  const svg = holder.querySelector('svg');
  svg.setAttribute('width', '100%'); svg.removeAttribute('height');
  const box = svg.getBoundingClientRect();
  const out = [];
  for (const g of svg.querySelectorAll('g[id^="text_"]')) {
    const comment = [...g.childNodes].find(n => n.nodeType === 8);
    const glyphs = [...g.querySelectorAll('g[transform]')]
      .filter(el => el.querySelector(':scope > use'));
    if (!glyphs.length) continue;
    const ctm = glyphs[0].getScreenCTM();
    const r = g.getBoundingClientRect();
    out.push({text: comment ? comment.textContent.trim() : '',
      px: Math.hypot(ctm.a, ctm.b) * 100,
      inside: r.left >= box.left - 1 && r.right <= box.right + 1
        && r.top >= box.top - 1 && r.bottom <= box.bottom + 1});
  }
  holder.remove();
  return {src, texts: out};
}"""


def pattern(url: str) -> str | None:
    """The URL name of a same-site path (namespace included), None if none."""
    try:
        match = resolve(urlsplit(url).path)
    except Resolver404:
        return None
    return match.view_name or match.route


def crawl(
    page,  # noqa: ANN001
    base: str,
    starts: tuple[str, ...] = ("/",),
) -> Iterator[tuple[str, str]]:
    """Visit the pages a role reaches from ``starts`` (breadth first); yields
    (pattern, url) with the page loaded, after the caller audits it."""
    queue, seen, counts = [base + s for s in starts], set(), Counter()
    forms: set[str] = set()
    while queue:
        url = urldefrag(queue.pop(0)).url
        if url in seen:
            continue
        seen.add(url)
        name = pattern(url)
        if name is None or name in SKIP_NAMES or counts[name] >= PER_PATTERN:
            continue
        try:
            response = page.goto(url)
        except Exception as error:  # a download starts instead of a page
            if "Download is starting" in str(error):
                continue
            raise
        if response is None:
            continue
        if not response.headers.get("content-type", "").startswith("text/html"):
            continue
        if response.status == 400 and url in forms:
            continue
        assert response.status == 200, (url, response.status)
        counts[name] += 1
        found = page.evaluate(LINKS)
        submitted = page.evaluate(FORMS, FORM_TICKS)
        forms.update(urldefrag(u).url for u in submitted)
        yield name, url
        for link in found + submitted:
            link = urldefrag(link).url
            path = urlsplit(link).path
            if link.startswith(base + "/") and not FILE.search(path):
                queue.append(link)


def settled(page) -> list:  # noqa: ANN001
    """Wait for the page as shown now to be whole before it is read: every figure
    shown loaded (a lazy one as it is scrolled to; at a new width, the form its
    ``<picture>`` picks for it), then two frames, so that what the page's scripts
    lay out after that (a figure wider than a phone's column made a scrollable
    region, given its hint and keyboard access by evalhub.js's ``ResizeObserver``)
    is in, not half of it. Returns the figures shown (their locators)."""
    imgs = page.locator("main img")
    shown = []
    for i in range(imgs.count()):
        img = imgs.nth(i)
        if not img.is_visible():
            continue
        img.scroll_into_view_if_needed()
        page.wait_for_function("i => i.complete", arg=img.element_handle())
        shown.append(img)
    page.evaluate(
        "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )
    return shown


def audit(page, axe: Callable, where: str) -> list[str]:  # noqa: ANN001
    """What is wrong with the page as shown now (see the module's docstring)."""
    found: list[str] = []
    for img in settled(page):
        figure = img.evaluate(FIGURE_TEXT)
        if figure is None:
            continue
        if figure.get("unmeasured"):
            found.append(f"{figure['src']}: a PNG figure with no SVG to measure")
            continue
        for text in figure["texts"]:
            if text["px"] < MIN_PX - 0.05:
                found.append(
                    f"{figure['src']}: {text['text']!r} is {text['px']:.1f} px"
                )
            if not text["inside"]:
                found.append(f"{figure['src']}: {text['text']!r} cut off")
    found = serious(axe(page)) + found
    found += page.evaluate(LAYOUT)
    found += page.evaluate(SMALL_TEXT, MIN_PX)
    return [f"{where}: {p}" for p in found]


#: axe-core's run over the whole page with ``AXE_OPTIONS``, answering only its
#: violations (what ``serious`` reads): the same call axe_playwright_python's
#: ``Axe.run`` makes, without sending the rules' passes back.
AXE_RUN = "options => axe.run(options).then(results => results.violations)"


def axe_script() -> str:
    """axe-core's source, as axe_playwright_python ships it: for
    ``context.add_init_script``, so that every page of a context that many pages
    are audited in has axe-core from its start (sent to the browser once, not with
    each audit as ``Axe.run`` does)."""
    from axe_playwright_python.base import AXE_SCRIPT

    return AXE_SCRIPT


def axe_violations(page):  # noqa: ANN001, ANN201
    """axe-core's violations on ``page`` (``AXE_OPTIONS``) in the shape ``serious``
    reads, axe-core put in the page first unless its context's init script did."""
    from axe_playwright_python.base import AxeResults

    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_script())
    return AxeResults({"violations": page.evaluate(AXE_RUN, AXE_OPTIONS)})


def serious(results) -> list[str]:  # noqa: ANN001
    """axe-core's serious and critical violations, each with up to five elements."""
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(n["target"][0] for n in v["nodes"][:5])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def at_both_widths(
    page,  # noqa: ANN001
    axe,  # noqa: ANN001
    screenshots,  # noqa: ANN001
    name: str,
    *,
    load: str | None = None,
) -> list[str]:
    """A page a browser test reaches on its way, checked at 1280 and 390 px:
    axe-core's serious and critical violations, sideways scrolling, and with
    $EVALHUB_SCREENSHOTS set a screenshot of each
    (``screenshots/<name>-<desktop|phone>.png``). With ``load`` (a URL), the page
    is loaded afresh at each width, as a phone would load it; else the page shown
    is resized. The page is left at 1280 px."""
    from tests.browsers import screenshots_wanted

    problems: list[str] = []
    for size_name, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        if load is not None:
            page.goto(load)
        settled(page)
        if screenshots_wanted():
            page.screenshot(
                path=str(screenshots / f"{name}-{size_name}.png"), full_page=True
            )
        where = f"{name} ({size_name})"
        problems += [
            f"{where}: {p}" for p in serious(axe.run(page, options=AXE_OPTIONS))
        ]
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - window.innerWidth"
        )
        if overflow > 1:
            problems.append(f"{where}: the page scrolls sideways by {overflow}px")
    page.set_viewport_size(DESKTOP)
    return problems
