"""In Chromium, MathJax typesets every equation of every page: none left as TeX, none in
error, no TeX in the prose, and no TeX set as text inside an equation (``\\text{\\alpha}``
shows its backslash)."""

import os

from browsing import run_js, serve, show

MATH_JS = r"""
const text = e => e.textContent.trim().slice(0, 100);
const skip = new Set(['SCRIPT', 'STYLE', 'PRE', 'CODE', 'TEXTAREA', 'MJX-CONTAINER', 'NOSCRIPT']);
const raw = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  let p = n.parentElement;
  while (p && !skip.has(p.tagName)) p = p.parentElement;
  if (!p && /\\\(|\\\[|\$\$/.test(n.textContent)) raw.push(text(n));
}
return JSON.stringify({
  'math not typeset': Array.from(document.querySelectorAll('.math'))
    .filter(e => !e.querySelector('mjx-container')).map(text),
  'MathJax error': Array.from(document.querySelectorAll('mjx-merror')).map(text),
  'raw TeX in the text': raw,
  // a backslash drawn as a text glyph: TeX typed inside \text{}
  'TeX shown as text in typeset math': Array.from(document.querySelectorAll('mjx-container'))
    .filter(m => m.querySelector('mjx-mtext mjx-c.mjx-c5C'))
    .map(m => (Array.from(m.querySelectorAll('mjx-assistive-mml mtext'))
               .map(t => t.textContent).find(t => t.includes('\\')) || 'a backslash')),
});
"""


def math_problems(browser) -> dict[str, list[str]]:
    return {kind: found[:10] for kind, found in run_js(browser, MATH_JS).items() if found}


def test_every_equation_is_typeset(desktop, browser):
    assert desktop.mathjax in ("typeset", "no math on this page")
    assert not math_problems(browser)


def test_tex_typed_inside_text_is_found(site, tmp_path, browser, shown):
    """A label typed as TeX inside \\text{}, planted in a copy of a real page."""
    os.symlink(site / "_static", tmp_path / "_static")
    (tmp_path / "book").mkdir()
    html = (site / "book" / "notation.html").read_text()
    assert "</article>" in html
    (tmp_path / "book" / "planted.html").write_text(html.replace(
        "</article>", '<p><span class="math notranslate nohighlight">\\(\\text{\\alpha:}'
        '\\quad x\\)</span> and <span class="mathjax_ignore">\\(y\\)</span> left raw</p>'
        '</article>', 1))
    with serve(tmp_path) as root:
        show(browser, root + "book/planted.html", False, shown)
        found = math_problems(browser)
    assert found.get("TeX shown as text in typeset math") == ["\\alpha:"], found
    assert found.get("raw TeX in the text"), found
