r"""Conceptual diagrams of attention, drawn by the build with matplotlib alone.

Three pictures the chapters place beside their claims:

- :func:`one_row_through_four_matrices`: one row $x_i$ through LayerNorm, the three lenses
  $W_Q, W_K, W_V$, the scores and softmax, the weighted values and $W_O$, back into the
  residual stream;
- :func:`qk_and_ov_circuits`: the QK circuit $W_Q W_K^\top$ (where to look) above the OV
  circuit $W_V W_O$ (what to write), each $d_\text{model}\times d_\text{model}$ of rank at
  most $d_\text{head}$, drawn to GPT-2 small's proportions;
- :func:`kv_cache_growing`: decoding step by step, the cached keys and values growing by one
  row per step while each query is used once.

Each function returns a :class:`matplotlib.figure.Figure` that belongs to no pyplot state:
show it with ``attention_book.plotting.finish(fig)``. They are drawn to stay legible on
a 360-px phone screen: one column, at most four boxes across, text of at least 12 pt.
"""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

WIDTH = 4.6          # inches: about 500 px at the book's 110 dpi, shrunk to 330 px on a phone
FONT = 13            # pt; the smallest text in these diagrams is FONT - 1
DPI = 110

# One colour per matrix, the same in every diagram.
COLOURS = {"x": "#e8e8e8", "ln": "#d9d9d9", "Q": "#9ecae1", "K": "#fdd0a2", "V": "#c7e9c0",
           "O": "#dadaeb", "score": "#fcbba1", "new": "#fd8d3c", "used": "#3182bd"}


def _canvas(height: float, xlim: tuple[float, float], ylim: tuple[float, float]
            ) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(WIDTH, height), dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    ax.set(xlim=xlim, ylim=ylim, aspect="auto")
    ax.axis("off")
    return fig, ax


def _box(ax: Axes, x: float, y: float, w: float, h: float, text: str, colour: str,
         size: float = FONT, weight: str = "normal") -> None:
    """A rounded box centred on (x, y) with its text."""
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h,
                                boxstyle="round,pad=0.02,rounding_size=0.08",
                                facecolor=colour, edgecolor="#333333", linewidth=1.2))
    ax.text(x, y, text, ha="center", va="center", fontsize=size, fontweight=weight)


def _arrow(ax: Axes, start: tuple[float, float], end: tuple[float, float],
           connection: str = "arc3", colour: str = "#333333") -> None:
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=16,
                                 linewidth=1.4, color=colour, connectionstyle=connection,
                                 shrinkA=0, shrinkB=0))


def one_row_through_four_matrices() -> Figure:
    r"""One row $x_i$ of the residual stream through one attention head, top to bottom.

    LayerNorm turns $x_i$ into $\tilde x_i$; the three lenses make the query
    $q_i = \tilde x_i W_Q$, and, for every position $j \le i$, the key $k_j = \tilde x_j W_K$
    and value $v_j = \tilde x_j W_V$; the scores $q_i k_j^\top / \sqrt{d_\text{head}}$ go
    through the softmax to weights $\alpha_{ij}$; the weighted values
    $\sum_j \alpha_{ij} v_j$ pass through $W_O$ and are added back to $x_i$ (the residual
    connection drawn on the left). Sizes are GPT-2 small's.
    """
    fig, ax = _canvas(6.4, (0, 10), (0, 13))
    _box(ax, 5, 12.2, 6.4, 1.0, r"row $x_i$  (1 × 768)", COLOURS["x"], weight="bold")
    _box(ax, 5, 10.5, 6.4, 1.0, r"LayerNorm  →  $\tilde x_i$", COLOURS["ln"])
    lenses = ((2.0, "Q", r"$W_Q$" "\n" r"$q_i$"), (5.0, "K", r"$W_K$" "\n" r"$k_j$"),
              (8.0, "V", r"$W_V$" "\n" r"$v_j$"))
    for x, key, text in lenses:
        _arrow(ax, (5, 9.95), (x, 9.25))
        _box(ax, x, 8.5, 2.3, 1.4, text, COLOURS[key])
    ax.text(6.3, 7.35, "(768 × 64)", ha="center", va="center", fontsize=FONT - 1,
            style="italic")
    _box(ax, 3.5, 5.9, 5.0, 1.5,
         r"scores $q_i k_j^{\top} / \sqrt{64}$" "\n" r"softmax over $j$ → $\alpha_{ij}$",
         COLOURS["score"])
    _arrow(ax, (2.0, 7.8), (2.6, 6.65))
    _arrow(ax, (5.0, 7.8), (4.4, 6.65))
    _box(ax, 5.6, 3.7, 7.4, 1.2, r"weighted values $\Sigma_j\, \alpha_{ij} v_j$  (1 × 64)",
         COLOURS["V"])
    _arrow(ax, (3.5, 5.15), (4.2, 4.3))
    _arrow(ax, (8.0, 7.8), (8.0, 4.3))
    _box(ax, 5.8, 2.1, 4.4, 1.0, r"$W_O$  (64 × 768)", COLOURS["O"])
    _arrow(ax, (5.8, 3.1), (5.8, 2.6))
    _box(ax, 5.0, 0.55, 6.4, 0.9, r"$x_i$ + head output  (1 × 768)", COLOURS["x"],
         weight="bold")
    _arrow(ax, (5.8, 1.6), (5.8, 1.0))
    # The residual connection: x_i itself skips the head and is added at the bottom.
    ax.plot([1.8, 0.45, 0.45], [12.2, 12.2, 0.55], color="#777777", linewidth=1.4,
            linestyle="--")
    _arrow(ax, (0.45, 0.55), (1.8, 0.55), colour="#777777")
    ax.text(0.1, 6.5, "residual", rotation=90, ha="center", va="center",
            fontsize=FONT - 1, color="#555555")
    return fig


def _matrix(ax: Axes, x: float, y: float, w: float, h: float, colour: str) -> None:
    """A matrix as a rectangle with the matrix's proportions; (x, y) is its lower-left."""
    ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, edgecolor="#333333", linewidth=1.2))


def _label(ax: Axes, x: float, y: float, text: str, size: float = FONT,
           **kw) -> None:
    ax.text(x, y, text, ha=kw.pop("ha", "center"), va=kw.pop("va", "center"),
            fontsize=size, **kw)


def _circuit(ax: Axes, top: float, names: tuple[str, str, str], colours: tuple[str, str],
             title: str, role: str) -> None:
    """One circuit: a 768×64 matrix times a 64×768 one is a 768×768 matrix of rank ≤ 64,
    drawn to GPT-2 small's proportions."""
    side = 2.4
    thin = side * 64 / 768
    _label(ax, 0.05, top, title, FONT + 1, ha="left", va="top", fontweight="bold")
    _label(ax, 0.05, top - 0.6, role, FONT - 1, ha="left", va="top")
    base = top - 1.75 - side
    # left factor: tall and thin, named on its left
    _matrix(ax, 0.95, base, thin, side, colours[0])
    _label(ax, 0.45, base + side / 2, names[0], FONT + 1)
    _label(ax, 1.05, base - 0.15, "768×64", FONT - 1, va="top")
    _label(ax, 1.75, base + side / 2, "×", FONT + 4)
    # right factor: short and wide, named above
    _matrix(ax, 2.25, base + side - thin, side, thin, colours[1])
    _label(ax, 2.25 + side / 2, base + side + 0.3, names[1], FONT + 1)
    _label(ax, 2.25 + side / 2, base + side - thin - 0.15, "64×768", FONT - 1, va="top")
    _label(ax, 5.15, base + side / 2, "=", FONT + 4)
    # the product: square, low rank (hatched)
    _matrix(ax, 5.6, base, side, side, colours[0])
    ax.add_patch(Rectangle((5.6, base), side, side, facecolor="none", hatch="//",
                           edgecolor=colours[1], linewidth=0))
    _label(ax, 5.6 + side / 2, base + side / 2, names[2], FONT + 1,
           bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 2})
    _label(ax, 5.6 + side / 2, base - 0.15, "768×768", FONT - 1, va="top")
    _label(ax, 5.6 + side / 2, base - 0.7, "rank ≤ 64", FONT, va="top", fontweight="bold")


def qk_and_ov_circuits() -> Figure:
    r"""The two circuits of one head, each a product of two of its four matrices.

    Top, the QK circuit: $W_Q W_K^\top$ is the bilinear form of the scores,
    $\tilde x_i W_Q W_K^\top \tilde x_j^\top$; it decides *where to look*. Bottom, the OV
    circuit: $W_V W_O$ maps the row attended to into what the head adds to the residual
    stream; it decides *what to write*. Both are $d_\text{model}\times d_\text{model}$
    ($768\times 768$) yet of rank at most $d_\text{head} = 64$, because each factors
    through 64 dimensions; the rectangles have GPT-2 small's proportions.
    """
    fig, ax = _canvas(5.4, (0, 9), (0, 10.4))
    _circuit(ax, 10.3, (r"$W_Q$", r"$W_K^{\top}$", r"$W_Q W_K^{\top}$"),
             (COLOURS["Q"], COLOURS["K"]), "QK circuit: where to look",
             r"score of $i$ for $j$:  $\tilde x_i\, W_Q W_K^{\top}\, \tilde x_j^{\top}$")
    _circuit(ax, 5.0, (r"$W_V$", r"$W_O$", r"$W_V W_O$"),
             (COLOURS["V"], COLOURS["O"]), "OV circuit: what to write",
             r"written to $i$:  $\Sigma_j\, \alpha_{ij}\, \tilde x_j\, W_V W_O$")
    return fig


def kv_cache_growing(steps: int = 4) -> Figure:
    r"""Decoding with a KV cache, one generated position per step (time runs downward).

    At step $t$ the new position's row is projected three times: its key and value are
    appended to the cache (the highlighted new row), so the cached $K$ and $V$ grow by one
    row per step, while its query $q_t$ is used once, against all $t$ cached keys, and
    then discarded. Of the four matrices only the products with $W_K$ and $W_V$ are kept;
    $W_O$ is applied to the weighted values and is not cached either.
    """
    if not 2 <= steps <= 6:
        raise ValueError(f"steps must be between 2 and 6 to stay legible, got {steps}")
    row = 0.32
    height = 1.3 + sum(t * row + 0.55 for t in range(1, steps + 1))
    fig, ax = _canvas(1.0 + height * 0.62, (0, 10), (0, height))
    top = height - 0.2
    for x, text in ((0.55, "step"), (2.5, "query"), (5.3, "cached K"), (8.3, "cached V")):
        ax.text(x, top, text, ha="center", va="top", fontsize=FONT, fontweight="bold")
    y = top - 0.75
    for t in range(1, steps + 1):
        block = t * row
        ax.text(0.55, y - block / 2, f"t = {t}", ha="center", va="center", fontsize=FONT)
        ax.add_patch(Rectangle((1.7, y - row), 1.6, row, facecolor=COLOURS["used"],
                               edgecolor="#333333"))
        ax.text(2.65, y - row - 0.08, rf"$q_{t}$ used once", ha="center", va="top",
                fontsize=FONT - 1)
        for x0, colour in ((4.3, COLOURS["K"]), (7.3, COLOURS["V"])):
            for r in range(t):
                new = r == t - 1
                ax.add_patch(Rectangle((x0, y - (r + 1) * row), 2.0, row,
                                       facecolor=COLOURS["new"] if new else colour,
                                       edgecolor="#333333", linewidth=1.0))
        _arrow(ax, (3.35, y - row / 2), (4.25, y - row / 2), colour=COLOURS["used"])
        y -= block + 0.55
    ax.add_patch(Rectangle((4.3, 0.15), 0.35, 0.25, facecolor=COLOURS["new"],
                           edgecolor="#333333"))
    ax.text(4.8, 0.27, "row appended this step", ha="left", va="center", fontsize=FONT - 1)
    return fig


ALL = {"one_row": one_row_through_four_matrices, "circuits": qk_and_ov_circuits,
       "kv_cache": kv_cache_growing}
