"""Clip, Gelu, PRelu (src/onnx_light/kernels/math/activation.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import pytest
from _graphs import F
from _one_node import check_bad_input, f32, session


def test_gelu_refuses_an_unknown_approximation():
    with pytest.raises(ValueError, match="approximate must be 'none' or 'tanh'"):
        session("Gelu", [("a", F)], opset=20, approximate="erf").run(None, {"a": f32(2)})


BAD_INPUTS = [
    ("Clip", [("a", F), ("lo", F)], {}, {"a": f32(3), "lo": f32(2)}, "min must hold one element"),
    ("PRelu", [("a", F), ("s", F)], {}, {"a": f32(3), "s": f32(2, 3)}, "does not broadcast to X"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
