"""Weights on which a claim is false make the chapter's check fail, naming the claim and the
measured value: GPT-2 with the layer-0 lens biases zeroed, where L2 ("GPT-2's lens biases
are not zero") is false."""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from safetensors.numpy import save_file

from attention_book.checkpoint import ALLOW_MODIFIED_VAR, ENV_VAR, read_tensors
from attention_book.ledger import FAILED, LEDGER_DIR_VAR, VERIFIED

pytestmark = pytest.mark.slow  # a chapter run whole

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def zero_bias_checkpoint(tmp_path_factory, checkpoint):
    folder = tmp_path_factory.mktemp("zero-bias")
    tensors = {k: np.array(v) for k, v in read_tensors(checkpoint.path).items()}
    tensors["h.0.attn.c_attn.bias"][:] = 0.0
    save_file(tensors, str(folder / "model.safetensors"))
    for name in ("encoder.json", "vocab.bpe"):
        if (checkpoint.path.parent / name).is_file():
            (folder / name).symlink_to(checkpoint.path.parent / name)
    return folder


def test_chapter_01_reports_l2_failed_with_the_measured_norm(zero_bias_checkpoint, tmp_path):
    env = {**os.environ, ENV_VAR: str(zero_bias_checkpoint), ALLOW_MODIFIED_VAR: "1",
           LEDGER_DIR_VAR: str(tmp_path)}
    executed = tmp_path / "01.ipynb"
    run = subprocess.run([sys.executable, "-m", "jupytext", "--to", "ipynb", "--execute",
                          "book/01_one_row_three_lenses.md", "-o", str(executed)], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]  # it runs on and records
    out = "\n".join(o.get("text", "") + o.get("data", {}).get("text/markdown", "")
                    for c in nbformat.read(executed, 4).cells for o in c.get("outputs", []))
    assert "modified weights: not GPT-2 small as released" in out
    assert ("L2 failed: smallest lens bias, in rounding units of its lens's output = 0 on the "
            "loaded weights / A") in out and "expected > 1" in out, out[-3000:]
    records = {r["claim"]: r for r in
               json.loads((tmp_path / "book__01_one_row_three_lenses.json").read_text())
               ["records"]}
    assert records["L2"]["status"] == FAILED and "= 0 on" in records["L2"]["reason"]
    assert all(r["status"] != VERIFIED for r in records.values())
