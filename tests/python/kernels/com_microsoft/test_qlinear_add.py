"""com.microsoft QLinearAdd (src/onnx_light/kernels/com_microsoft/qlinear_add.cc): uint8 and
int8, broadcasting, with and without zero points, exact against MLAS's float arithmetic
written out in numpy and within one code of ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _ms import light_run
from _qops import F32, binary_case, centered, check_codes, requantize


def ref_add(a, b, s, zs, dtype):
    ra, rb = F32(s[0]) / F32(s[2]), F32(s[1]) / F32(s[2])
    return requantize(ra * centered(a, zs[0]) + rb * centered(b, zs[1]), zs[2], dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize(
    "sa,sb", [((7,), (7,)), ((2, 3, 5), (5,)), ((4, 1), (1, 6)), ((1,), (3, 8)), ((0, 3), (3,))]
)
def test_qlinear_add_matches_the_reference_and_ort(dtype, sa, sb):
    model, feeds, a, b, s, zs = binary_case("QLinearAdd", dtype, sa, sb)
    check_codes(model, feeds, [ref_add(a, b, s, zs, dtype)])


def test_qlinear_add_saturates_and_takes_absent_zero_points_as_zero():
    kw = dict(scales=(1.0, 1.0, 0.5))
    model, feeds, a, b, s, zs = binary_case(
        "QLinearAdd", np.uint8, (64,), (64,), zps=(0, 0, 0), **kw
    )
    want = ref_add(a, b, s, zs, np.uint8)
    assert (want == 255).any()
    check_codes(model, feeds, [want])
    # ORT 1.30's type inference refuses the node without zero points; the schema allows it.
    model, feeds, *_ = binary_case("QLinearAdd", np.uint8, (64,), (64,), zps=(None,) * 3, **kw)
    np.testing.assert_array_equal(light_run(model, feeds)[0], want)


def test_qlinear_add_refuses_per_channel_scales():
    model, feeds, *_ = binary_case(
        "QLinearAdd", np.uint8, (4,), (4,), scales=([0.1, 0.2], 0.1, 0.1)
    )
    with pytest.raises(ValueError, match="QLinearAdd.*A's scale must be one float value"):
        light_run(model, feeds)


def test_qlinear_add_refuses_shapes_that_do_not_broadcast():
    model, _, *_ = binary_case("QLinearAdd", np.uint8, (4,), (4,))
    feeds = {"a": np.zeros(3, np.uint8), "b": np.zeros(4, np.uint8)}
    with pytest.raises(ValueError, match="QLinearAdd"):
        light_run(model, feeds)
