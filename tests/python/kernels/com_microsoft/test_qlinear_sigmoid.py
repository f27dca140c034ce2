"""com.microsoft QLinearSigmoid (src/onnx_light/kernels/com_microsoft/qlinear_sigmoid.cc): the
sigmoid code table on uint8 and int8, against the table written out in numpy (float32
sigmoid; a code may differ by one where numpy's and the C library's exp differ in the last
bit at a rounding tie, counted) and within one code of ONNX Runtime (MLAS's logistic
approximation)."""

from __future__ import annotations

import numpy as np
import pytest
from _ms import light_run, ort_run
from _qops import table_ref, unary_case


def sigmoid(v):
    with np.errstate(over="ignore"):  # exp(-v) is inf for very negative v: sigmoid 0
        return np.float32(1) / (np.float32(1) + np.exp(-v))


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("xq,yq", [((0.08, 5), (1 / 256, 0)), ((0.5, 100), (0.004, 3))])
def test_qlinear_sigmoid_every_code(dtype, xq, yq):
    model, feeds, x = unary_case("QLinearSigmoid", dtype, (4, 256), xq, yq)
    (got,) = light_run(model, feeds)
    want = table_ref(sigmoid, x, xq, yq, dtype)
    off = np.abs(got.astype(int) - want.astype(int))
    assert off.max() <= 1 and (off != 0).mean() < 0.01
    (theirs,) = ort_run(model, feeds)
    assert np.abs(theirs.astype(int) - got.astype(int)).max() <= 1


def test_qlinear_sigmoid_refuses_a_per_channel_scale():
    model, feeds, _ = unary_case("QLinearSigmoid", np.uint8, (2, 3), xq=([0.1, 0.2], 0))
    with pytest.raises(ValueError, match="QLinearSigmoid.*X's scale must be one float value"):
        light_run(model, feeds)
