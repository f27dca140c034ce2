"""QDQ groups to integer kernels (pass qdq_to_integer, extended level): a model quantized by
onnxruntime.quantization.quantize_static in QDQ format runs the integer kernels its
QOperator form names, with the same codes: onnx-light's QDQ result equals its QOperator
result exactly (each integer kernel is tested exact against its own reference), and its
float path (the pass off) within a few codes of rounding. ORT is compared only where its
answer does not depend on the CPU (weights within +-63: its u8s8 kernels saturate on AVX2
beyond that). What must not become integer keeps its float nodes and its results."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from _cnn_graph import quantized_set

import onnx_light
from onnx_light.onnx import TensorProto, helper, load_model, numpy_helper

ort = pytest.importorskip("onnxruntime", reason="pip install -r requirements/oracles.txt")

SIZE = 32


def ops_after_passes(path_or_bytes, tmp_path, **options):
    out = tmp_path / "optimized.onnx"
    onnx_light.RuntimeSession(path_or_bytes, optimized_model_path=str(out), **options)
    return collections.Counter(n.op_type for n in load_model(str(out)).graph.node)


@pytest.fixture(scope="module")
def cnns(tmp_path_factory):
    combos = [
        (fmt, act, pc)
        for fmt in ("QDQ", "QOperator")
        for act in ("QUInt8", "QInt8")
        for pc in (False, True)
    ]
    return quantized_set(tmp_path_factory.mktemp("qdq"), SIZE, 16, combos)


@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
@pytest.mark.parametrize("act", ["QUInt8", "QInt8"])
def test_a_qdq_cnn_runs_its_qoperator_kernels_with_the_same_codes(cnns, act, per_channel, tmp_path):
    qdq, qop = cnns[("QDQ", act, per_channel)], cnns[("QOperator", act, per_channel)]
    ops = ops_after_passes(str(qdq), tmp_path)
    assert ops["QLinearConv"] == 8 and ops["QGemm"] == 1 and ops["QLinearAdd"] == 3, ops
    assert ops["Conv"] == ops["Gemm"] == ops["Add"] == 0, ops
    # what stays: the input's QuantizeLinear and the output's DequantizeLinear
    assert ops["DequantizeLinear"] == 1 and ops["QuantizeLinear"] == 1, ops
    rng = np.random.default_rng(11)
    for threads in (1, 2):
        a = onnx_light.RuntimeSession(str(qdq), intra_op_threads=threads)
        b = onnx_light.RuntimeSession(str(qop), intra_op_threads=threads)
        off = onnx_light.RuntimeSession(str(qdq), disabled_passes=["qdq_to_integer"])
        for _ in range(3):
            x = {"x": rng.standard_normal((1, 3, SIZE, SIZE)).astype(np.float32)}
            got = a.run(None, x)[0]
            np.testing.assert_array_equal(got, b.run(None, x)[0])
            float_path = off.run(None, x)[0]
            step = np.min(np.diff(np.unique(np.concatenate([got.ravel(), float_path.ravel()]))))
            assert np.max(np.abs(got - float_path)) <= 4 * step + 1e-6
            assert len(np.unique(got)) > 5  # not vacuous: real logits


def test_the_pass_off_keeps_the_float_path(cnns, tmp_path):
    qdq = cnns[("QDQ", "QUInt8", False)]
    for options in ({"disabled_passes": ["qdq_to_integer"]}, {"graph_optimization_level": "basic"}):
        ops = ops_after_passes(str(qdq), tmp_path, **options)
        assert ops["QLinearConv"] == 0 and ops["Conv"] == 8, (options, ops)


# ---- hand-written QDQ groups: what becomes integer and what must not -----------------


def dq(name, codes, scale, zero, nodes, inits, axis=None):
    inits += [
        numpy_helper.from_array(codes, name + "_q"),
        numpy_helper.from_array(np.asarray(scale, np.float32), name + "_s"),
        numpy_helper.from_array(np.asarray(zero, codes.dtype), name + "_z"),
    ]
    kw = {} if axis is None else {"axis": axis}
    nodes.append(
        helper.make_node("DequantizeLinear", [name + "_q", name + "_s", name + "_z"], [name], **kw)
    )


def conv_group(*, bias_scale_off=False, output_too=False, float_bias=False):
    """x (uint8) -> DQ -> Conv(DQ w, bias) -> Q -> DQ -> y."""
    rng = np.random.default_rng(3)
    nodes, inits = [], []
    U8 = TensorProto.UINT8
    inits += [
        numpy_helper.from_array(np.array(0.05, np.float32), "xs"),
        numpy_helper.from_array(np.array(128, np.uint8), "xz"),
        numpy_helper.from_array(np.array(0.2, np.float32), "ys"),
        numpy_helper.from_array(np.array(100, np.uint8), "yz"),
    ]
    nodes.append(helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"]))
    ws = (rng.random(6) * 0.01 + 0.002).astype(np.float32)
    dq(
        "w",
        rng.integers(-63, 64, (6, 4, 3, 3)).astype(np.int8),
        ws,
        np.zeros(6, np.int8),
        nodes,
        inits,
        axis=0,
    )
    b = rng.integers(-2000, 2000, 6).astype(np.int32)
    if float_bias:
        inits.append(numpy_helper.from_array((b * 0.05 * ws).astype(np.float32), "b"))
    else:
        bs = np.float32(0.05) * ws * (np.float32(1.01) if bias_scale_off else np.float32(1))
        dq("b", b, bs, np.zeros(6, np.int32), nodes, inits, axis=0)
    nodes.append(helper.make_node("Conv", ["xf", "w", "b"], ["c"], pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["cq"]))
    nodes.append(helper.make_node("DequantizeLinear", ["cq", "ys", "yz"], ["y"]))
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if output_too:
        outputs.append(helper.make_tensor_value_info("c", TensorProto.FLOAT, None))
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", U8, [1, 4, 7, 7])], outputs, inits
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def test_a_conv_group_becomes_qlinear_conv_and_matches_ort(tmp_path):
    m = conv_group()
    assert ops_after_passes(m, tmp_path)["QLinearConv"] == 1
    x = {"x": np.random.default_rng(4).integers(0, 256, (1, 4, 7, 7)).astype(np.uint8)}
    got = onnx_light.RuntimeSession(m).run(None, x)[0]
    off = onnx_light.RuntimeSession(m, disabled_passes=["qdq_to_integer"]).run(None, x)[0]
    np.testing.assert_allclose(got, off, atol=0.2 + 1e-6)  # one code of y (scale 0.2)
    np.testing.assert_allclose(
        got,
        ort.InferenceSession(m, providers=["CPUExecutionProvider"]).run(None, x)[0],
        atol=0.2 + 1e-6,
    )


@pytest.mark.parametrize("why", ["bias_scale_off", "output_too", "float_bias"])
def test_groups_that_must_stay_float(why, tmp_path):
    m = conv_group(**{why: True})
    ops = ops_after_passes(m, tmp_path)
    assert ops["QLinearConv"] == 0 and ops["Conv"] == 1, ops
    x = {"x": np.random.default_rng(4).integers(0, 256, (1, 4, 7, 7)).astype(np.uint8)}
    got = onnx_light.RuntimeSession(m).run(None, x)
    off = onnx_light.RuntimeSession(m, disabled_passes=["qdq_to_integer"]).run(None, x)
    for g, w in zip(got, off):
        np.testing.assert_array_equal(g, w)


def matmul_group(quantized_output):
    rng = np.random.default_rng(5)
    nodes, inits = [], []
    dq("b", rng.integers(-63, 64, (16, 8)).astype(np.int8), 0.01, 0, nodes, inits)
    inits += [
        numpy_helper.from_array(np.array(0.03, np.float32), "as"),
        numpy_helper.from_array(np.array(7, np.uint8), "az"),
        numpy_helper.from_array(np.array(0.3, np.float32), "ys"),
        numpy_helper.from_array(np.array(128, np.uint8), "yz"),
    ]
    nodes.append(helper.make_node("DequantizeLinear", ["a", "as", "az"], ["af"]))
    nodes.append(helper.make_node("MatMul", ["af", "b"], ["p"]))
    out = "p"
    if quantized_output:
        nodes.append(helper.make_node("QuantizeLinear", ["p", "ys", "yz"], ["pq"]))
        nodes.append(helper.make_node("DequantizeLinear", ["pq", "ys", "yz"], ["y"]))
        out = "y"
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [5, 16])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


@pytest.mark.parametrize("quantized_output", [True, False])
def test_matmul_groups_run_on_codes(quantized_output, tmp_path):
    m = matmul_group(quantized_output)
    ops = ops_after_passes(m, tmp_path)
    want_op = "QLinearMatMul" if quantized_output else "MatMulIntegerToFloat"
    assert ops[want_op] == 1 and ops["MatMul"] == 0, ops
    rng = np.random.default_rng(6)
    a = rng.integers(0, 256, (5, 16)).astype(np.uint8)
    got = onnx_light.RuntimeSession(m).run(None, {"a": a})[0]
    # exact integer products (numpy int64), then the scales
    b = numpy_helper.to_array(
        next(i for i in load_model(m).graph.initializer if i.name == "b_q")
    ).astype(np.int64)
    acc = (a.astype(np.int64) - 7) @ b
    if quantized_output:
        scale = np.float32(0.03) * np.float32(0.01) / np.float32(0.3)
        codes = np.clip(np.rint(acc.astype(np.float64) * np.float64(scale)) + 128, 0, 255)
        np.testing.assert_allclose(got, (codes - 128) * np.float32(0.3), atol=0.3 + 1e-6)
        assert np.count_nonzero((codes > 0) & (codes < 255)) > 20
    else:
        np.testing.assert_allclose(got, acc * (np.float32(0.03) * np.float32(0.01)), rtol=1e-6)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_a_resize_group_runs_on_codes_in_nearest_mode_only(mode, tmp_path):
    # Nearest only selects values: with the same parameters on both sides the codes are the
    # float path's exactly. Linear interpolates and would round anew: it stays float.
    nodes, inits = [], []
    inits += [
        numpy_helper.from_array(np.array(0.1, np.float32), "s"),
        numpy_helper.from_array(np.array(120, np.uint8), "z"),
        numpy_helper.from_array(np.array([1, 1, 2, 3], np.float32), "scales"),
    ]
    nodes.append(helper.make_node("DequantizeLinear", ["x", "s", "z"], ["xf"]))
    nodes.append(helper.make_node("Resize", ["xf", "", "scales"], ["r"], mode=mode))
    nodes.append(helper.make_node("QuantizeLinear", ["r", "s", "z"], ["rq"]))
    nodes.append(helper.make_node("DequantizeLinear", ["rq", "s", "z"], ["y"]))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    ops = ops_after_passes(m, tmp_path)
    assert ops["Resize"] == 1 and ops["DequantizeLinear"] == (1 if mode == "nearest" else 2), ops
    x = {"x": np.random.default_rng(7).integers(0, 256, (1, 2, 3, 4)).astype(np.uint8)}
    got = onnx_light.RuntimeSession(m).run(None, x)[0]
    off = onnx_light.RuntimeSession(m, disabled_passes=["qdq_to_integer"]).run(None, x)[0]
    np.testing.assert_array_equal(got, off)
    assert got.shape == (1, 2, 6, 12)
    if mode == "nearest":  # each code repeated 2 x 3 times
        want = np.repeat(np.repeat(x["x"], 2, axis=2), 3, axis=3)
        np.testing.assert_array_equal(got, (want.astype(np.float32) - 120) * np.float32(0.1))
