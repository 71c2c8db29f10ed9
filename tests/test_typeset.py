"""Typeset lines (attention_book.typeset.show): a label's words are text and whatever stands
between dollars is mathematics, so no TeX is ever set as text (where MathJax would show it
as typed, backslashes and all)."""

import pytest
import sympy as sp

from attention_book import typeset


def shown(monkeypatch, *parts, label=""):
    out = []
    monkeypatch.setattr(typeset, "display", lambda obj: out.append(obj.data))
    typeset.show(*parts, label=label)
    return out[0]


def test_a_label_s_mathematics_is_math_and_its_words_are_text(monkeypatch):
    x = sp.Symbol("x")
    line = shown(monkeypatch, x**2, label=r"tied $W_K = W_V$, with $\alpha$:")
    assert line == r"\text{tied }W_K = W_V\text{, with }\alpha\text{:}\quad x^{2}"
    assert shown(monkeypatch, x, label="plain words:") == r"\text{plain words:}\quad x"
    assert shown(monkeypatch, x, label=r"$\frac{a}{b}$:") == r"\frac{a}{b}\text{:}\quad x"
    assert shown(monkeypatch, x) == "x"


def test_no_label_sets_tex_inside_text():
    for label in (r"$\partial q_{ic}$:", r"at $\alpha = 0$:", r"$\sum_{\text{heads}} d_k$"):
        tex = typeset.label_tex(label)
        texts = tex.split(r"\text{")[1:]
        assert all("\\" not in t.split("}")[0] for t in texts), tex


def test_a_dollar_left_open_is_refused():
    with pytest.raises(ValueError, match=r"opened with \$ and never closed"):
        typeset.label_tex("the cost in $ per token")
