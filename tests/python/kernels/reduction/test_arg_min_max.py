"""ArgMax, ArgMin (src/onnx_light/kernels/reduction/arg_min_max.cc): exact indices against
numpy (ties to the first index, or the last with select_last_index; a NaN wins, the first
NaN either way) on rows, middle axes and the other types, at one and two threads; bad
inputs refused with a ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, node_model
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import TensorProto

TYPES = {
    np.float32: TensorProto.FLOAT,
    np.float16: TensorProto.FLOAT16,
    np.float64: TensorProto.DOUBLE,
    np.int64: TensorProto.INT64,
    np.int32: TensorProto.INT32,
}


def reference(x, axis, is_max, last):
    """numpy's argmax/argmin (first tie, first NaN), or the last tie where asked."""
    pick = np.argmax if is_max else np.argmin
    if not last:
        return pick(x, axis=axis)
    flipped = np.flip(x, axis=axis)
    idx = x.shape[axis] - 1 - pick(flipped, axis=axis)
    # A NaN wins as the first NaN, select_last_index or not.
    if np.issubdtype(x.dtype, np.floating):
        nan = np.isnan(x)
        first_nan = np.argmax(nan, axis=axis)
        idx = np.where(nan.any(axis=axis), first_nan, idx)
    return idx


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize(
    "shape,axis", [((300, 1000), 1), ((3, 37), 1), ((2, 9, 700), 1), ((7, 5), 0)]
)
@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("last", [0, 1])
def test_arg_matches_numpy_exactly(op, shape, axis, dtype, threads, last):
    rng = np.random.default_rng(shape[0] + axis)
    x = rng.integers(-4, 5, size=shape).astype(dtype)  # many ties
    if np.issubdtype(dtype, np.floating):
        flat = x.reshape(-1)
        flat[rng.choice(flat.size, size=max(1, flat.size // 97), replace=False)] = np.nan
        flat[3] = np.inf
    model = node_model(
        op,
        [("x", TYPES[dtype])],
        [("y", TensorProto.INT64)],
        opset=13,
        axis=axis,
        keepdims=0,
        select_last_index=last,
    )
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, reference(x, axis, op == "ArgMax", bool(last)))


BAD_INPUTS = [
    ("ArgMax", [("a", F)], {"axis": 1, "out_type": I}, {"a": f32(2, 0)}, "empty axis"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
