"""The head atlas's numbers: every quantity of every one of GPT-2 small's 144 heads, and of
the random-init control's, computed from the weights with ``head_metrics``, with what the
book's evidence says of the literature's roles (``head_roles``).

``compute_atlas()`` returns the dictionary the book publishes as ``heads.json`` (the atlas
page draws it): under ``"heads"``, one entry per head keyed ``"L.H"`` holding GPT-2's
values, the control's under ``"control"``, and the roles; ``FIELDS`` says what each is.
"""

from __future__ import annotations

import time

import numpy as np

from attention_book import head_metrics as hm
from attention_book.checkpoint import load_checkpoint
from attention_book.control import SEED, load_control
from attention_book.gpt2 import GPT2, AttentionWeights, attention, load_gpt2
from attention_book.head_detectors import previous_token_scores
from attention_book.head_roles import load_roles, role_evidence, roles_of
from attention_book.subjects import Case

FIELDS = {
    "antisymmetric_share": "‖M_a‖²_F / ‖M‖²_F for M = W_Q W_Kᵀ, M_a = (M − Mᵀ)/2",
    "symmetric_eigenvalues": "the 128 candidate non-zero eigenvalues of (M + Mᵀ)/2, "
                             "ascending",
    "inertia": "[positive, negative] eigenvalues of (M + Mᵀ)/2 beyond float32 rounding",
    "negative_mass_share": "Σ|negative eigenvalues| / Σ|eigenvalues| of (M + Mᵀ)/2",
    "qk_singular_values": "singular values of W_Q W_Kᵀ, descending (64)",
    "ov_singular_values": "singular values of W_V W_O, descending (64)",
    "kv_principal_angles_deg": "principal angles between the column spaces of W_K and "
                               "W_V, degrees, ascending (64)",
    "self_score_bound_violation_share": "share of ordered pairs i ≠ j of the example rows "
                                        "with s_ij > √(s_ii s_jj) (chapter 3, claim Q3)",
    "previous_token_score": "mean attention from row i ≥ 1 to row i − 1, example rows",
    "attention_pattern": "attention weights on the example rows [query][key], causal",
    "ov_copying_score": "Σ Re λ / Σ |λ| over the eigenvalues of W_E W_V W_O W_Eᵀ "
                        "(full checkpoint only, else null)",
}


def _round(a: np.ndarray, digits: int = 6) -> list:
    return np.round(np.asarray(a, np.float64), digits).tolist()


def copying_scores(w: AttentionWeights, embedding_gram: np.ndarray) -> np.ndarray:
    """Elhage et al.'s OV copying score of each head of a layer, Σ Re λ / Σ |λ| over the
    eigenvalues of the token-to-token OV circuit W_E W_V W_O W_Eᵀ (GPT-2 ties its
    unembedding to W_E). Its non-zero eigenvalues are those of the 64 x 64
    W_O (W_Eᵀ W_E) W_V; ``embedding_gram`` is W_Eᵀ W_E."""
    lam = np.linalg.eigvals(w.W_O.astype(np.float64) @ embedding_gram
                            @ w.W_V.astype(np.float64))
    return lam.real.sum(-1) / np.abs(lam).sum(-1)


def reading_rows(model: GPT2) -> tuple[list[np.ndarray], str]:
    """The rows each layer reads on the chapters' input set A, as that model embeds it:
    the residual stream of token rows with the full checkpoint, else the position rows at
    every layer (the chapters' choice, for the control too, so that both read the same
    kind of rows)."""
    from attention_book.chapter import input_sets

    inputs = input_sets()[0]
    case = Case("atlas", inputs, model)
    return [case.layer_input(i) for i in range(model.config.n_layer)], inputs.label


def net_metrics(model: GPT2, tokens: bool) -> tuple[dict[str, dict], str]:
    """Every quantity of FIELDS for every head of one network, keyed "L.H", and what the
    example rows were."""
    inputs, label = reading_rows(model)
    gram = None
    if tokens:
        W_E = np.asarray(model.tensors["wte.weight"], np.float32)
        gram = (W_E.T @ W_E).astype(np.float64)
    out = {}
    for layer, (w, x) in enumerate(zip(model.layers, inputs, strict=True)):
        trace = attention(w, x)
        lam = hm.symmetric_eigenvalues(w.W_Q, w.W_K)
        pos, neg = hm.inertia(lam, model.config.d_model)
        per_layer = {
            "antisymmetric_share": hm.antisymmetric_share(w.W_Q, w.W_K),
            "symmetric_eigenvalues": lam,
            "inertia": np.stack([pos, neg], -1),
            "negative_mass_share": hm.negative_mass_share(lam),
            "qk_singular_values": hm.qk_singular_values(w.QK),
            "ov_singular_values": hm.ov_singular_values(w.OV),
            "kv_principal_angles_deg": hm.kv_principal_angles_deg(w.W_K, w.W_V),
            "self_score_bound_violation_share":
                hm.self_score_bound_violation_share(trace.scores),
            "previous_token_score": previous_token_scores(trace.pattern),
            "attention_pattern": trace.pattern,
        }
        copying = None if gram is None else copying_scores(w, gram)
        for h in range(model.config.n_head):
            entry = {k: (v[h].tolist() if k == "inertia" else _round(v[h]))
                     for k, v in per_layer.items()}
            entry["ov_copying_score"] = None if copying is None else round(float(copying[h]), 6)
            out[f"{layer}.{h}"] = entry
    return out, label


def compute_atlas() -> dict:
    """heads.json as a dictionary (see FIELDS), with the time the computation took."""
    start = time.perf_counter()
    model, control = load_gpt2(), load_control()
    from attention_book.chapter import input_sets

    tokens = input_sets()[0].are_tokens and model.has_mlp
    gpt2, rows = net_metrics(model, tokens)
    ctrl, ctrl_rows = net_metrics(control, tokens)
    groups = load_roles()
    for name, entry in gpt2.items():
        head = tuple(int(p) for p in name.split("."))
        entry["control"] = ctrl[name]
        entry["roles"] = [{"role": g.role, "cite": list(g.cite), "chapter": g.chapter,
                           "method": g.method, **role_evidence(name, g, gpt2, tokens)}
                          for g in roles_of(head, groups)]
    return {
        "about": {
            "checkpoint": load_checkpoint().describe(),
            "example_rows": rows,
            "rows_are_tokens": tokens,
            "control": f"GPT-2 small as initialised by transformers, untrained, seed {SEED}; "
                       f"example rows: {ctrl_rows}",
            "fields": FIELDS,
            "seconds": round(time.perf_counter() - start, 2),
        },
        "heads": gpt2,
    }

