"""Cast from bool and integers up to 32 bits to float and double, and between float and
double, converts directly (one rounding): exactly numpy's astype, including integers past
2^24 that float cannot hold, negative values, NaN and infinities."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper

ELEM = {
    np.bool_: TensorProto.BOOL,
    np.int8: TensorProto.INT8,
    np.uint16: TensorProto.UINT16,
    np.int32: TensorProto.INT32,
    np.uint32: TensorProto.UINT32,
    np.float32: TensorProto.FLOAT,
    np.float64: TensorProto.DOUBLE,
}


def cast(x, to, threads=1):
    node = helper.make_node("Cast", ["x"], ["y"], to=ELEM[to])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", ELEM[x.dtype.type], None)],
        [helper.make_tensor_value_info("y", ELEM[to], None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]


@pytest.mark.parametrize("src", [np.bool_, np.int8, np.uint16, np.int32, np.uint32])
@pytest.mark.parametrize("dst", [np.float32, np.float64])
def test_small_integers_to_floats(src, dst):
    rng = np.random.default_rng(1)
    if src is np.bool_:
        x = rng.integers(0, 2, 1000).astype(np.bool_)
    else:
        info = np.iinfo(src)
        x = rng.integers(info.min, info.max, 1000, dtype=np.int64, endpoint=True).astype(src)
        if src in (np.int32, np.uint32):
            x[:4] = [2**24 + 1, 2**24 + 3, 2**31 - 1 if src is np.int32 else 2**32 - 1, 0]
    np.testing.assert_array_equal(cast(x, dst), x.astype(dst))


def test_float_and_double_both_ways():
    x = np.array([1e-40, 1e300, -1e300, np.nan, np.inf, -0.0, 1 / 3, 2.5e-8], np.float64)
    with np.errstate(over="ignore"):  # 1e300 overflows to inf in float, as intended
        want = x.astype(np.float32)
    np.testing.assert_array_equal(cast(x, np.float32), want)
    y = want
    np.testing.assert_array_equal(cast(y, np.float64), y.astype(np.float64))


@pytest.mark.parametrize(
    "src,dst", [(np.bool_, np.float32), (np.int32, np.float64), (np.float64, np.float32)]
)
def test_large_casts_split_across_threads(src, dst):
    # 300k elements: chunks on two threads; the same values as on one.
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(300_001) * 1000).astype(src)
    want = x.astype(dst)
    np.testing.assert_array_equal(cast(x, dst, threads=2), want)
    np.testing.assert_array_equal(cast(x, dst), want)
