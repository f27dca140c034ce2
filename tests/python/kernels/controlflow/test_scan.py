"""Scan against numpy references: reverse input and output directions, non-zero scan
axes, values read from the enclosing graph, the opset-8 batched form, and the errors
(exact float32: the body only adds and multiplies small integers)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I

import onnx_light
from onnx_light.onnx import helper


def body_graph():
    # state s (shape [2]) += x_t * w (w from the enclosing graph); scan output = s copy.
    return helper.make_graph(
        [
            helper.make_node("Mul", ["x_t", "w"], ["xw"]),
            helper.make_node("Add", ["s_in", "xw"], ["s_out"]),
            helper.make_node("Identity", ["s_out"], ["y_t"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("s_in", F, [2]),
            helper.make_tensor_value_info("x_t", F, [2]),
        ],
        [
            helper.make_tensor_value_info("s_out", F, [2]),
            helper.make_tensor_value_info("y_t", F, [2]),
        ],
    )


def scan_model(opset=16, inputs=("s0", "x"), **attrs):
    node = helper.make_node("Scan", list(inputs), ["s_final", "ys"], body=body_graph(), **attrs)
    names = [n for n in inputs if n] + ["w"]
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, I if n == "lens" else F, None) for n in names],
        [
            helper.make_tensor_value_info("s_final", F, None),
            helper.make_tensor_value_info("ys", F, None),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def reference(s0, xs, w, reverse_in=False):
    s, ys = s0.copy(), []
    for x in xs[::-1] if reverse_in else xs:
        s = s + x * w
        ys.append(s.copy())
    return s, np.array(ys)


@pytest.mark.parametrize("in_dir", [0, 1])
@pytest.mark.parametrize("out_dir", [0, 1])
@pytest.mark.parametrize("in_axis, out_axis", [(0, 0), (1, 1), (-1, -1)])
def test_scan_directions_and_axes(in_dir, out_dir, in_axis, out_axis):
    rng = np.random.default_rng(10)
    xs = rng.integers(-3, 4, (5, 2)).astype(np.float32)  # 5 steps of [2]
    s0 = np.array([1.0, -1.0], np.float32)
    w = np.array([2.0, 3.0], np.float32)
    x_in = xs if in_axis == 0 else xs.T  # axis 1 (or -1): steps along the last axis
    model = scan_model(
        num_scan_inputs=1,
        scan_input_directions=[in_dir],
        scan_output_directions=[out_dir],
        scan_input_axes=[in_axis],
        scan_output_axes=[out_axis],
    )
    s_final, ys = onnx_light.RuntimeSession(model).run(None, {"s0": s0, "x": x_in, "w": w})
    want_s, want_ys = reference(s0, xs, w, reverse_in=bool(in_dir))
    if out_dir:
        want_ys = want_ys[::-1]
    if out_axis != 0:
        want_ys = want_ys.T
    np.testing.assert_array_equal(s_final, want_s)
    np.testing.assert_array_equal(ys, want_ys)


def test_scan_opset8_batched():
    rng = np.random.default_rng(11)
    xs = rng.integers(-3, 4, (3, 4, 2)).astype(np.float32)  # batch 3, 4 steps
    s0 = rng.integers(-3, 4, (3, 2)).astype(np.float32)
    w = np.array([1.0, -2.0], np.float32)
    model = scan_model(opset=8, inputs=("", "s0", "x"), num_scan_inputs=1)
    s_final, ys = onnx_light.RuntimeSession(model).run(None, {"s0": s0, "x": xs, "w": w})
    for b in range(3):
        want_s, want_ys = reference(s0[b], xs[b], w)
        np.testing.assert_array_equal(s_final[b], want_s)
        np.testing.assert_array_equal(ys[b], want_ys)


def test_scan_opset8_short_sequences_are_refused():
    model = scan_model(opset=8, inputs=("lens", "s0", "x"), num_scan_inputs=1)
    feeds = {
        "lens": np.array([2, 3], np.int64),
        "s0": np.zeros((2, 2), np.float32),
        "x": np.zeros((2, 3, 2), np.float32),
        "w": np.ones(2, np.float32),
    }
    with pytest.raises(RuntimeError, match="sequence_lens shorter than the sequence"):
        onnx_light.RuntimeSession(model).run(None, feeds)


def test_scan_errors():
    with pytest.raises(ValueError, match="num_scan_inputs must be between 1"):
        s = onnx_light.RuntimeSession(scan_model(num_scan_inputs=3))
        s.run(
            None,
            {
                "s0": np.zeros(2, np.float32),
                "x": np.zeros((1, 2), np.float32),
                "w": np.ones(2, np.float32),
            },
        )
    s = onnx_light.RuntimeSession(scan_model(num_scan_inputs=1, scan_input_axes=[2]))
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        s.run(
            None,
            {
                "s0": np.zeros(2, np.float32),
                "x": np.zeros((3, 2), np.float32),
                "w": np.ones(2, np.float32),
            },
        )
    # The session is still usable.
    ok = onnx_light.RuntimeSession(scan_model(num_scan_inputs=1))
    s_final, _ = ok.run(
        None,
        {
            "s0": np.zeros(2, np.float32),
            "x": np.ones((3, 2), np.float32),
            "w": np.ones(2, np.float32),
        },
    )
    np.testing.assert_array_equal(s_final, [3.0, 3.0])


def range_scan_model():
    # Scan output y_t = Range(0, x_t): its length is the step's input value.
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["s_in"], ["s_out"]),
            helper.make_node("Range", ["zero", "x_t", "one"], ["y_t"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("s_in", F, [1]),
            helper.make_tensor_value_info("x_t", I, []),
        ],
        [
            helper.make_tensor_value_info("s_out", F, [1]),
            helper.make_tensor_value_info("y_t", I, None),
        ],
        [
            helper.make_tensor("zero", I, [], [0]),
            helper.make_tensor("one", I, [], [1]),
        ],
    )
    node = helper.make_node("Scan", ["s0", "x"], ["s_final", "ys"], body=body, num_scan_inputs=1)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("s0", F, None), helper.make_tensor_value_info("x", I, None)],
        [
            helper.make_tensor_value_info("s_final", F, None),
            helper.make_tensor_value_info("ys", I, None),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def test_scan_outputs_placed_step_by_step():
    # Each step's scan output is copied into its slot of the stacked output as it comes:
    # an int64 output, a shape that changes between steps refused (the session usable
    # after), no steps at all.
    s = onnx_light.RuntimeSession(range_scan_model())
    s0 = np.zeros(1, np.float32)
    _, ys = s.run(None, {"s0": s0, "x": np.array([3, 3, 3, 3])})
    np.testing.assert_array_equal(ys, np.tile(np.arange(3), (4, 1)))
    with pytest.raises(ValueError, match="scan output 1 changes shape between steps"):
        s.run(None, {"s0": s0, "x": np.array([3, 3, 2])})
    _, ys = s.run(None, {"s0": s0, "x": np.array([2, 2])})
    np.testing.assert_array_equal(ys, [[0, 1], [0, 1]])
    s_final, ys = s.run(None, {"s0": s0 + 5, "x": np.zeros(0, np.int64)})
    assert ys.size == 0
    np.testing.assert_array_equal(s_final, [5.0])
