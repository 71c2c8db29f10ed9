"""An independent reference for one attention layer: ONNX Runtime's own kernels.

The book names the standard ONNX operators of layer 0's attention as `transformers` runs
it (``ln_1``, then ``GPT2Attention``) and how they connect: ``LayerNormalization``, one
``Gemm`` with the fused ``c_attn``, the head split (``Reshape`` into heads, ``Transpose``),
``Attention`` with its causal mask (``is_causal``) and one ``Gemm`` with ``c_proj``. What
each operator computes (the normalisation, the products, the scores, the mask, the
softmax) is ONNX Runtime's CPU kernel, code the book did not write. (PyTorch would be as
independent, but importing it alone takes more than a second; ONNX Runtime and the
``onnx`` package that writes the graph take a fraction of one.)
"""

from __future__ import annotations

import functools

import numpy as np

LAYER_INPUTS = (("ln_w", "ln_1.weight"), ("ln_b", "ln_1.bias"), ("W", "attn.c_attn.weight"),
                ("b", "attn.c_attn.bias"), ("W_O", "attn.c_proj.weight"),
                ("b_O", "attn.c_proj.bias"))


def layer_graph(d_model: int, n_head: int, eps: float, causal: bool):
    """The ONNX model of one attention layer: inputs x [T, d_model] and the layer's
    tensors; outputs q, k, v [1, heads, T, d_head] and the layer's output [T, d_model]."""
    from onnx import TensorProto, helper

    f32, i64, d_head = TensorProto.FLOAT, TensorProto.INT64, d_model // n_head
    shapes = {"x": ["T", d_model], "ln_w": [d_model], "ln_b": [d_model],
              "W": [d_model, 3 * d_model], "b": [3 * d_model], "W_O": [d_model, d_model],
              "b_O": [d_model]}
    inputs = [helper.make_tensor_value_info(n, f32, s) for n, s in shapes.items()]
    constants = [helper.make_tensor("heads", i64, [4], [1, -1, n_head, d_head]),
                 helper.make_tensor("rows", i64, [2], [-1, d_model])]
    node = helper.make_node
    nodes = [node("LayerNormalization", ["x", "ln_w", "ln_b"], ["x_ln"], axis=-1,
                  epsilon=eps),
             node("Gemm", ["x_ln", "W", "b"], ["qkv"]),
             node("Split", ["qkv"], ["q_", "k_", "v_"], axis=1, num_outputs=3)]
    for a in "qkv":
        nodes += [node("Reshape", [a + "_", "heads"], [a + "_heads"]),
                  node("Transpose", [a + "_heads"], [a], perm=[0, 2, 1, 3])]
    nodes += [node("Attention", ["q", "k", "v"], ["z"], is_causal=int(causal)),
              node("Transpose", ["z"], ["z_rows"], perm=[0, 2, 1, 3]),
              node("Reshape", ["z_rows", "rows"], ["z_cat"]),
              node("Gemm", ["z_cat", "W_O", "b_O"], ["out"])]
    outputs = [helper.make_tensor_value_info(a, f32, None) for a in ("q", "k", "v", "out")]
    graph = helper.make_graph(nodes, "attention_layer", inputs, outputs,
                              initializer=constants)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])


@functools.lru_cache(maxsize=4)
def session(d_model: int, n_head: int, eps: float, causal: bool):
    """An ONNX Runtime session for the layer graph (one thread: these products are small,
    and a second thread only adds synchronisation)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    model = layer_graph(d_model, n_head, eps, causal)
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def run_layer(model, x: np.ndarray, layer: int = 0, causal: bool = True
              ) -> tuple[list[np.ndarray], np.ndarray]:
    """q, k, v [heads, T, d_head] and the layer's output [T, d_model], computed by ONNX
    Runtime from a ``GPT2``'s stored tensors."""
    cfg = model.config
    feeds = {"x": np.asarray(x, np.float32)} | {
        name: np.asarray(model.tensors[f"h.{layer}.{stored}"]) for name, stored in LAYER_INPUTS}
    q, k, v, out = session(cfg.d_model, cfg.n_head, cfg.eps, causal).run(None, feeds)
    return [q[0], k[0], v[0]], out
