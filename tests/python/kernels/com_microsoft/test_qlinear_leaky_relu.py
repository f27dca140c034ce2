"""com.microsoft QLinearLeakyRelu (src/onnx_light/kernels/com_microsoft/qlinear_leaky_relu.cc):
the code table on uint8 and int8 for the default and other alphas, exact against the table
written out in numpy and within one code of ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _qops import F32, check_codes, table_ref, unary_case


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("alpha", [None, 0.2, -1.5])
@pytest.mark.parametrize("shape", [(256,), (3, 5, 7), (0, 4)])
def test_qlinear_leaky_relu_matches_the_table_and_ort(dtype, alpha, shape):
    attrs = {} if alpha is None else {"alpha": alpha}
    xq, yq = (0.05, 10), (0.03, 2)
    model, feeds, x = unary_case("QLinearLeakyRelu", dtype, shape, xq, yq, **attrs)
    a = F32(0.01 if alpha is None else alpha)
    want = table_ref(lambda v: np.where(v >= 0, v, a * v), x, xq, yq, dtype)
    check_codes(model, feeds, [want])
