"""The head atlas as HTML: Bokeh widgets and figures driven by one CustomJS callback (no
server: the data travel inside the page; BokehJS is copied into the build by
``book_tools.sphinx_atlas``), and a static matplotlib overview of all 144 heads for print."""

from __future__ import annotations

from pathlib import Path

import numpy as np

CALLBACK = Path(__file__).with_name("atlas_callback.js")
SCALARS = ("antisymmetric_share", "negative_mass_share", "self_score_bound_violation_share",
           "previous_token_score", "ov_copying_score")
CURVES = {"qk": ("qk_singular_values", "QK circuit: singular values", "σ"),
          "ov": ("ov_singular_values", "OV circuit: singular values", "σ"),
          "eig": ("symmetric_eigenvalues", "QK symmetric part: eigenvalues", "λ"),
          "ang": ("kv_principal_angles_deg", "Principal angles, W_K vs W_V", "degrees")}


def _slim(atlas: dict) -> dict:
    """What the page's script needs: the heads without the field descriptions."""
    keep = (*SCALARS, "inertia", "attention_pattern", *(f for f, _, _ in CURVES.values()))
    def cut(e):
        return {k: e[k] for k in keep}
    return {name: {**cut(e), "control": cut(e["control"]), "roles": e["roles"]}
            for name, e in atlas["heads"].items()}


def interactive_html(atlas: dict) -> tuple[str, str]:
    """Bokeh (script, div) for the atlas."""
    from bokeh import models as bm
    from bokeh.document import Document
    from bokeh.embed import components
    from bokeh.events import DocumentReady
    from bokeh.layouts import column, row
    from bokeh.plotting import figure

    names = list(atlas["heads"])
    n_layer = 1 + max(int(n.split(".")[0]) for n in names)
    n_head = 1 + max(int(n.split(".")[1]) for n in names)
    layer = bm.Select(title="Layer", value="0", options=[str(i) for i in range(n_layer)],
                      name="atlas-layer", width=90)
    head = bm.Select(title="Head", value="0", options=[str(i) for i in range(n_head)],
                     name="atlas-head", width=90)
    search = bm.TextInput(title="Go to head", placeholder="e.g. 5.5", name="atlas-search",
                          width=110)
    pin = bm.Select(title="Pin a second head", value="none", options=["none", *names],
                    name="atlas-pin", width=120)
    control = bm.Toggle(label="Show the random-init control", active=False,
                        name="atlas-control", button_type="default", width=240)
    numbers = bm.Div(name="atlas-numbers", sizing_mode="stretch_width")
    roles = bm.Div(name="atlas-roles", sizing_mode="stretch_width")

    curves, sources = [], {}
    for key, (_, title, y_label) in CURVES.items():
        src = bm.ColumnDataSource({"x": [], "main": [], "control": [], "pin": []})
        fig = figure(title=title, height=230, sizing_mode="stretch_width",
                     toolbar_location=None, x_axis_label="index", y_axis_label=y_label)
        fig.scatter("x", "main", source=src, size=4, color="#1f77b4", legend_label="head")
        fig.scatter("x", "pin", source=src, size=4, color="#d62728", marker="triangle",
                    legend_label="pinned", name=f"{key}-pin")
        fig.scatter("x", "control", source=src, size=4, color="#7f7f7f", marker="square",
                    legend_label="control", name=f"{key}-control")
        fig.legend.location = "top_right" if key in ("qk", "ov") else "top_left"
        fig.legend.label_text_font_size = "9pt"
        sources[key] = src
        curves.append(fig)

    T = len(atlas["heads"][names[0]]["attention_pattern"])
    mapper = bm.LinearColorMapper(palette="Blues256", low=1, high=0)  # dark = more weight
    grid_y, grid_x = (a.ravel() for a in np.indices((T, T)))  # query row, key row
    patterns, pattern_sources = [], {}
    for key, title in (("main", "Attention pattern"), ("control", "Control's pattern"),
                       ("pin", "Pinned head's pattern")):
        src = bm.ColumnDataSource({"x": grid_x, "y": grid_y, "w": np.zeros(T * T)})
        fig = figure(title=title, height=260, width=260, toolbar_location=None,
                     x_range=(-0.5, T - 0.5), y_range=(T - 0.5, -0.5),
                     x_axis_label="key row", y_axis_label="query row",
                     name=f"pattern-{key}")
        fig.rect("x", "y", width=1, height=1, source=src, line_color=None,
                 fill_color={"field": "w", "transform": mapper})
        pattern_sources[key] = src
        patterns.append(fig)

    callback = bm.CustomJS(
        args={"heads": _slim(atlas), "layer": layer, "head": head, "search": search,
              "pin": pin, "control": control, "numbers": numbers, "roles": roles,
              "curves": sources, "patterns": pattern_sources, "pattern_figs": patterns,
              "curve_figs": curves, "scalars": list(SCALARS),
              "fields": {k: f for k, (f, _, _) in CURVES.items()},
              "tokens": atlas["about"]["rows_are_tokens"]},
        code=CALLBACK.read_text())
    for widget, attr in ((layer, "value"), (head, "value"), (search, "value"),
                         (pin, "value"), (control, "active")):
        widget.js_on_change(attr, callback)
    # Wrap the controls onto further lines on a narrow (phone) screen.
    controls = row(layer, head, search, pin, control, sizing_mode="stretch_width",
                   styles={"flex-wrap": "wrap"})
    layout = column(controls,
                    numbers, roles, *curves, row(*patterns, sizing_mode="stretch_width"),
                    sizing_mode="stretch_width", name="atlas-root")
    doc = Document()
    doc.add_root(layout)
    doc.js_on_event(DocumentReady, callback)
    return components(layout)


def _grid(heads: dict, n: int, field: str, reduce_, net: str) -> np.ndarray:
    """[layer, head] grid of one field (reduced to a number) for GPT-2 or the control."""
    def entry(name):
        return heads[name] if net == "gpt2" else heads[name]["control"]
    return np.array([[reduce_(np.asarray(entry(f"{layer}.{h}")[field])) for h in range(n)]
                     for layer in range(n)])


def overview_png(atlas: dict) -> bytes:
    """Small multiples of four numbers of all 144 heads for print, beside the control's."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    heads = atlas["heads"]
    n = int(round(len(heads) ** 0.5))
    panels = (("negative_mass_share", "negative mass share ν", np.asarray),
              ("antisymmetric_share", "antisymmetric share", np.asarray),
              ("self_score_bound_violation_share", "share breaking the Q3 bound",
               np.asarray),
              ("kv_principal_angles_deg", "median K–V principal angle (°)",
               lambda v: np.median(v, -1)))
    fig, axes = plt.subplots(len(panels), 2, figsize=(7.0, 13.0), layout="constrained")
    for (field, title, reduce_), ax_row in zip(panels, axes, strict=True):
        grids = [_grid(heads, n, field, reduce_, net) for net in ("gpt2", "control")]
        low, high = min(g.min() for g in grids), max(g.max() for g in grids)
        for ax, grid, net in zip(ax_row, grids, ("GPT-2 small", "random-init control"),
                                 strict=True):
            im = ax.imshow(grid, vmin=low, vmax=high, cmap="viridis")
            ax.set_title(f"{title}\n{net}", fontsize=8)
            ax.set_xlabel("head", fontsize=7)
            ax.set_ylabel("layer", fontsize=7)
            ax.set_xticks(range(n))
            ax.set_yticks(range(n))
            ax.tick_params(labelsize=6)
        fig.colorbar(im, ax=list(ax_row), shrink=0.8)
    from attention_book.plotting import png_with_legend_size  # records it has no legend

    png = png_with_legend_size(fig, crop=False, dpi=130)
    plt.close(fig)
    return png
