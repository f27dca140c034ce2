"""com.microsoft QLinearConcat (src/onnx_light/kernels/com_microsoft/qlinear_concat.cc): inputs
with their own or Y's quantization (requantized through the identity's code table, or
copied), several axes, uint8 and int8; exact against numpy and within one code of ONNX
Runtime; mismatched shapes and types refused."""

from __future__ import annotations

import numpy as np
import pytest
from _ms import light_run, ms_model
from _qops import F32, centered, check_codes, codes, elem, quantize, zero_point


def case(dtype, shapes, axis, params):
    rng = np.random.default_rng(64)
    yq = (0.05, 3)
    inits = {"ys": np.array(yq[0], F32), "yz": zero_point(yq[1], dtype)}
    ins = [("ys", None), ("yz", None)]
    feeds, parts = {}, []
    for i, (shape, (s, z)) in enumerate(zip(shapes, params)):
        x = codes(rng, dtype, *shape)
        feeds[f"x{i}"] = x
        inits[f"s{i}"], inits[f"z{i}"] = np.array(s, F32), zero_point(z, dtype)
        ins += [(f"x{i}", elem(dtype)), (f"s{i}", None), (f"z{i}", None)]
        if (s, int(inits[f"z{i}"])) == (yq[0], int(inits["yz"])):
            parts.append(x)
        else:
            parts.append(quantize(F32(s) * centered(x, inits[f"z{i}"]), yq[0], inits["yz"], dtype))
    model = ms_model("QLinearConcat", ins, [("y", elem(dtype))], inits, axis=axis)
    return model, feeds, np.concatenate(parts, axis=axis)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize(
    "shapes,axis",
    [
        (((2, 3), (2, 5)), 1),
        (((1, 2, 4), (3, 2, 4), (2, 2, 4)), 0),
        (((2, 3, 4), (2, 3, 1)), -1),
        (((2, 0, 3), (2, 4, 3)), 1),
    ],
)
def test_qlinear_concat_matches_numpy_and_ort(dtype, shapes, axis):
    params = [(0.05, 3), (0.1, -7), (0.02, 0)][: len(shapes)]
    model, feeds, want = case(dtype, shapes, axis, params)
    check_codes(model, feeds, [want])


def test_qlinear_concat_refuses_shapes_that_differ_off_the_axis():
    model, feeds, _ = case(np.uint8, ((2, 3), (2, 5)), 1, [(0.05, 3), (0.1, 7)])
    feeds["x1"] = np.zeros((3, 5), np.uint8)
    with pytest.raises(ValueError, match="QLinearConcat.*does not match"):
        light_run(model, feeds)
