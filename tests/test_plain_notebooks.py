"""The notebooks published for Colab, Binder and download read right outside the site.

They are generated with every MyST construct turned into plain notebook Markdown
(``book_tools.myst_to_markdown``) and without the solutions, which stay on the site; no
right answer the key computes is written in them.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from homework import occurrences, right_answer_forms

from book_tools.cloud_cell import site_url
from book_tools.myst_to_markdown import UnconvertedMyST, convert, reference_list, remaining_myst
from book_tools.notebooks import REPO, chapters, generate
from book_tools.plain_notebook import book_context
from book_tools.solutions import find_exercises, find_solutions

# A raw construct as plain Jupyter would show it: a directive fence, a role, a target line.
RAW_MYST = re.compile(r"^(`{3,}|:{3,})\{[\w:-]+\}|\{[\w:-]+\}`|^\([\w:-]+\)=\s*$", re.MULTILINE)


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    out = tmp_path_factory.mktemp("published")
    return {p.stem: nbformat.read(p, as_version=4) for p in generate(out, cloud=True)}


def markdown(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "markdown"]


def test_the_published_notebooks_hold_no_raw_myst(published):
    left = {name: [x for src in markdown(nb) for x in remaining_myst(src)] +
            [m.group(0) for src in markdown(nb) for m in RAW_MYST.finditer(src)]
            for name, nb in published.items()}
    assert sum(map(len, left.values())) == 0, {k: v[:5] for k, v in left.items() if v}


def test_the_sources_did_hold_myst_so_the_count_means_something():
    assert sum(len(RAW_MYST.findall(src.read_text())) for src in chapters()) > 100


def test_the_published_notebooks_hold_no_solution(published):
    shown = []
    for src in chapters():
        nb_text = "\n".join(c.source for c in published[src.stem].cells)
        for sol in find_solutions(src.read_text()):
            code = [b for b in re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", sol.text,
                                          re.DOTALL) if b.strip()]
            shown += [f"{src.stem}: {sol.label}" for b in code if b.strip() in nb_text]
            if "{solution" in nb_text:
                shown.append(f"{src.stem}: a solution directive")
    assert not shown, shown
    assert sum(len(find_solutions(s.read_text())) for s in chapters()) >= 30


def test_the_published_notebooks_hold_no_right_answer(published):
    found = {}
    for src in chapters():
        text = "\n".join(c.source for c in published[src.stem].cells)
        for ex in find_exercises(src.read_text()):
            if hits := occurrences(text, right_answer_forms(ex.label)):
                found[ex.label] = hits
    assert not found, f"right answers (the key's) in the published notebooks: {found}"


def test_each_removed_solution_links_to_its_place_on_the_site(published):
    site = site_url(REPO / "_config.yml")
    for src in chapters():
        text = "\n".join(markdown(published[src.stem]))
        for sol in find_solutions(src.read_text()):
            assert f"{site}book/{src.stem}.html#{sol.label}" in text, (src.stem, sol.label)


def test_proofs_are_quoted_exercises_headed_and_citations_listed(published):
    text = "\n".join(markdown(published["03a_qk_form"]))
    assert re.search(r"^> \*\*Proposition \(.+?\)\.\*\*", text, re.MULTILINE)
    assert re.search(r"^> \*Proof\.\*", text, re.MULTILINE)
    assert re.search(r"^#### Exercise: .+\(warm-up, 10 min\)$", text, re.MULTILINE)
    assert markdown(published["03a_qk_form"])[-1].startswith("## References")


# ----------------------------------------------------------- the converter itself


@pytest.fixture
def ctx():
    return book_context(REPO / "book" / "03a_qk_form.md", REPO)


def test_a_citation_becomes_author_year_and_joins_the_reference_list(ctx):
    out = convert("As shown {cite}`vaswani2017attention`.", ctx)
    assert out == "As shown (Vaswani et al., 2017).", out
    assert "Attention is all you need" in reference_list(ctx)


def test_a_cross_reference_becomes_a_link_to_the_published_page(ctx):
    out = convert("See {ref}`the bound <claim-q3>` and {doc}`03a_qk_form`.", ctx)
    site = site_url(REPO / "_config.yml")
    assert f"[the bound]({site}book/03a_qk_form.html#claim-q3)" in out
    assert f"]({site}book/03a_qk_form.html)." in out


def test_a_construct_without_a_rule_is_an_error_that_names_it(ctx):
    with pytest.raises(UnconvertedMyST, match=r"\{mermaid\}"):
        convert("```{mermaid}\ngraph TD\n```\n", ctx)
    with pytest.raises(UnconvertedMyST, match="no page defines"):
        convert("{ref}`no-such-label`", ctx)
