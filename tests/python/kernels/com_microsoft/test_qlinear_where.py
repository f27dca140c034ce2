"""com.microsoft QLinearWhere (src/onnx_light/kernels/com_microsoft/qlinear_where.cc):
three-way broadcasting, X and Y requantized to Z (or copied when their parameters are Z's),
uint8 and int8; exact against numpy and within one code of ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B
from _ms import ms_model
from _qops import F32, centered, check_codes, codes, elem, quantize, zero_point


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize(
    "sc,sx,sy",
    [((6,), (6,), (6,)), ((2, 1), (1, 5), (2, 5)), ((3, 4), (1,), (4,)), ((1,), (2, 3), (2, 3))],
)
@pytest.mark.parametrize("same", [False, True])
def test_qlinear_where(dtype, sc, sx, sy, same):
    rng = np.random.default_rng(96)
    cond = rng.integers(0, 2, sc).astype(bool)
    x, y = codes(rng, dtype, *sx), codes(rng, dtype, *sy)
    zq = (0.05, 3)
    xq = zq if same else (0.1, -4)
    yq = (0.02, 9)
    inits = {}
    for n, (s, z) in {"x": xq, "y": yq, "z": zq}.items():
        inits[n + "s"], inits[n + "z"] = np.array(s, F32), zero_point(z, dtype)
    ins = [
        ("c", B),
        ("x", elem(dtype)),
        ("xs", None),
        ("xz", None),
        ("y", elem(dtype)),
        ("ys", None),
        ("yz", None),
        ("zs", None),
        ("zz", None),
    ]
    model = ms_model("QLinearWhere", ins, [("out", elem(dtype))], inits)

    def requant(v, q, name):
        if q == zq:
            return v
        return quantize(F32(q[0]) * centered(v, inits[name + "z"]), zq[0], inits["zz"], dtype)

    want = np.where(cond, requant(x, xq, "x"), requant(y, yq, "y"))
    check_codes(model, {"c": cond, "x": x, "y": y}, [want])
