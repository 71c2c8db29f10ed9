"""A chapter's slide deck renders in headless Chromium: reveal.js starts, a slide shows
typeset mathematics, and the console stays free of errors.

The deck is written here, as ``make slides`` writes it (book_tools.slides.write_decks),
from the strict build's execution of the chapter (its jupyter-cache), and served locally.
"""


import pytest
from browsing import serve

from book_tools.execute import CACHE
from book_tools.slides import write_decks

CHAPTER = "01_one_row_three_lenses"
pytestmark = pytest.mark.usefixtures("site")

# Waits for reveal.js and MathJax, moves to the first slide with mathematics, reports it.
SHOW_MATH_JS = r"""
const done = arguments[arguments.length - 1];
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  for (let t = 0; t < 200 && !(window.Reveal && Reveal.isReady()); t++) await sleep(50);
  for (let t = 0; t < 200 && !(window.MathJax && MathJax.startup
                               && MathJax.startup.promise); t++) await sleep(50);
  await MathJax.startup.promise;
  const slide = Array.from(document.querySelectorAll('.reveal .slides section'))
    .find(s => !s.querySelector('section') && s.querySelector('mjx-container'));
  if (!slide) return done(JSON.stringify({error: 'no slide holds typeset mathematics'}));
  const at = Reveal.getIndices(slide);
  Reveal.slide(at.h, at.v);
  await sleep(600);  // the transition
  const current = Reveal.getCurrentSlide();
  const math = Array.from(current.querySelectorAll('mjx-container'));
  done(JSON.stringify({indices: at, total: Reveal.getTotalSlides(),
    math: math.filter(m => m.getBoundingClientRect().width > 0).length,
    errors: current.querySelectorAll('mjx-merror').length,
    text: current.innerText.slice(0, 120)}));
})().catch(e => done(JSON.stringify({error: String(e)})));
"""


def test_a_deck_shows_typeset_mathematics_without_console_errors(tmp_path, browser, shown):
    import json

    (deck,) = write_decks(tmp_path, CACHE, [CHAPTER])
    assert deck.read_text().count("<img") >= 3  # the build's figures, not bare cells
    assert ".ledger-status {" in deck.read_text()  # the verdicts' badges, styled as on the site
    shown.url = ""  # (the browser leaves the page the other checks show)
    browser.get_log("browser")
    with serve(tmp_path) as root:
        browser.get(root + deck.name)
        report = json.loads(browser.execute_async_script(SHOW_MATH_JS))
        console = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert "error" not in report, report
    assert report["total"] > 5, report
    assert report["math"] > 0 and report["errors"] == 0, report
    assert not console, console
    remote = [css.name for css in tmp_path.rglob("*.css")
              if "@import url(http" in css.read_text() or "//fonts." in css.read_text()]
    assert not remote, f"style sheets beside the deck import from the network: {remote}"
