"""A GPT-style decoder written in ai.onnx ops the way a PyTorch export of a causal LM writes
one step with a KV cache (random weights): token and position embeddings, per layer a
pre-norm self-attention whose keys and values are appended to the past ones (Concat on the
sequence axis, `present_*` outputs), a causal mask built from the past length (Shape,
Range, Greater, Where), an Erf-form GELU MLP, a final LayerNormalization and the LM head.
Inputs: input_ids and position_ids [1, S] (int64), past_key_i / past_value_i
[1, heads, P, head_dim]; outputs: logits [1, S, vocab], present_key_i / present_value_i
[1, heads, P + S, head_dim]. bench/decoder_vs_ort.py and the tests build on it; quantized
forms come from onnxruntime's quantizers (quantize_dynamic, matmul_nbits_quantizer)."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def gpt_decoder(layers=2, hidden=64, heads=4, ffn=256, vocab=512, max_pos=1024, seed=0):
    rng = np.random.default_rng(seed)
    d = hidden // heads
    inits, nodes = [], []

    def w(name, *shape, scale=None, value=None):
        if value is None:
            s = scale if scale is not None else 1.0 / np.sqrt(shape[0])
            value = rng.standard_normal(shape) * s
        inits.append(numpy_helper.from_array(np.asarray(value, np.float32), name))
        return name

    def c(name, value, dtype=np.int64):
        inits.append(numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    def node(op, ins, outs, **attrs):
        outs = [outs] if isinstance(outs, str) else outs
        nodes.append(helper.make_node(op, ins, outs, name=outs[0] + "_" + op, **attrs))
        return outs[0]

    def layer_norm(x, name):
        g = w(name + "_g", hidden, value=1.0 + 0.1 * rng.standard_normal(hidden))
        b = w(name + "_b", hidden, value=0.1 * rng.standard_normal(hidden))
        return node("LayerNormalization", [x, g, b], name, axis=-1, epsilon=1e-5)

    def linear(x, name, n_in, n_out):
        y = node("MatMul", [x, w(name + "_w", n_in, n_out)], name + "_mm")
        return node(
            "Add", [y, w(name + "_bias", n_out, value=0.02 * rng.standard_normal(n_out))], name
        )

    c("heads_shape", [1, -1, heads, d])
    c("hidden_shape", [1, -1, hidden])
    c("zero", 0)
    c("one", 1)
    inits.append(numpy_helper.from_array(np.array(-1e4, np.float32), "neg"))
    inits.append(numpy_helper.from_array(np.array(0.0, np.float32), "fzero"))
    inits.append(numpy_helper.from_array(np.array(1 / np.sqrt(d), np.float32), "qk_scale"))
    inits.append(numpy_helper.from_array(np.array(np.sqrt(0.5), np.float32), "rsqrt2"))
    inits.append(numpy_helper.from_array(np.array(0.5, np.float32), "half"))
    inits.append(numpy_helper.from_array(np.array(1.0, np.float32), "fone"))

    tok = node("Gather", [w("wte", vocab, hidden, scale=0.5), "input_ids"], "tok")
    pos = node("Gather", [w("wpe", max_pos, hidden, scale=0.1), "position_ids"], "pos")
    x = node("Add", [tok, pos], "embed")

    # The causal mask [S, P + S] from the past length, as exports compute it.
    past_len = node("Shape", ["past_key_0"], "past_len", start=2, end=3)
    past_len = node("Squeeze", [past_len, c("axis0", [0])], "past_len_s")
    seq = node("Shape", ["input_ids"], "seq_len", start=1, end=2)
    seq = node("Squeeze", [seq, "axis0"], "seq_len_s")
    total = node("Add", [past_len, seq], "total_len")
    q_idx = node("Range", [past_len, total, "one"], "q_idx")
    q_idx = node("Unsqueeze", [q_idx, c("axis1", [1])], "q_idx_col")
    k_idx = node("Range", ["zero", total, "one"], "k_idx")
    future = node("Greater", [k_idx, q_idx], "future")
    mask = node("Where", [future, "neg", "fzero"], "causal_mask")

    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "seq"]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, "seq"]),
    ]
    outputs = []
    for i in range(layers):
        p = f"l{i}"
        h = layer_norm(x, p + "_ln1")
        qkv = linear(h, p + "_qkv", hidden, 3 * hidden)
        q, k, v = p + "_q", p + "_k", p + "_v"
        node("Split", [qkv, c(p + "_split", [hidden] * 3)], [q, k, v], axis=-1)

        def heads_first(t):
            r = node("Reshape", [t, "heads_shape"], t + "_r")
            return node("Transpose", [r], t + "_t", perm=[0, 2, 1, 3])

        q, k, v = heads_first(q), heads_first(k), heads_first(v)
        pk, pv = f"past_key_{i}", f"past_value_{i}"
        inputs += [
            helper.make_tensor_value_info(pk, TensorProto.FLOAT, [1, heads, "past", d]),
            helper.make_tensor_value_info(pv, TensorProto.FLOAT, [1, heads, "past", d]),
        ]
        k_all = node("Concat", [pk, k], f"present_key_{i}", axis=2)
        v_all = node("Concat", [pv, v], f"present_value_{i}", axis=2)
        outputs += [
            helper.make_tensor_value_info(k_all, TensorProto.FLOAT, [1, heads, "total", d]),
            helper.make_tensor_value_info(v_all, TensorProto.FLOAT, [1, heads, "total", d]),
        ]
        kt = node("Transpose", [k_all], p + "_kt", perm=[0, 1, 3, 2])
        s = node("MatMul", [q, kt], p + "_scores")
        s = node("Mul", [s, "qk_scale"], p + "_scaled")
        s = node("Add", [s, mask], p + "_masked")
        a = node("Softmax", [s], p + "_probs", axis=-1)
        o = node("MatMul", [a, v_all], p + "_ctx")
        o = node("Transpose", [o], p + "_ctx_t", perm=[0, 2, 1, 3])
        o = node("Reshape", [o, "hidden_shape"], p + "_ctx_r")
        o = linear(o, p + "_proj", hidden, hidden)
        x = node("Add", [x, o], p + "_res1")
        h = layer_norm(x, p + "_ln2")
        f = linear(h, p + "_fc1", hidden, ffn)
        e = node("Mul", [f, "rsqrt2"], p + "_gs")
        e = node("Erf", [e], p + "_erf")
        e = node("Add", [e, "fone"], p + "_erf1")
        e = node("Mul", [f, e], p + "_gm")
        e = node("Mul", [e, "half"], p + "_gelu")
        f = linear(e, p + "_fc2", ffn, hidden)
        x = node("Add", [x, f], p + "_res2")
    x = layer_norm(x, "ln_f")
    logits = node("MatMul", [x, w("lm_head", hidden, vocab)], "logits")
    outputs.insert(0, helper.make_tensor_value_info(logits, TensorProto.FLOAT, [1, "seq", vocab]))
    graph = helper.make_graph(nodes, "gpt_decoder", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def decoder_feeds(model_layers, heads, head_dim, past, tokens, seed=0):
    """Feeds for one step: `tokens` new ids after `past` cached positions (random cache)."""
    rng = np.random.default_rng(seed)
    feeds = {
        "input_ids": rng.integers(0, 500, (1, tokens)).astype(np.int64),
        "position_ids": np.arange(past, past + tokens, dtype=np.int64)[None],
    }
    for i in range(model_layers):
        for kind in ("key", "value"):
            feeds[f"past_{kind}_{i}"] = rng.standard_normal((1, heads, past, head_dim)).astype(
                np.float32
            )
    return feeds
