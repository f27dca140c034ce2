"""Regression tests for what tests/fuzz/session_fuzzer.cc found (docs/robustness.md): each
input made the process crash or hit undefined behaviour (signed overflow, an out-of-range
float-to-int conversion, a read past a buffer) before the fix, and is now a clear error
or a defined result. Every case then runs a good input in the same session."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto, helper

F, I64 = TensorProto.FLOAT, TensorProto.INT64
BIG = 2**62


def session(op, inputs, outputs, opset=18, **attrs):
    return onnx_light.RuntimeSession(node_model(op, inputs, outputs, opset=opset, **attrs))


def test_tile_repeats_that_overflow():
    s = session("Tile", [("x", F), ("r", I64)], [("y", F)])
    x = np.ones((3, 2), np.float32)
    with pytest.raises(ValueError, match="repeated .* times overflows"):
        s.run(None, {"x": x, "r": np.array([BIG, 1], np.int64)})
    assert s.run(None, {"x": x, "r": np.array([2, 1], np.int64)})[0].shape == (6, 2)


def test_reshape_to_a_shape_whose_count_overflows():
    s = session("Reshape", [("x", F), ("shape", I64)], [("y", F)])
    x = np.ones(6, np.float32)
    with pytest.raises(ValueError, match="element count of the shape overflows"):
        s.run(None, {"x": x, "shape": np.array([BIG, BIG, -1], np.int64)})
    assert s.run(None, {"x": x, "shape": np.array([2, -1], np.int64)})[0].shape == (2, 3)


@pytest.mark.parametrize("op", ["Split", "SplitToSequence"])
def test_split_sizes_that_overflow(op):
    if op == "Split":
        s = session("Split", [("x", F), ("split", I64)], [("a", F), ("b", F)])
    else:
        graph = helper.make_graph(
            [helper.make_node("SplitToSequence", ["x", "split"], ["y"])],
            "g",
            [
                helper.make_tensor_value_info("x", F, [4]),
                helper.make_tensor_value_info("split", I64, [2]),
            ],
            [helper.make_tensor_sequence_value_info("y", F, None)],
        )
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        s = onnx_light.RuntimeSession(m)
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="overflow"):
        s.run(None, {"x": x, "split": np.array([2**63 - 1, 2**63 - 1], np.int64)})
    assert len(s.run(None, {"x": x, "split": np.array([1, 3], np.int64)})) in (1, 2)


def test_pads_that_overflow():
    s = session("Pad", [("x", F), ("pads", I64)], [("y", F)])
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="overflow"):
        s.run(None, {"x": x, "pads": np.array([BIG, BIG], np.int64)})
    np.testing.assert_array_equal(
        s.run(None, {"x": x, "pads": np.array([1, 0], np.int64)})[0], [0, 1, 1, 1]
    )


def test_resize_to_a_size_out_of_range():
    s = session("Resize", [("x", F), ("roi", F), ("scales", F)], [("y", F)])
    x = np.ones((1, 1, 2, 2), np.float32)
    roi = np.zeros(0, np.float32)
    with pytest.raises(ValueError, match="output size .* is out of range"):
        s.run(None, {"x": x, "roi": roi, "scales": np.array([1, 1, 1e30, 1], np.float32)})
    assert s.run(None, {"x": x, "roi": roi, "scales": np.array([1, 1, 2, 2], np.float32)})[
        0
    ].shape == (1, 1, 4, 4)


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_grid_sample_with_grid_values_far_out_nan_and_inf(mode, padding):
    s = session(
        "GridSample", [("x", F), ("grid", F)], [("y", F)], opset=20, mode=mode, padding_mode=padding
    )
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    grid = np.array([1e25, -1e25, np.nan, np.inf, -np.inf, 0.5, 3e9, -7e18], np.float32)
    y = s.run(None, {"x": x, "grid": grid.reshape(1, 2, 2, 2)})[0]
    assert y.shape == (1, 1, 2, 2)
    assert np.isfinite(y).all()
    if padding == "zeros":  # every point but the last reads only padding (its x is NaN / far)
        np.testing.assert_array_equal(y.reshape(-1)[:3], 0)


@pytest.mark.parametrize(
    "attrs",
    [
        {"kernel_shape": [2], "strides": [BIG], "pads": [BIG, BIG]},
        {"kernel_shape": [BIG], "dilations": [BIG], "pads": [0, 0]},
        {"kernel_shape": [2], "pads": [2**63 - 1, 2**63 - 1]},
    ],
)
def test_windows_that_overflow(attrs):
    s = session("MaxPool", [("x", F)], [("y", F)], **attrs)
    with pytest.raises(ValueError):
        s.run(None, {"x": np.ones((1, 1, 5), np.float32)})
    ok = session("MaxPool", [("x", F)], [("y", F)], kernel_shape=[2])
    np.testing.assert_array_equal(
        ok.run(None, {"x": np.arange(4, dtype=np.float32).reshape(1, 1, 4)})[0], [[[1, 2, 3]]]
    )


def test_scan_whose_body_gives_fewer_results_than_the_node_has_outputs():
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"])],
        "body",
        [
            helper.make_tensor_value_info("s_in", F, [2]),
            helper.make_tensor_value_info("x_t", F, [2]),
        ],
        [helper.make_tensor_value_info("s_out", F, [2])],
    )
    scan = helper.make_node("Scan", ["s", "xs"], ["s_final", "extra"], body=body, num_scan_inputs=1)
    graph = helper.make_graph(
        [scan],
        "g",
        [
            helper.make_tensor_value_info("s", F, [2]),
            helper.make_tensor_value_info("xs", F, [3, 2]),
        ],
        [
            helper.make_tensor_value_info("s_final", F, None),
            helper.make_tensor_value_info("extra", F, None),
        ],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    feeds = {"s": np.zeros(2, np.float32), "xs": np.ones((3, 2), np.float32)}
    with pytest.raises(ValueError, match="the body gives 1 results, the node has 2 outputs"):
        onnx_light.RuntimeSession(m).run(None, feeds)


def test_linear_attention_with_a_decay_smaller_than_the_query():
    s = session(
        "LinearAttention",
        [("q", F), ("k", F), ("v", F), ("past", F), ("decay", F), ("beta", F)],
        [("y", F), ("present", F)],
        opset=27,
        q_num_heads=1,
        kv_num_heads=1,
        update_rule="gated_delta",
    )
    q = np.ones((2, 3, 4), np.float32)
    feeds = {"q": q, "k": q, "v": q, "past": np.zeros((2, 1, 4, 4), np.float32)}
    feeds["beta"] = np.full((2, 3, 1), 0.5, np.float32)
    with pytest.raises(ValueError, match=r"decay \[0, 0, 1\] must be \[2, 3, ...\]"):
        s.run(None, {**feeds, "decay": np.zeros((0, 0, 1), np.float32)})
    y = s.run(None, {**feeds, "decay": np.zeros((2, 3, 1), np.float32)})[0]
    assert y.shape == (2, 3, 4) and np.isfinite(y).all()


@pytest.mark.parametrize(
    "op, outputs, dtype",
    [
        ("MaxPool", 1, np.float32),  # the separable 2-D path: a row buffer of (0 - 1) * 2 + 1
        ("MaxPool", 2, np.float32),  # with Indices
        ("AveragePool", 1, np.float32),
        ("MaxPool", 1, np.float64),  # the generic path
        ("LpPool", 1, np.float32),
    ],
)
def test_pooling_to_an_empty_output(op, outputs, dtype):
    # MaxPool over [3, 1, 7, 0] with SAME_UPPER padding and stride 2 (the session fuzzer,
    # from test_maxpool_2d_precomputed_same_upper): std::length_error, an abort.
    t = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    outs = [("y", t), ("i", I64)][:outputs]
    s = session(op, [("x", t)], outs, auto_pad="SAME_UPPER", kernel_shape=[3, 3], strides=[2, 2])
    ys = s.run(None, {"x": np.ones((3, 1, 7, 0), dtype)})
    assert [y.shape for y in ys] == [(3, 1, 4, 0)] * outputs
    ys = s.run(None, {"x": np.ones((1, 1, 7, 7), dtype)})
    assert ys[0].shape == (1, 1, 4, 4)
    if op != "LpPool":
        np.testing.assert_array_equal(ys[0], np.ones((1, 1, 4, 4), dtype))
