"""Models that went through ONNX Runtime's own tools, as users make them: a BERT encoder
written as a PyTorch export writes it (tests/python/_bert_graph.py) and rewritten by
onnxruntime.transformers.optimizer, and graphs ORT saves itself at the extended level
(SessionOptions.optimized_model_filepath), CNNs through the static quantizer and a GPT-style
decoder with a KV cache (tests/python/_decoder_graph.py) through quantize_dynamic and the
4-bit quantizer. onnx-light runs the rewritten model; the reference is ORT on the original,
standard-op model (and ORT on the rewritten one).
Tolerance: float32, atol 2e-5 relative to outputs of order 1 (the fusions reorder sums)."""

from __future__ import annotations

import collections

import numpy as np
import onnxruntime as ort  # noqa: E402  (an oracle, in the test venv)
import pytest
from _bert_graph import bert_encoder, bert_feeds

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

ATOL = 2e-5


def ops_of(model) -> collections.Counter:
    return collections.Counter((n.domain or "ai.onnx", n.op_type) for n in model.graph.node)


def ort_session(path_or_bytes, level=None, save_to=None):
    so = ort.SessionOptions()
    so.graph_optimization_level = level or ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    if save_to:
        so.optimized_model_filepath = str(save_to)
    return ort.InferenceSession(path_or_bytes, so, providers=["CPUExecutionProvider"])


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    """(original path, optimizer-fused path)."""
    from onnxruntime.transformers import optimizer

    d = tmp_path_factory.mktemp("bert")
    src = d / "bert.onnx"
    src.write_bytes(bert_encoder().SerializeToString())
    fused = optimizer.optimize_model(
        str(src), model_type="bert", num_heads=4, hidden_size=32, opt_level=0
    )
    out = d / "bert_fused.onnx"
    fused.save_model_to_file(str(out))
    return src, out


def check_against_ort(original, rewritten_bytes, feeds):
    want = ort_session(str(original)).run(None, feeds)
    ort_rewritten = ort_session(rewritten_bytes).run(None, feeds)
    got = onnx_light.RuntimeSession(rewritten_bytes).run(None, feeds)
    assert len(got) == len(want)
    for g, w, o in zip(got, want, ort_rewritten):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=ATOL)
        np.testing.assert_allclose(g, o, rtol=1e-4, atol=ATOL)


def test_the_transformer_optimizer_fuses_the_whole_bert(bert):
    from onnx_light.onnx import load_model

    ops = ops_of(load_model(str(bert[1])))
    ms = {op: n for (dom, op), n in ops.items() if dom == "com.microsoft"}
    assert ms == {
        "EmbedLayerNormalization": 1,
        "Attention": 2,
        "SkipLayerNormalization": 4,
        "BiasGelu": 2,
    }, ops
    assert ("ai.onnx", "Softmax") not in ops and ("ai.onnx", "LayerNormalization") not in ops


@pytest.mark.parametrize(
    "batch,seq,pad", [(1, 1, 0), (1, 9, 0), (2, 7, 2), (3, 16, 5), (2, 33, 32)]
)
def test_bert_fused_by_the_transformer_optimizer_matches_the_original(bert, batch, seq, pad):
    check_against_ort(bert[0], bert[1].read_bytes(), bert_feeds(batch, seq, pad=pad))


def test_bert_saved_by_ort_at_the_extended_level(bert, tmp_path):
    saved = tmp_path / "bert_ext.onnx"
    ort_session(str(bert[0]), ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, saved)
    from onnx_light.onnx import load_model

    ops = ops_of(load_model(str(saved)))
    assert ops[("com.microsoft", "BiasGelu")] == 2 and ops[("com.microsoft", "FusedMatMul")], ops
    for batch, seq, pad in [(1, 5, 0), (2, 11, 3)]:
        check_against_ort(bert[0], saved.read_bytes(), bert_feeds(batch, seq, pad=pad))


def mixed_graph():
    """Patterns ORT fuses at the extended level: Conv+Relu, Gemm+Relu, x*sigmoid(1.702x),
    MatMul+Add+erf GELU, a residual Add + LayerNormalization, MatMul of a transpose."""
    rng = np.random.default_rng(3)
    F = TensorProto.FLOAT

    def c(name, arr):
        return numpy_helper.from_array(np.asarray(arr, np.float32), name)

    inits = [
        c("W1", rng.standard_normal((8, 16))),
        c("b1", rng.standard_normal(16)),
        c("sqrt2", np.sqrt(2.0)),
        c("one", 1.0),
        c("half", 0.5),
        c("W2", rng.standard_normal((16, 8)) * 0.3),
        c("b2", rng.standard_normal(8)),
        c("gamma", rng.standard_normal(8)),
        c("beta", rng.standard_normal(8)),
        c("CW", rng.standard_normal((4, 3, 3, 3))),
        c("CB", rng.standard_normal(4)),
        c("GW", rng.standard_normal((5, 6))),
        c("GB", rng.standard_normal(6)),
        c("q", 1.702),
    ]
    n = helper.make_node
    nodes = [
        n("MatMul", ["x", "W1"], ["m1"]),
        n("Add", ["m1", "b1"], ["a1"]),
        n("Div", ["a1", "sqrt2"], ["d"]),
        n("Erf", ["d"], ["e"]),
        n("Add", ["e", "one"], ["e1"]),
        n("Mul", ["a1", "e1"], ["g0"]),
        n("Mul", ["g0", "half"], ["g"]),
        n("MatMul", ["g", "W2"], ["m2"]),
        n("Add", ["m2", "b2"], ["a2"]),
        n("Add", ["a2", "x"], ["r"]),
        n("LayerNormalization", ["r", "gamma", "beta"], ["y"], axis=-1, epsilon=1e-5),
        n("Transpose", ["x"], ["xt"], perm=[0, 2, 1]),
        n("MatMul", ["xt", "x"], ["yt"]),
        n("Conv", ["img", "CW", "CB"], ["cv"], pads=[1, 1, 1, 1]),
        n("Relu", ["cv"], ["yc"]),
        n("Gemm", ["gx", "GW", "GB"], ["gm"]),
        n("Relu", ["gm"], ["yg"]),
        n("Mul", ["gx", "q"], ["qx"]),
        n("Sigmoid", ["qx"], ["qs"]),
        n("Mul", ["gx", "qs"], ["yq"]),
    ]
    graph = helper.make_graph(
        nodes,
        "mixed",
        [
            helper.make_tensor_value_info("x", F, ["b", "s", 8]),
            helper.make_tensor_value_info("img", F, [1, 3, "h", "w"]),
            helper.make_tensor_value_info("gx", F, ["n", 5]),
        ],
        [helper.make_tensor_value_info(o, F, None) for o in ("y", "yt", "yc", "yg", "yq")],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("shape", [(1, 1, 1, 1), (2, 5, 7, 3), (3, 4, 9, 10)])
def test_a_graph_saved_by_ort_at_the_extended_level(tmp_path, shape):
    b, s, h, w = shape
    src, saved = tmp_path / "mixed.onnx", tmp_path / "mixed_ext.onnx"
    src.write_bytes(mixed_graph().SerializeToString())
    ort_session(str(src), ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, saved)
    from onnx_light.onnx import load_model

    ms = {op for dom, op in ops_of(load_model(str(saved))) if dom == "com.microsoft"}
    assert ms == {
        "BiasGelu",
        "FusedConv",
        "FusedGemm",
        "FusedMatMul",
        "QuickGelu",
        "SkipLayerNormalization",
    }, ms
    rng = np.random.default_rng(b * 100 + s)
    feeds = {
        "x": rng.standard_normal((b, s, 8)).astype(np.float32),
        "img": rng.standard_normal((1, 3, h, w)).astype(np.float32),
        "gx": rng.standard_normal((b, 5)).astype(np.float32),
    }
    check_against_ort(src, saved.read_bytes(), feeds)


# ---- ORT's quantizers ------------------------------------------------------------------


def small_cnn():
    """Conv, Relu, MaxPool, LeakyRelu, a residual Add, x * sigmoid(conv x), Concat,
    GlobalAveragePool, Gemm, Softmax: the ops ORT's static quantizer writes QOperator
    kernels for."""
    rng = np.random.default_rng(4)
    F = TensorProto.FLOAT

    def c(name, arr):
        return numpy_helper.from_array(np.asarray(arr, np.float32), name)

    inits = [
        c("w1", rng.standard_normal((8, 3, 3, 3)) * 0.3),
        c("b1", rng.standard_normal(8) * 0.1),
        c("w2", rng.standard_normal((8, 8, 3, 3)) * 0.2),
        c("b2", rng.standard_normal(8) * 0.1),
        c("w3", rng.standard_normal((8, 8, 1, 1)) * 0.2),
        c("gw", rng.standard_normal((16, 10)) * 0.3),
        c("gb", rng.standard_normal(10) * 0.1),
    ]
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        n("Relu", ["c1"], ["r1"]),
        n("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        n("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
        n("LeakyRelu", ["c2"], ["l2"], alpha=0.1),
        n("Add", ["l2", "p1"], ["a2"]),
        n("Conv", ["a2", "w3"], ["c3"]),
        n("Sigmoid", ["c3"], ["s3"]),
        n("Mul", ["a2", "s3"], ["m3"]),
        n("Concat", ["m3", "a2"], ["cat"], axis=1),
        n("GlobalAveragePool", ["cat"], ["g"]),
        n("Flatten", ["g"], ["f"]),
        n("Gemm", ["f", "gw", "gb"], ["logits"]),
        n("Softmax", ["logits"], ["prob"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("x", F, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("prob", F, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.fixture(scope="module")
def quantized_cnns(tmp_path_factory):
    """{(format, activation type): path} of the CNN through quantize_static."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    d = tmp_path_factory.mktemp("cnn")
    src = d / "cnn.onnx"
    src.write_bytes(small_cnn().SerializeToString())
    rng = np.random.default_rng(5)
    calibration = [{"x": rng.standard_normal((1, 3, 16, 16)).astype(np.float32)} for _ in range(8)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(calibration)

        def get_next(self):
            return next(self.it, None)

    out = {}
    for fmt in ("QOperator", "QDQ"):
        for act in ("QUInt8", "QInt8"):
            path = d / f"cnn_{fmt}_{act}.onnx"
            quantize_static(
                str(src),
                str(path),
                Reader(),
                quant_format=getattr(QuantFormat, fmt),
                activation_type=getattr(QuantType, act),
                weight_type=QuantType.QInt8,
            )
            out[(fmt, act)] = path
    return out


def check_quantized(path, feeds, codes=1):
    """onnx-light against ORT on the same quantized model: outputs `codes` output codes
    (a probability of scale 1/255: 1/255 each) apart at most, as the integer kernels may round one value
    differently (tests/python/kernels/com_microsoft/ states each kernel's exactness)."""
    data = path.read_bytes()
    got = onnx_light.RuntimeSession(data).run(None, feeds)
    want = ort_session(data).run(None, feeds)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, atol=codes / 255 + 1e-6)


@pytest.mark.parametrize("act", ["QUInt8", "QInt8"])
def test_a_cnn_quantized_by_ort_in_qoperator_format(quantized_cnns, act):
    from onnx_light.onnx import load_model

    path = quantized_cnns[("QOperator", act)]
    ms = {op for dom, op in ops_of(load_model(str(path))) if dom == "com.microsoft"}
    assert ms == {
        "QGemm",
        "QLinearAdd",
        "QLinearConcat",
        "QLinearGlobalAveragePool",
        "QLinearLeakyRelu",
        "QLinearMul",
        "QLinearSigmoid",
        "QLinearSoftmax",
    }, ms
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal((1, 3, 16, 16)).astype(np.float32)
        check_quantized(path, {"x": x})


@pytest.mark.parametrize("act", ["QUInt8", "QInt8"])
def test_a_qdq_cnn_and_its_saved_extended_level_graph(quantized_cnns, act, tmp_path):
    from onnx_light.onnx import load_model

    src = quantized_cnns[("QDQ", act)]
    saved = tmp_path / "ext.onnx"
    ort_session(str(src), ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, saved)
    ms = {op for dom, op in ops_of(load_model(str(saved))) if dom == "com.microsoft"}
    assert {"QGemm", "QLinearGlobalAveragePool", "QLinearSoftmax"} <= ms, ms
    x = np.random.default_rng(9).standard_normal((1, 3, 16, 16)).astype(np.float32)
    check_quantized(src, {"x": x})
    check_quantized(saved, {"x": x})


@pytest.fixture(scope="module")
def dynamic_berts(bert, tmp_path_factory):
    """The unfused BERT through quantize_dynamic (uint8 and int8 weights), each with the
    graph ORT saves from it at the extended level (DynamicQuantizeMatMul,
    MatMulIntegerToFloat)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    d = tmp_path_factory.mktemp("dyn")
    out = {}
    for wt in ("QUInt8", "QInt8"):
        path = d / f"bert_{wt}.onnx"
        quantize_dynamic(str(bert[0]), str(path), weight_type=getattr(QuantType, wt))
        saved = d / f"bert_{wt}_ext.onnx"
        ort_session(str(path), ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, saved)
        out[wt] = (path, saved)
    return out


@pytest.mark.parametrize("batch,seq,pad", [(1, 4, 0), (2, 7, 2)])
def test_bert_quantized_dynamically_and_saved_by_ort(dynamic_berts, batch, seq, pad):
    from onnx_light.onnx import load_model

    feeds = bert_feeds(batch, seq, pad=pad)
    for wt, (plain, saved) in dynamic_berts.items():
        ms = {op for dom, op in ops_of(load_model(str(saved))) if dom == "com.microsoft"}
        assert {"DynamicQuantizeMatMul", "MatMulIntegerToFloat"} <= ms, ms
        # The exact reference: onnx-light on the standard-op model (MatMulInteger,
        # DynamicQuantizeLinear; exact integer products).
        (exact,) = onnx_light.RuntimeSession(plain.read_bytes()).run(None, feeds)
        (got,) = onnx_light.RuntimeSession(saved.read_bytes()).run(None, feeds)
        np.testing.assert_allclose(got, exact, rtol=1e-5, atol=1e-5)
        (theirs,) = ort_session(saved.read_bytes()).run(None, feeds)
        if wt == "QUInt8":
            np.testing.assert_allclose(theirs, exact, rtol=1e-5, atol=1e-5)
        # int8 weights: ORT's u8s8 kernels saturate 16-bit pair sums on CPUs without VNNI
        # (0.09 off on this AVX2 machine), so ORT is no oracle there.


def test_a_uint8_qdq_cnn_saved_by_ort_at_the_all_level_in_nhwc(quantized_cnns, tmp_path):
    """ORT_ENABLE_ALL adds its NHWC transformer: com.microsoft QLinearConv with
    channels_last, NhwcMaxPool, Transposes. (For int8 activations it writes
    com.microsoft.nchwc ops instead, specific to the CPU it ran on: not supported.)"""
    from onnx_light.onnx import load_model

    saved = tmp_path / "all.onnx"
    ort_session(
        str(quantized_cnns[("QDQ", "QUInt8")]), ort.GraphOptimizationLevel.ORT_ENABLE_ALL, saved
    )
    ms = {op for dom, op in ops_of(load_model(str(saved))) if dom == "com.microsoft"}
    assert {"QLinearConv", "NhwcMaxPool"} <= ms, ms
    conv = next(n for n in load_model(str(saved)).graph.node if n.op_type == "QLinearConv")
    assert any(a.name == "channels_last" and a.i == 1 for a in conv.attribute)
    x = np.random.default_rng(10).standard_normal((1, 3, 16, 16)).astype(np.float32)
    check_quantized(saved, {"x": x})


@pytest.mark.parametrize("wt", ["QUInt8", "QInt8"])
def test_the_fused_bert_quantized_dynamically(bert, tmp_path, wt):
    """quantize_dynamic on the optimizer-fused BERT: QAttention, QEmbedLayerNormalization
    and MatMulInteger projections."""
    import onnx  # the quantizer's own protobuf stack (an oracle, test venv)
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from onnx_light.onnx import load_model

    path = tmp_path / f"fused_{wt}.onnx"
    quantize_dynamic(
        str(bert[1]),
        str(path),
        weight_type=getattr(QuantType, wt),
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    ms = {op for dom, op in ops_of(load_model(str(path))) if dom == "com.microsoft"}
    assert {"QAttention", "QEmbedLayerNormalization"} <= ms, ms
    data = path.read_bytes()
    for batch, seq, pad in [(1, 5, 0), (2, 9, 3)]:
        feeds = bert_feeds(batch, seq, pad=pad)
        (got,) = onnx_light.RuntimeSession(data).run(None, feeds)
        (theirs,) = ort_session(data).run(None, feeds)
        # int8 weights: ORT's u8s8 kernels saturate pair sums without VNNI (0.08 off here);
        # each kernel's exactness is tested in tests/python/kernels/com_microsoft/.
        np.testing.assert_allclose(got, theirs, atol=1e-5 if wt == "QUInt8" else 0.2)


# ---- a decoder with a KV cache, as exported and through both weight quantizers ---------


@pytest.fixture(scope="module")
def decoders(tmp_path_factory):
    """{form: path}: the GPT-style decoder (tests/python/_decoder_graph.py), float32, int8
    by quantize_dynamic (uint8 weights: ORT's u8u8 kernels are exact on every CPU) and
    4-bit by matmul_nbits_quantizer."""
    import onnx
    from _decoder_graph import gpt_decoder
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    d = tmp_path_factory.mktemp("decoder")
    plain = d / "float.onnx"
    onnx.save(gpt_decoder(layers=2, hidden=64, heads=4, ffn=128, vocab=512), str(plain))
    quantize_dynamic(str(plain), str(d / "int8.onnx"), weight_type=QuantType.QUInt8)
    q = MatMulNBitsQuantizer(onnx.load(str(plain)), block_size=32, is_symmetric=True)
    q.process()
    q.model.save_model_to_file(str(d / "int4.onnx"))
    return {k: d / f"{k}.onnx" for k in ("float", "int8", "int4")}


@pytest.mark.parametrize("form", ["float", "int8", "int4"])
def test_a_decoder_step_with_a_kv_cache(decoders, form):
    from _decoder_graph import decoder_feeds

    data = decoders[form].read_bytes()
    light = onnx_light.RuntimeSession(data)
    theirs = ort_session(data, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    names = [o.name for o in light.get_outputs()]
    assert names[0] == "logits" and len(names) == 5
    for past, tokens in [(0, 5), (7, 1), (33, 3)]:  # prefill (empty past), decode, odd sizes
        feeds = decoder_feeds(2, 4, 16, past, tokens, seed=past)
        got, want = light.run(None, feeds), theirs.run(None, feeds)
        assert got[1].shape == (1, 4, past + tokens, 16)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("form", ["float", "int8", "int4"])
def test_greedy_decoding_chooses_ort_tokens(decoders, form):
    from _decoder_graph import decoder_feeds

    def greedy(session, steps=12):
        feeds, out_tokens = decoder_feeds(2, 4, 16, 0, 6, seed=1), []
        names = [o.name for o in session.get_outputs()]
        for _ in range(steps):
            out = dict(zip(names, session.run(None, feeds)))
            nxt = int(np.argmax(out["logits"][0, -1]))
            out_tokens.append(nxt)
            pos = int(feeds["position_ids"][0, -1]) + 1
            feeds = {"input_ids": np.array([[nxt]]), "position_ids": np.array([[pos]])}
            for i in range(2):
                feeds[f"past_key_{i}"] = out[f"present_key_{i}"]
                feeds[f"past_value_{i}"] = out[f"present_value_{i}"]
        return out_tokens

    data = decoders[form].read_bytes()
    mine = greedy(onnx_light.RuntimeSession(data))
    assert mine == greedy(ort_session(data, ort.GraphOptimizationLevel.ORT_ENABLE_ALL))
    assert len(set(mine)) > 1  # not one token over and over
