"""com.microsoft QLinearSoftmax (src/onnx_light/kernels/com_microsoft/qlinear_softmax.cc): ORT's
CPU arithmetic (a float exp table over code distances, the row sum in order, the
floor(1 / Y_scale) multiplier, saturation) written out in numpy, uint8 and int8, Softmax opsets before
and from 13 with several axes; exact against that reference and ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _ms import light_run, ms_model, ort_run
from _qops import F32, codes, elem, zero_point

from onnx_light.onnx import helper


def ref(x, x_scale, y_scale, y_zp, axis, opset):
    signed = x.dtype == np.int8
    axis = axis % x.ndim
    if opset < 13:
        rows = x.reshape(int(np.prod(x.shape[:axis])), -1)
    else:
        rows = np.moveaxis(x, axis, -1).reshape(-1, x.shape[axis])
    length = rows.shape[1]
    shift = max(0.0, np.log(np.float64(F32(np.finfo(F32).max) / F32(length))) - 5) / x_scale
    table = np.exp((np.arange(256) - 255 + shift) * np.float64(F32(x_scale))).astype(F32)
    out = np.zeros(rows.shape, x.dtype)
    ys = np.floor(F32(1) / F32(y_scale))
    for r, row in enumerate(rows.astype(np.int32)):
        e = table[row - row.max() + 255]
        total = np.cumsum(e, dtype=F32)[-1]  # in order, as ORT sums
        with np.errstate(over="ignore", invalid="ignore"):
            v = e * ys / total
        # e * ys overflows for a row of one code: the kernel then computes in float64
        v = np.where(np.isfinite(v), v, (e.astype(np.float64) * ys / total).astype(F32))
        q = np.rint(v).astype(np.int64) + int(y_zp)
        out[r] = np.minimum(q, 127 if signed else 255)  # saturated, as ORT 1.30 does
    if opset < 13:
        return out.reshape(x.shape)
    moved = list(x.shape)
    moved.append(moved.pop(axis))
    return np.moveaxis(out.reshape(moved), -1, axis)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize(
    "shape,axis,opset",
    [
        ((2, 10), -1, 13),
        ((3, 4, 5), 1, 13),
        ((3, 4, 5), 0, 13),
        ((2, 3, 4), 1, 11),
        ((1, 1000), -1, 13),
        ((5, 1), -1, 12),
        # rows of 256 codes or more: a code per distance, then lookups; strided ones too;
        # rows split between threads
        ((2, 300, 3), 1, 13),
        ((120, 257), -1, 13),
    ],
)
def test_qlinear_softmax_matches_ort_exactly(dtype, shape, axis, opset):
    x = codes(np.random.default_rng(62), dtype, *shape)
    y_zp = -128 if dtype == np.int8 else 0
    inits = {
        "xs": np.array(0.1, F32),
        "xz": zero_point(3, dtype),
        "ys": np.array(1 / 256, F32),
        "yz": np.array(y_zp, dtype),
    }
    ins = [("x", elem(dtype)), ("xs", None), ("xz", None), ("ys", None), ("yz", None)]
    model = ms_model("QLinearSoftmax", ins, [("y", elem(dtype))], inits, axis=axis)
    # (ms_model's own `opset` is the model's import; the node's attribute is added here)
    model.graph.node[0].attribute.append(helper.make_attribute("opset", opset))
    (got,) = light_run(model, {"x": x})
    np.testing.assert_array_equal(got, ref(x, F32(0.1), 1 / 256, y_zp, axis, opset))
    if shape[axis] > 1:
        np.testing.assert_array_equal(got, ort_run(model, {"x": x})[0])
    # else a row of one code: softmax 1, so 1 / Y_scale saturated here; ORT 1.30 overflows
    # its float product and writes 0 (docs/conformance.md)


def test_qlinear_softmax_needs_its_opset_attribute():
    ins = [("x", elem(np.uint8)), ("xs", None), ("", None), ("ys", None)]
    inits = {"xs": np.array(0.1, F32), "ys": np.array(1 / 256, F32)}
    model = ms_model("QLinearSoftmax", ins, [("y", elem(np.uint8))], inits, axis=-1)
    with pytest.raises(ValueError, match="QLinearSoftmax.*'opset'"):
        light_run(model, {"x": np.zeros((2, 3), np.uint8)})
