"""The conceptual diagrams draw, stay phone-sized, and keep their text large."""

import io

import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text
from PIL import Image

from attention_book import diagrams


@pytest.mark.parametrize("name", sorted(diagrams.ALL))
def test_each_diagram_draws_a_legible_figure(name):
    draw = diagrams.ALL[name]
    assert draw.__doc__ and len(draw.__doc__.split()) > 20, f"{name} has no real docstring"
    fig = draw()
    assert isinstance(fig, Figure)
    width, height = fig.get_size_inches()
    assert width <= 6.4 and height <= 1.6 * 6.4, (width, height)  # one column
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    with Image.open(io.BytesIO(buffer.getvalue())) as image:
        colours = len(set(image.convert("RGB").resize((120, 160)).getdata()))
        assert image.width >= 400 and colours > 8, (image.size, colours)  # not blank
    texts = [t for t in fig.findobj(Text) if t.get_text().strip()]
    assert len(texts) >= 6, f"{name}: too little text"
    # On a 360-px screen the figure shrinks to about 330 px: every text keeps >= 8 px.
    scale = 330 / (width * fig.dpi)
    smallest = min(t.get_fontsize() for t in texts)
    assert smallest * fig.dpi / 72 * scale >= 8, f"{name}: {smallest} pt is too small"


def test_the_kv_cache_diagram_grows_one_row_per_step():
    from matplotlib.patches import Rectangle

    small, large = diagrams.kv_cache_growing(2), diagrams.kv_cache_growing(5)
    count = [len([p for p in f.axes[0].patches if isinstance(p, Rectangle)])
             for f in (small, large)]
    # per step t: one query row plus t rows in each of the two caches, plus the legend key
    assert count == [sum(1 + 2 * t for t in range(1, n + 1)) + 1 for n in (2, 5)], count
    with pytest.raises(ValueError):
        diagrams.kv_cache_growing(12)
