"""A small BERT encoder written the way a PyTorch export writes it (standard ops only:
Gather embeddings, LayerNormalization, the MatMul/Reshape/Transpose attention with the
(1 - mask) * -10000 key mask, erf GELU), with random weights; for the tests and benchmarks
that run it before and after ONNX Runtime's own tools rewrite it (the transformer optimizer
fuses it into EmbedLayerNormalization, Attention, SkipLayerNormalization and BiasGelu)."""

from __future__ import annotations

import math

import numpy as np

from onnx_light.onnx import TensorProto, helper, numpy_helper


def bert_encoder(layers=2, hidden=32, heads=4, ffn=64, vocab=100, max_pos=64, seed=0, opset=17):
    """ModelProto with inputs input_ids, token_type_ids, attention_mask (int64 [B, S]) and
    output last_hidden_state [B, S, hidden]."""
    rng = np.random.default_rng(seed)
    inits, nodes = [], []
    head = hidden // heads

    def w(name, *shape, scale=0.2, value=None):
        arr = value if value is not None else rng.standard_normal(shape) * scale
        dtype = np.int64 if np.asarray(arr).dtype.kind == "i" else np.float32
        inits.append(numpy_helper.from_array(np.asarray(arr, dtype), name))
        return name

    def node(op, ins, out, **attrs):
        nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out

    def layer_norm(x, name):
        g = w(f"{name}.gamma", hidden, value=1 + rng.standard_normal(hidden) * 0.1)
        b = w(f"{name}.beta", hidden, scale=0.1)
        return node("LayerNormalization", [x, g, b], f"{name}.out", axis=-1, epsilon=1e-12)

    def linear(x, name, n_in, n_out):
        m = node("MatMul", [x, w(f"{name}.weight", n_in, n_out)], f"{name}.mm")
        return node("Add", [m, w(f"{name}.bias", n_out, scale=0.1)], f"{name}.out")

    # Embeddings: word + position (positions 0..S-1 from the ids' shape) + token type.
    word = node("Gather", [w("word_embeddings", vocab, hidden), "input_ids"], "emb.word")
    shape = node("Shape", ["input_ids"], "emb.shape")
    seq = node("Gather", [shape, w("one_i", value=1)], "emb.seq")
    pos_ids = node("Range", [w("zero_i", value=0), seq, w("one_step", value=1)], "emb.pos_ids")
    pos_ids = node("Unsqueeze", [pos_ids, w("axes0", value=[0])], "emb.pos_ids2")
    pos = node("Gather", [w("position_embeddings", max_pos, hidden), pos_ids], "emb.pos")
    typ = node("Gather", [w("token_type_embeddings", 2, hidden), "token_type_ids"], "emb.type")
    s = node("Add", [word, pos], "emb.add1")
    s = node("Add", [s, typ], "emb.add2")
    x = layer_norm(s, "emb.ln")

    # Key mask (1 - mask) * -10000 as [B, 1, 1, S].
    m = node("Unsqueeze", ["attention_mask", w("axes1", value=[1])], "mask.u1")
    m = node("Unsqueeze", [m, w("axes2", value=[2])], "mask.u2")
    m = node("Cast", [m], "mask.f", to=TensorProto.FLOAT)
    m = node("Sub", [w("one_f", value=np.float32(1.0)), m], "mask.inv")
    mask = node("Mul", [m, w("neg_big", value=np.float32(-10000.0))], "mask.bias")

    split = w("split_shape", value=[0, 0, heads, head])
    merge = w("merge_shape", value=[0, 0, hidden])
    for i in range(layers):
        p = f"l{i}"

        def proj(name, perm):
            t = linear(x, f"{p}.{name}", hidden, hidden)
            t = node("Reshape", [t, split], f"{p}.{name}.split")
            return node("Transpose", [t], f"{p}.{name}.t", perm=perm)

        q = proj("q", [0, 2, 1, 3])
        k = proj("k", [0, 2, 3, 1])
        v = proj("v", [0, 2, 1, 3])
        sc = node("MatMul", [q, k], f"{p}.scores")
        sc = node("Div", [sc, w(f"{p}.sqrt_d", value=np.float32(math.sqrt(head)))], f"{p}.scaled")
        sc = node("Add", [sc, mask], f"{p}.masked")
        pr = node("Softmax", [sc], f"{p}.probs", axis=3)
        ctx = node("MatMul", [pr, v], f"{p}.ctx")
        ctx = node("Transpose", [ctx], f"{p}.ctx.t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, merge], f"{p}.ctx.merged")
        o = linear(ctx, f"{p}.o", hidden, hidden)
        x = layer_norm(node("Add", [o, x], f"{p}.res1"), f"{p}.ln1")
        h = linear(x, f"{p}.ffn1", hidden, ffn)
        e = node("Div", [h, w(f"{p}.sqrt2", value=np.float32(math.sqrt(2.0)))], f"{p}.gelu.d")
        e = node("Erf", [e], f"{p}.gelu.erf")
        e = node("Add", [e, w(f"{p}.gelu.one", value=np.float32(1.0))], f"{p}.gelu.e1")
        e = node("Mul", [h, e], f"{p}.gelu.m")
        e = node("Mul", [e, w(f"{p}.gelu.half", value=np.float32(0.5))], f"{p}.gelu.out")
        f = linear(e, f"{p}.ffn2", ffn, hidden)
        x = layer_norm(node("Add", [f, x], f"{p}.res2"), f"{p}.ln2")
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    i64 = TensorProto.INT64
    ins = [
        helper.make_tensor_value_info(n, i64, ["batch", "seq"])
        for n in ("input_ids", "token_type_ids", "attention_mask")
    ]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "bert", ins, [out], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def bert_feeds(batch, seq, vocab=100, pad=0, seed=1):
    """input_ids, token_type_ids and attention_mask; the last `pad` positions of every
    batch after the first are padding."""
    rng = np.random.default_rng(seed)
    mask = np.ones((batch, seq), np.int64)
    if pad:
        mask[1:, seq - pad :] = 0
    return {
        "input_ids": rng.integers(0, vocab, (batch, seq)).astype(np.int64),
        "token_type_ids": (np.arange(seq)[None, :] >= seq // 2).astype(np.int64).repeat(batch, 0),
        "attention_mask": mask,
    }
