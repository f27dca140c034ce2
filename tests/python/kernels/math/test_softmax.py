"""float32 Softmax and LogSoftmax along the last axis (attention scores, classifier and
CTC heads): rows in vector code split across threads; against numpy in float64. Softmax
rtol 3e-6: exp within 2 ULP, x - max rounded to float, and a float sum of up to 1000
terms in vector partial sums, whose rounding depends on the vector width (1.1e-6 seen
with SSE4's four lanes). LogSoftmax rtol 4e-7 + atol 3e-6: log(sum) carries the sum's
relative error (1.3e-6 with SSE4). With -inf entries (masked: exactly 0, and -inf for
LogSoftmax), a NaN row passing NaN through, and rows shorter and longer than a vector."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, node_model
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import TensorProto, helper


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(1, 12, 128, 128), (3, 7), (2, 1000), (4, 5, 17)])
def test_softmax_rows_match_numpy(shape, threads):
    rng = np.random.default_rng(shape[-1])
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    flat = x.reshape(-1, shape[-1])
    flat[0, : shape[-1] // 2] = -np.inf  # a masked half row
    F = TensorProto.FLOAT
    model = node_model("Softmax", [("x", F)], [("y", F)], opset=13, axis=-1)
    s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
    got = s.run(None, {"x": x})[0]
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=-1, keepdims=True), rtol=3e-6, atol=1e-12)
    bad = x.copy()
    bad.reshape(-1, shape[-1])[-1, 0] = np.nan
    got = s.run(None, {"x": bad})[0].reshape(-1, shape[-1])
    assert np.isnan(got[-1]).all()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(1, 500, 32), (3, 7), (64, 1000), (4, 5, 17), (2, 1)])
def test_log_softmax_rows_match_numpy(shape, threads):
    rng = np.random.default_rng(shape[-1] + 1)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    flat = x.reshape(-1, shape[-1])
    flat[0, : shape[-1] // 2] = -np.inf  # a masked half row
    model = node_model("LogSoftmax", [("x", F)], [("y", F)], opset=13, axis=-1)
    s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
    got = s.run(None, {"x": x})[0]
    x64 = x.astype(np.float64)
    shifted = x64 - x64.max(axis=-1, keepdims=True)
    want = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=4e-7, atol=3e-6)
    assert (got[~finite] == -np.inf).all() and (~finite).sum() == shape[-1] // 2
    bad = x.copy()
    bad.reshape(-1, shape[-1])[-1, 0] = np.nan
    got = s.run(None, {"x": bad})[0].reshape(-1, shape[-1])
    assert np.isnan(got[-1]).all()


# (the inner columns in blocks of 256 split between threads: 300 = 256 + 44, and a YOLOv8
# head's distribution softmax, 16 x 8400)
CASES = [
    ((2, 16, 300), 1),
    ((1, 4, 16, 2100), 2),
    ((3, 5, 7, 9), 0),
    ((2, 3, 8), 1),
    ((1, 16, 4, 2100), 1),
    ((3, 20, 1000), 1),
]


def session(op, axis, shape, threads=1):
    node = helper.make_node(op, ["x"], ["y"], axis=axis)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
        intra_op_threads=threads,
    )


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("shape,axis", CASES)
def test_softmax_along_inner_axes(op, shape, axis, threads):
    x = (np.random.default_rng(1).standard_normal(shape) * 5).astype(np.float32)
    x.ravel()[5] = np.nan
    y = session(op, axis, shape, threads).run(None, {"x": x})[0]
    xd = x.astype(np.float64)
    m = np.max(xd, axis=axis, keepdims=True)
    e = np.exp(xd - m)
    s = e.sum(axis=axis, keepdims=True)
    if op == "Softmax":
        np.testing.assert_allclose(y, e / s, rtol=2e-6, atol=1e-7, equal_nan=True)
    else:
        np.testing.assert_allclose(y, xd - m - np.log(s), rtol=2e-7, atol=1e-6, equal_nan=True)
    assert np.isnan(y).sum() == x.shape[axis]  # the NaN's column, nothing else


BAD_INPUTS = [
    ("Softmax", [("a", F)], {"axis": 2}, {"a": f32(2, 3)}, "axis 2 is out of range"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
