"""Quantized CNNs channels-last (pass nhwc_quantized, level all): each region of 8-bit ops
around 2-D QLinearConvs runs NHWC (com.microsoft QLinearConv with channels_last = 1,
NhwcMaxPool, the pools' channels_last, element-wise QLinear ops unchanged), with one
Transpose in and one out where the region meets the rest. The codes are those of the NCHW
graph (the pass off) exactly: the same integer kernels run on permuted data. Values read
outside a region come back in NCHW under their own names; what cannot turn (no 4-D
evidence, Indices wanted, fed weights) stays as it was."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from _cnn_graph import quantized_set

import onnx_light
from onnx_light.onnx import TensorProto, helper, load_model, numpy_helper

ort = pytest.importorskip("onnxruntime", reason="pip install -r requirements/oracles.txt")

SIZE = 32
OFF = {"disabled_passes": ["nhwc_quantized"]}


def optimized(model, tmp_path, **options):
    out = tmp_path / "optimized.onnx"
    data = model if isinstance(model, (str, bytes)) else model.SerializeToString()
    onnx_light.RuntimeSession(data, optimized_model_path=str(out), **options)
    return load_model(str(out)).graph


def ops(graph):
    return collections.Counter((n.domain or "ai.onnx") + ":" + n.op_type for n in graph.node)


def attr(node, name):
    return next((a.i for a in node.attribute if a.name == name), None)


@pytest.fixture(scope="module")
def cnns(tmp_path_factory):
    combos = [
        (fmt, act, act == "QInt8") for fmt in ("QDQ", "QOperator") for act in ("QUInt8", "QInt8")
    ]
    made = quantized_set(tmp_path_factory.mktemp("nhwc"), SIZE, 16, combos)
    return {(fmt, act): str(path) for (fmt, act, _), path in made.items()}


@pytest.mark.parametrize("act", ["QUInt8", "QInt8"])
@pytest.mark.parametrize("fmt", ["QDQ", "QOperator"])
def test_a_quantized_cnn_runs_channels_last_with_the_same_codes(cnns, fmt, act, tmp_path):
    path = cnns[(fmt, act)]
    g = optimized(path, tmp_path)
    c = ops(g)
    # the whole body is one region: one Transpose after the input's QuantizeLinear, one
    # after the global pool (to [N, C, 1, 1] for Flatten)
    assert c["com.microsoft:QLinearConv"] == 8 and c["ai.onnx:QLinearConv"] == 0, c
    assert c["com.microsoft:NhwcMaxPool"] == 1 and c["ai.onnx:MaxPool"] == 0, c
    assert c["ai.onnx:Transpose"] == 2, c
    for n in g.node:
        if n.op_type in ("QLinearConv", "QLinearGlobalAveragePool"):
            assert attr(n, "channels_last") == 1, n.name
    perms = [list(next(a.ints for a in n.attribute)) for n in g.node if n.op_type == "Transpose"]
    assert perms == [[0, 2, 3, 1], [0, 3, 1, 2]]
    rng = np.random.default_rng(5)
    for threads in (1, 2):
        on = onnx_light.RuntimeSession(path, intra_op_threads=threads)
        off = onnx_light.RuntimeSession(path, intra_op_threads=threads, **OFF)
        for _ in range(3):
            x = {"x": rng.standard_normal((1, 3, SIZE, SIZE)).astype(np.float32)}
            got = on.run(None, x)[0]
            np.testing.assert_array_equal(got, off.run(None, x)[0])
            assert len(np.unique(got)) > 5  # not vacuous: real logits


def test_below_level_all_nothing_turns(cnns, tmp_path):
    for options in (OFF, {"graph_optimization_level": "extended"}):
        c = ops(optimized(cnns[("QOperator", "QUInt8")], tmp_path, **options))
        assert c["ai.onnx:QLinearConv"] == 8 and c["ai.onnx:Transpose"] == 0, (options, c)


# ---- hand-written regions ------------------------------------------------------------


def qconv(x, w_name, y, **attrs):
    return helper.make_node(
        "QLinearConv",
        [x, "s", "z", w_name, "ws", "wz", "s", "z"],
        [y],
        kernel_shape=[3, 3],
        pads=[1, 1, 1, 1],
        **attrs,
    )


def qbinary(op, a, b, y):
    return helper.make_node(op, [a, "s", "z", b, "s", "z", "s", "z"], [y], domain="com.microsoft")


def model(nodes, inputs, outputs, extra_inits=(), channels=8, x_shape=(1, 8, 6, 7)):
    rng = np.random.default_rng(1)
    inits = [
        numpy_helper.from_array(np.array(0.05, np.float32), "s"),
        numpy_helper.from_array(np.array(3, np.uint8), "z"),
        numpy_helper.from_array(np.array(0.01, np.float32), "ws"),
        numpy_helper.from_array(np.array(0, np.int8), "wz"),
    ]
    for name in ("w1", "w2"):
        w = rng.integers(-127, 128, (channels, channels, 3, 3)).astype(np.int8)
        inits.append(numpy_helper.from_array(w, name))
    inits.extend(extra_inits)
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, TensorProto.UINT8, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.UINT8, None) for n in outputs],
        inits,
    )
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)],
    )


def same_codes(m, feeds):
    data = m.SerializeToString()
    on = onnx_light.RuntimeSession(data).run(None, feeds)
    off = onnx_light.RuntimeSession(data, **OFF).run(None, feeds)
    for a, b in zip(on, off):
        np.testing.assert_array_equal(a, b)
        assert len(np.unique(a)) > 5
    return on


def codes(*shape, seed=2):
    return np.random.default_rng(seed).integers(0, 256, shape).astype(np.uint8)


def test_a_value_read_outside_the_region_comes_back_in_nchw(tmp_path):
    # c1 is a graph output and a reader's input: made again by Transpose(0,3,1,2)
    m = model(
        [qconv("x", "w1", "c1"), qconv("c1", "w2", "c2")],
        [("x", [1, 8, 6, 7])],
        ["c1", "c2"],
    )
    c1, c2 = same_codes(m, {"x": codes(1, 8, 6, 7)})
    assert c1.shape == c2.shape == (1, 8, 6, 7)
    g = optimized(m, tmp_path)
    c = ops(g)
    assert c["com.microsoft:QLinearConv"] == 2 and c["ai.onnx:Transpose"] == 3, c


def test_a_broadcast_operand_turns_with_the_region(tmp_path):
    # QLinearMul by a [1, C, 1, 1] constant (a squeeze-excite scale): 4-D, so it joins,
    # transposed to [1, 1, 1, C]; broadcasting gives the same codes
    se = numpy_helper.from_array(codes(1, 8, 1, 1, seed=9), "se")
    m = model(
        [qconv("x", "w1", "c1"), qbinary("QLinearMul", "c1", "se", "y")],
        [("x", [1, 8, 6, 7])],
        ["y"],
        [se],
    )
    same_codes(m, {"x": codes(1, 8, 6, 7)})
    c = ops(optimized(m, tmp_path))
    assert c["ai.onnx:Transpose"] == 3, c  # x in, se in, y out


def test_an_operand_of_unknown_rank_keeps_the_op_nchw(tmp_path):
    # b's rank is not declared: QLinearAdd stays outside, reading c1 transposed back
    m = model(
        [qconv("x", "w1", "c1"), qbinary("QLinearAdd", "c1", "b", "y")],
        [("x", [1, 8, 6, 7]), ("b", None)],
        ["y"],
    )
    same_codes(m, {"x": codes(1, 8, 6, 7), "b": codes(1, 8, 6, 7, seed=4)})
    g = optimized(m, tmp_path)
    add = next(n for n in g.node if n.op_type == "QLinearAdd")
    assert add.input[0] == "c1" and add.input[3] == "b"
    # with b declared 4-D it joins: the add reads both in NHWC
    m = model(
        [qconv("x", "w1", "c1"), qbinary("QLinearAdd", "c1", "b", "y")],
        [("x", [1, 8, 6, 7]), ("b", [1, 8, 6, 7])],
        ["y"],
    )
    same_codes(m, {"x": codes(1, 8, 6, 7), "b": codes(1, 8, 6, 7, seed=4)})
    add = next(n for n in optimized(m, tmp_path).node if n.op_type == "QLinearAdd")
    assert add.input[0] != "c1" and add.input[3] != "b"


def test_max_pool_with_indices_and_fed_weights_stay(tmp_path):
    pool = helper.make_node("MaxPool", ["c1"], ["p", "idx"], kernel_shape=[2, 2], strides=[2, 2])
    m = model([qconv("x", "w1", "c1"), pool], [("x", [1, 8, 6, 7])], ["p"])
    m.graph.output.append(helper.make_tensor_value_info("idx", TensorProto.INT64, None))
    data = m.SerializeToString()
    x = {"x": codes(1, 8, 6, 7)}
    on = onnx_light.RuntimeSession(data).run(None, x)
    off = onnx_light.RuntimeSession(data, **OFF).run(None, x)
    for a, b in zip(on, off):
        np.testing.assert_array_equal(a, b)
    c = ops(optimized(m, tmp_path))
    assert c["ai.onnx:MaxPool"] == 1 and c["com.microsoft:QLinearConv"] == 1, c
    # W as a feed: the kernel cannot pack it, the conv stays ai.onnx NCHW
    m = model([qconv("x", "wf", "y")], [("x", [1, 8, 6, 7]), ("wf", None)], ["y"])
    m.graph.input[1].type.tensor_type.elem_type = TensorProto.INT8
    wf = np.random.default_rng(3).integers(-127, 128, (8, 8, 3, 3)).astype(np.int8)
    same_codes(m, {"x": codes(1, 8, 6, 7), "wf": wf})
    c = ops(optimized(m, tmp_path))
    assert c["ai.onnx:QLinearConv"] == 1 and c["ai.onnx:Transpose"] == 0, c


def test_a_wrong_rank_input_is_still_a_clear_error():
    # X 3-D into a 2-D convolution: refused at run time, the session still usable
    m = model([qconv("x", "w1", "y")], [("x", None)], ["y"])
    s = onnx_light.RuntimeSession(m.SerializeToString())
    with pytest.raises(ValueError):
        s.run(None, {"x": codes(8, 6, 7)})
    assert s.run(None, {"x": codes(1, 8, 6, 7)})[0].shape == (1, 8, 6, 7)
