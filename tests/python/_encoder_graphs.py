"""Small pre-LayerNormalization transformer encoders written the way PyTorch exports write
them (standard ops only), with random weights, for the tests that run them before and
after ONNX Runtime's transformer optimizer:
- vit_encoder: a ViT image encoder (Conv patch embedding, a class token, attention with
  no mask scaled by Div, erf GELU): model_type "vit" fuses it into Attention,
  SkipLayerNormalization and BiasGelu;
- clip_text_encoder: a CLIP text encoder (token and position embeddings, attention scaled
  by Mul with the additive causal mask fed as `attention_mask`, x * sigmoid(1.702 x)):
  model_type "clip" fuses it into Attention with attention_bias, SkipLayerNormalization
  and QuickGelu;
- t5_encoder: a T5 encoder stack (RMS norms as Pow/ReduceMean/Add/Sqrt/Reciprocal/Mul,
  unscaled attention plus a position bias fed as `position_bias`, ReLU feed-forward
  without biases): model_type "t5" fuses its norms into SimplifiedLayerNormalization and
  SkipSimplifiedLayerNormalization (its attention fusion wants the relative position
  bucket subgraph and writes RelativePositionBias, which has no CPU kernel in ORT)."""

from __future__ import annotations

import math

import numpy as np

from onnx_light.onnx import TensorProto, helper, numpy_helper


class _Graph:
    def __init__(self, hidden, seed):
        self.rng = np.random.default_rng(seed)
        self.hidden = hidden
        self.inits, self.nodes = [], []

    def w(self, name, *shape, scale=0.2, value=None):
        arr = value if value is not None else self.rng.standard_normal(shape) * scale
        dtype = np.int64 if np.asarray(arr).dtype.kind == "i" else np.float32
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype), name))
        return name

    def node(self, op, ins, out, **attrs):
        self.nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out

    def layer_norm(self, x, name):
        hidden = self.hidden
        g = self.w(f"{name}.gamma", hidden, value=1 + self.rng.standard_normal(hidden) * 0.1)
        b = self.w(f"{name}.beta", hidden, scale=0.1)
        return self.node("LayerNormalization", [x, g, b], f"{name}.out", axis=-1, epsilon=1e-5)

    def linear(self, x, name, n_in, n_out):
        m = self.node("MatMul", [x, self.w(f"{name}.weight", n_in, n_out)], f"{name}.mm")
        return self.node("Add", [self.w(f"{name}.bias", n_out, scale=0.1), m], f"{name}.out")

    def layers(self, x, count, heads, ffn, clip):
        """Pre-LN layers: x + attention(LN(x)), then x + MLP(LN(x)); a final LN."""
        hidden, head = self.hidden, self.hidden // heads
        w, node = self.w, self.node
        split = w("split_shape", value=[0, 0, heads, head])
        merge = w("merge_shape", value=[0, 0, hidden])
        for i in range(count):
            p = f"l{i}"
            h = self.layer_norm(x, f"{p}.ln_before")
            qkv = {}
            for name, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
                t = self.linear(h, f"{p}.{name}", hidden, hidden)
                t = node("Reshape", [t, split], f"{p}.{name}.split")
                qkv[name] = node("Transpose", [t], f"{p}.{name}.t", perm=perm)
            sc = node("MatMul", [qkv["q"], qkv["k"]], f"{p}.scores")
            if clip:
                scale = w(f"{p}.scale", value=np.float32(1 / math.sqrt(head)))
                sc = node("Mul", [sc, scale], f"{p}.scaled")
                sc = node("Add", [sc, "attention_mask"], f"{p}.masked")
            else:
                sqrt_d = w(f"{p}.sqrt_d", value=np.float32(math.sqrt(head)))
                sc = node("Div", [sc, sqrt_d], f"{p}.scaled")
            pr = node("Softmax", [sc], f"{p}.probs", axis=-1)
            ctx = node("MatMul", [pr, qkv["v"]], f"{p}.ctx")
            ctx = node("Transpose", [ctx], f"{p}.ctx.t", perm=[0, 2, 1, 3])
            ctx = node("Reshape", [ctx, merge], f"{p}.ctx.merged")
            o = self.linear(ctx, f"{p}.o", hidden, hidden)
            # The residual Add's operand order as each export writes it (the fusions match it).
            x = node("Add", [x, o] if clip else [o, x], f"{p}.res1")
            f = self.linear(self.layer_norm(x, f"{p}.ln_after"), f"{p}.ffn1", hidden, ffn)
            if clip:  # x * sigmoid(1.702 x)
                e = node("Mul", [f, w(f"{p}.qg.alpha", value=np.float32(1.702))], f"{p}.qg.ax")
                e = node("Sigmoid", [e], f"{p}.qg.sig")
                e = node("Mul", [f, e], f"{p}.qg.out")
            else:  # erf GELU
                e = node("Div", [f, w(f"{p}.sqrt2", value=np.float32(math.sqrt(2.0)))], f"{p}.g.d")
                e = node("Erf", [e], f"{p}.g.erf")
                e = node("Add", [e, w(f"{p}.g.one", value=np.float32(1.0))], f"{p}.g.e1")
                e = node("Mul", [f, e], f"{p}.g.m")
                e = node("Mul", [e, w(f"{p}.g.half", value=np.float32(0.5))], f"{p}.g.out")
            f = self.linear(e, f"{p}.ffn2", ffn, hidden)
            x = node("Add", [x, f] if clip else [f, x], f"{p}.res2")
        x = self.layer_norm(x, "final_ln")
        self.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))

    def rms_norm(self, x, name):
        """T5's RMS norm: x * rsqrt(mean(x^2) + eps) * weight, as the export writes it."""
        node, w = self.node, self.w
        sq = node("Pow", [x, w(f"{name}.two", value=np.float32(2.0))], f"{name}.sq")
        ms = node("ReduceMean", [sq], f"{name}.ms", axes=[-1], keepdims=1)
        ms = node("Add", [ms, w(f"{name}.eps", value=np.float32(1e-6))], f"{name}.mse")
        inv = node("Reciprocal", [node("Sqrt", [ms], f"{name}.rms")], f"{name}.inv")
        xn = node("Mul", [x, inv], f"{name}.xn")
        scale = w(
            f"{name}.weight", self.hidden, value=1 + self.rng.standard_normal(self.hidden) * 0.1
        )
        return node("Mul", [scale, xn], f"{name}.out")

    def t5_layers(self, x, count, heads, ffn):
        hidden, head = self.hidden, self.hidden // heads
        w, node = self.w, self.node
        split = w("split_shape", value=[0, -1, heads, head])
        merge = w("merge_shape", value=[0, -1, hidden])
        for i in range(count):
            p = f"l{i}"
            h = self.rms_norm(x, f"{p}.ln_before")
            qkv = {}
            for name, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
                t = node("MatMul", [h, w(f"{p}.{name}.weight", hidden, hidden)], f"{p}.{name}")
                t = node("Reshape", [t, split], f"{p}.{name}.split")
                qkv[name] = node("Transpose", [t], f"{p}.{name}.t", perm=perm)
            sc = node("MatMul", [qkv["q"], qkv["k"]], f"{p}.scores")
            sc = node("Add", [sc, "position_bias"], f"{p}.biased")
            pr = node("Softmax", [sc], f"{p}.probs", axis=-1)
            ctx = node("MatMul", [pr, qkv["v"]], f"{p}.ctx")
            ctx = node("Transpose", [ctx], f"{p}.ctx.t", perm=[0, 2, 1, 3])
            ctx = node("Reshape", [ctx, merge], f"{p}.ctx.merged")
            o = node("MatMul", [ctx, w(f"{p}.o.weight", hidden, hidden)], f"{p}.o")
            x = node("Add", [x, o], f"{p}.res1")
            h = self.rms_norm(x, f"{p}.ln_after")
            f = node("MatMul", [h, w(f"{p}.wi", hidden, ffn)], f"{p}.wi.out")
            f = node("Relu", [f], f"{p}.relu")
            f = node("MatMul", [f, w(f"{p}.wo", ffn, hidden)], f"{p}.wo.out")
            x = node("Add", [x, f], f"{p}.res2")
        x = self.rms_norm(x, "final_ln")
        self.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))

    def model(self, name, inputs, opset):
        out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, None)
        graph = helper.make_graph(self.nodes, name, inputs, [out], self.inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def vit_encoder(layers=2, hidden=32, heads=4, ffn=64, image=16, patch=4, seed=0, opset=17):
    """ModelProto with input pixel_values float [B, 3, image, image] and output
    last_hidden_state [B, 1 + (image / patch)^2, hidden]."""
    g = _Graph(hidden, seed)
    w, node = g.w, g.node
    weight = w("patch.weight", hidden, 3, patch, patch)
    c = node(
        "Conv",
        ["pixel_values", weight, w("patch.bias", hidden)],
        "patch.conv",
        kernel_shape=[patch, patch],
        strides=[patch, patch],
    )
    c = node("Reshape", [c, w("patch.shape", value=[0, hidden, -1])], "patch.flat")
    c = node("Transpose", [c], "patch.t", perm=[0, 2, 1])
    batch = node("Shape", ["pixel_values"], "cls.shape")
    batch = node("Slice", [batch, w("zero1", value=[0]), w("one1", value=[1])], "cls.batch")
    target = node("Concat", [batch, w("cls.rest", value=[1, hidden])], "cls.target", axis=0)
    cls = node("Expand", [w("cls_token", 1, 1, hidden), target], "cls.expand")
    x = node("Concat", [cls, c], "emb.cat", axis=1)
    tokens = 1 + (image // patch) ** 2
    x = node("Add", [x, w("position_embeddings", 1, tokens, hidden)], "emb.out")
    g.layers(x, layers, heads, ffn, clip=False)
    shape = ["batch", 3, image, image]
    return g.model("vit", [helper.make_tensor_value_info("pixel_values", 1, shape)], opset)


def clip_text_encoder(layers=2, hidden=32, heads=4, ffn=64, vocab=100, max_pos=32, seed=0):
    """ModelProto with inputs input_ids int64 [B, S] and attention_mask float [B, 1, S, S]
    (additive: 0 or a large negative value; causal_mask() gives CLIP's) and output
    last_hidden_state [B, S, hidden]."""
    g = _Graph(hidden, seed)
    w, node = g.w, g.node
    tok = node("Gather", [w("token_embedding", vocab, hidden), "input_ids"], "emb.tok")
    shape = node("Shape", ["input_ids"], "emb.shape")
    seq = node("Gather", [shape, w("one_i", value=1)], "emb.seq")
    pos_ids = node("Range", [w("zero_i", value=0), seq, w("one_step", value=1)], "emb.pos_ids")
    pos = node("Gather", [w("position_embedding", max_pos, hidden), pos_ids], "emb.pos")
    x = node("Add", [tok, pos], "emb.out")
    g.layers(x, layers, heads, ffn, clip=True)
    ins = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info(
            "attention_mask", TensorProto.FLOAT, ["batch", 1, "seq", "seq"]
        ),
    ]
    return g.model("clip_text", ins, 17)


def t5_encoder(layers=2, hidden=32, heads=4, ffn=64, vocab=100, seed=0):
    """ModelProto with inputs input_ids int64 [B, S] and position_bias float [1, heads, S,
    S] (added to the unscaled scores) and output last_hidden_state [B, S, hidden]."""
    g = _Graph(hidden, seed)
    x = g.node("Gather", [g.w("shared", vocab, hidden), "input_ids"], "emb")
    g.t5_layers(x, layers, heads, ffn)
    ins = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info("position_bias", TensorProto.FLOAT, [1, heads, "seq", "seq"]),
    ]
    return g.model("t5_encoder", ins, 17)


def causal_mask(batch, seq, pad=0):
    """CLIP's additive mask: keys after the query masked, and the last `pad` keys of every
    batch entry after the first (padding)."""
    m = np.triu(np.full((seq, seq), np.finfo(np.float32).min, np.float32), 1)
    m = np.repeat(m[None, None], batch, 0)
    if pad:
        m[1:, :, :, seq - pad :] = np.finfo(np.float32).min
    return m
