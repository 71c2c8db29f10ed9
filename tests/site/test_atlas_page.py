"""The head atlas in headless Chromium: picking heads, the control toggle and the pinned
head change the numbers to those in heads.json, with no console errors.

Runs against the built site, like every check in tests/site (make site).
"""

import json

import pytest

ATLAS = "book/atlas.html"
# Bokeh draws its widgets inside shadow roots: find by CSS through every one of them.
DEEP = """
const [selector, all] = arguments;
const found = [];
const walk = (root) => {
  root.querySelectorAll(selector).forEach((e) => found.push(e));
  root.querySelectorAll('*').forEach((e) => { if (e.shadowRoot) walk(e.shadowRoot); });
};
walk(document);
return all ? found : found[0] || null;
"""


def deep(browser, selector: str, all_: bool = False):
    return browser.execute_script(DEEP, selector, all_)


def displayed(browser) -> dict[tuple[str, str], str]:
    cells = deep(browser, "td[data-field]", True)
    return {(c.get_attribute("data-field"), c.get_attribute("data-who")): c.text
            for c in cells}


def wait_for(browser, condition, what: str, timeout: float = 20):
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        return WebDriverWait(browser, timeout).until(lambda b: condition(b))
    except Exception as e:  # selenium's TimeoutException: say what did not happen
        pytest.fail(f"the atlas did not {what} within {timeout} s ({type(e).__name__})")


def shown_for(browser, name: str) -> bool:
    header = deep(browser, "table.atlas-numbers th")
    return header is not None and header.text == f"head {name}"


def assert_numbers(shown: dict, entry: dict, who: str) -> None:
    for field in ("antisymmetric_share", "negative_mass_share",
                  "self_score_bound_violation_share", "previous_token_score"):
        assert float(shown[field, who]) == pytest.approx(entry[field], rel=1e-3, abs=1e-4), \
            f"{who} {field}: page shows {shown[field, who]}, heads.json has {entry[field]}"
    p, n = entry["inertia"]
    assert shown["inertia", who] == f"{p} positive, {n} negative"


def choose(browser, name: str) -> None:
    from selenium.webdriver.common.keys import Keys
    box = deep(browser, "input[type=text]")
    box.clear()
    box.send_keys(name, Keys.ENTER)
    wait_for(browser, lambda b: shown_for(b, name), f"show head {name}")


@pytest.fixture(scope="module")
def heads(site) -> dict:
    path = site / "book" / "heads.json"
    assert path.is_file(), f"no heads.json beside the atlas page ({path})"
    return json.loads(path.read_text())["heads"]


def test_heads_json_holds_all_144_heads_with_the_documented_fields(heads):
    assert sorted(heads) == sorted(f"{l}.{h}" for l in range(12) for h in range(12))
    for entry in heads.values():
        for field, size in (("qk_singular_values", 64), ("ov_singular_values", 64),
                            ("kv_principal_angles_deg", 64), ("symmetric_eigenvalues", 128)):
            assert len(entry[field]) == size and len(entry["control"][field]) == size
        assert entry["qk_singular_values"] == sorted(entry["qk_singular_values"], reverse=True)
        assert entry["kv_principal_angles_deg"] == sorted(entry["kv_principal_angles_deg"])
        assert 0 <= entry["antisymmetric_share"] <= 1
        assert 0 <= entry["negative_mass_share"] <= 1


def test_atlas_selects_heads_toggles_control_and_pins_in_chromium(heads, browser, root,
                                                                  shown):
    from selenium.webdriver.support.ui import Select

    shown.url = ""  # (the browser leaves the page the other checks show)
    browser.get_log("browser")
    browser.get(root + ATLAS + "#head-0.10")
    wait_for(browser, lambda b: shown_for(b, "0.10"), "open on #head-0.10")
    assert_numbers(displayed(browser), heads["0.10"], "main")
    for name in ("5.5", "9.9"):
        choose(browser, name)
        assert_numbers(displayed(browser), heads[name], "main")
    assert ("negative_mass_share", "control") not in displayed(browser)
    deep(browser, "button.bk-btn").click()
    wait_for(browser, lambda b: ("negative_mass_share", "control") in displayed(b),
             "show the control's numbers")
    assert_numbers(displayed(browser), heads["9.9"]["control"], "control")
    pin = next(s for s in deep(browser, "select", True)
               if "none" in [o.get_attribute("value")
                             for o in s.find_elements("css selector", "option")])
    Select(pin).select_by_value("2.2")
    wait_for(browser, lambda b: ("negative_mass_share", "pin") in displayed(b),
             "show the pinned head")
    assert_numbers(displayed(browser), heads["2.2"], "pin")
    assert_numbers(displayed(browser), heads["9.9"], "main")
    # As test_rendering does: the browser's own favicon request (the book has none).
    errors = [e for e in browser.get_log("browser")
              if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]]
    assert not errors, f"console errors on the atlas page: {errors}"
