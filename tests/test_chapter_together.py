"""Chapter.layers_together: work made layer by layer for every case of a model at once."""

from attention_book.chapter import Chapter
from attention_book.subjects import Case


def test_a_models_cases_are_computed_together_once_and_keep_their_own_results():
    m, other = object(), object()
    mine = [Case("GPT-2", None, m), Case("GPT-2", None, m)]
    ch = Chapter("book/x", None, None, None, _cases={True: [*mine, Case("init", None, other)]})
    calls = []

    def compute(cases):
        calls.append(cases)
        for layer in range(3):
            yield [(layer, i) for i, _ in enumerate(cases)]

    assert ch.layers_together(mine[1], "k", compute) == [(0, 1), (1, 1), (2, 1)]
    assert ch.layers_together(mine[0], "k", compute) == [(0, 0), (1, 0), (2, 0)]
    assert calls == [mine]                      # both cases of m from one pass
    outside = Case("GPT-2", None, m)            # a counterfactual's case: alone
    assert ch.layers_together(outside, "k", compute) == [(0, 0), (1, 0), (2, 0)]
    assert calls[-1] == [outside]
