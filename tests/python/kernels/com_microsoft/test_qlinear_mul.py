"""com.microsoft QLinearMul (src/onnx_light/kernels/com_microsoft/qlinear_mul.cc): uint8 and
int8, broadcasting, exact against MLAS's float arithmetic written out in numpy and within
one code of ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _ms import light_run
from _qops import F32, binary_case, centered, check_codes, requantize


def ref_mul(a, b, s, zs, dtype):
    r = F32(s[0]) * F32(s[1]) / F32(s[2])
    return requantize(centered(a, zs[0]) * centered(b, zs[1]) * r, zs[2], dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize(
    "sa,sb", [((9,), (9,)), ((2, 3, 5), (5,)), ((4, 1), (1, 6)), ((3, 8), (1,)), ((2, 0), (1,))]
)
def test_qlinear_mul_matches_the_reference_and_ort(dtype, sa, sb):
    model, feeds, a, b, s, zs = binary_case("QLinearMul", dtype, sa, sb, scales=(0.05, 0.1, 0.3))
    check_codes(model, feeds, [ref_mul(a, b, s, zs, dtype)])


def test_qlinear_mul_refuses_a_zero_scale():
    model, feeds, *_ = binary_case("QLinearMul", np.uint8, (4,), (4,), scales=(0.1, 0.1, 0.0))
    with pytest.raises(ValueError, match="QLinearMul.*C's scale must be positive"):
        light_run(model, feeds)
