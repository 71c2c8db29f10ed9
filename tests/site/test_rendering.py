"""Every page renders as a reader should see it: no MyST or TeX left raw in the prose, no
error box, traceback or stderr, every solution folded (read from the HTML); and in Chromium
every image loads and the console stays free of errors.

(Internal links and anchors are the strict build's to check: ``make strict-book`` builds with
``--warningiserror`` and ``nitpicky``, so a reference to a missing page, label or anchor
stops it; tests/test_strict_build.py plants one. A resource or image that fails to load is
a console error here.)
"""

import re

from browsing import Shown, serve, show
from bs4 import BeautifulSoup
from bs4.element import Comment, Doctype

# Text a reader must never see: MyST that was not parsed, TeX outside mathematics.
RAW_MARKUP = {
    "raw MyST (code fence)": re.compile(r"```"),
    "raw MyST (colon fence)": re.compile(r":::\s*\{"),
    "raw MyST (role)": re.compile(r"\{[a-z][\w:-]*\}`"),
    "raw MyST (target)": re.compile(r"\([\w.:-]+\)=(\s|$)"),
    "raw MyST (display math)": re.compile(r"\$\$"),
    "raw MyST (directive option)": re.compile(
        r"(^|\n)\s*:(label|class|name|nonumber|tags|width|align):\s"),
    "raw TeX (outside math)": re.compile(r"\\[A-Za-z]{2,}|\\[()\[\]]"),
}
# Where such text is legitimate: code and printed outputs, TeX awaiting MathJax, scripts.
# (The theme's "onlyprint" header shows titles as plain text, a title's math as raw TeX: a
# known limit of sphinx-book-theme, never on screen.)
VERBATIM = "script, style, pre, code, textarea, kbd, samp, mjx-container, svg, math, " \
           "template, noscript, .math, .highlight, .cell_input, .onlyprint"
ERROR_BOXES = {"system-message": "docutils error box", "problematic": "docutils problem",
               "traceback": "traceback output", "stderr": "stderr output"}


def prose(doc: BeautifulSoup) -> list[str]:
    """The text a reader sees outside code, outputs, mathematics and scripts."""
    hidden = {id(e) for v in doc.select(VERBATIM) for e in [v, *v.descendants]}
    return [str(t) for t in (doc.body or doc).find_all(string=True)
            if t.strip() and not isinstance(t, Comment | Doctype) and id(t) not in hidden]


def rendering_problems(doc: BeautifulSoup) -> list[str]:
    found = [f"{kind}: {text.strip()[:120]!r}" for text in prose(doc)
             for kind, pattern in RAW_MARKUP.items() if pattern.search(text)]
    found += [f"{kind}: {e.get_text(' ', strip=True)[:160]!r}"
              for cls, kind in ERROR_BOXES.items() for e in doc.find_all(class_=cls)]
    found += ["traceback in an output" for e in doc.select(".cell_output, .output")
              if "Traceback (most recent call last)" in e.get_text()]
    return found


def unfolded_solutions(doc: BeautifulSoup) -> list[str]:
    """Solutions a student sees before opening them: sphinx-exercise's solution box without
    the dropdown class that sphinx-togglebutton folds."""
    return [box.get("id") or box.get_text(" ", strip=True)[:60]
            for box in doc.select("div.solution, div.solution-start")
            if "dropdown" not in box.get("class", [])]


def broken_images(browser) -> list[str]:
    return browser.execute_script(
        "return Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0))"
        ".map(i => i.getAttribute('src'))")


def console_errors(shown: Shown) -> list[str]:
    # (the browser asks for /favicon.ico, which the book does not have)
    return [e["message"][:200] for e in shown.console
            if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]]


def test_no_raw_markup_error_box_or_traceback(doc):
    assert not rendering_problems(doc)


def test_every_solution_is_folded(doc):
    assert not unfolded_solutions(doc)


def test_every_image_loads(desktop, browser):
    assert not broken_images(browser)


def test_the_console_shows_no_error(desktop):
    assert not console_errors(desktop)


PLANTED = """<html><body><main><section id="there">
<p>A target left raw: (claim-x9)= and a role left raw: {ref}`claim-x9`.</p>
<p>Inline math: <span class="math notranslate nohighlight">\\(x^2\\)</span></p>
<p>A title that lost its math: Why not just XX^\\top</p>
<pre>```{code} shown as code is fine: $$ and (label)= too</pre>
<div class="cell_output"><div class="output stderr"><pre>UserWarning: noise</pre></div>
<div class="output stream"><pre>Traceback (most recent call last):
  File "x", line 1</pre></div></div>
<div class="solution dropdown admonition" id="s1">x</div>
<div class="solution admonition" id="s2">the answer</div>
<img src="_images/missing.png" alt="a figure whose file is gone">
</section></main></body></html>"""


def test_each_planted_problem_is_found_and_a_clean_page_passes():
    doc = BeautifulSoup(PLANTED, "html.parser")
    kinds = {p.split(":")[0] for p in rendering_problems(doc)}
    assert kinds == {"raw MyST (target)", "raw MyST (role)", "raw TeX (outside math)",
                     "stderr output", "traceback in an output"}, rendering_problems(doc)
    assert unfolded_solutions(doc) == ["s2"]
    clean = BeautifulSoup("<p>Prose, <code>```{code}</code>, <a href='#x'>a link</a>.</p>",
                          "html.parser")
    assert not rendering_problems(clean) and not unfolded_solutions(clean)


def test_the_browser_sees_a_missing_image_and_a_failed_load(tmp_path, browser, shown):
    (tmp_path / "index.html").write_text(PLANTED.replace(
        "</main>", '<script src="_static/gone.js"></script></main>'))
    with serve(tmp_path) as root:
        show(browser, root + "index.html", False, shown)
        assert broken_images(browser) == ["_images/missing.png"]
        assert shown.mathjax == "no MathJax script on a page with math"
    assert any("gone.js" in e for e in console_errors(shown)), shown.console
