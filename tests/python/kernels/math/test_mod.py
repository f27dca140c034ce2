"""Mod (src/onnx_light/kernels/math/mod.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32, session

from onnx_light.onnx import TensorProto


def test_mod_refuses_fmod_0_for_floats():
    # Attributes are checked when the kernel is created, on the first run.
    with pytest.raises(ValueError, match="fmod must be 1 for floating-point inputs"):
        session("Mod", [("a", F), ("b", F)]).run(None, {"a": f32(2), "b": f32(2)})


@pytest.mark.parametrize(
    "dtype,etype", [(np.int32, TensorProto.INT32), (np.int64, TensorProto.INT64)]
)
def test_integer_mod_matches_numpy(dtype, etype):
    x = np.array([-7, 7, -7, 7, np.iinfo(dtype).min, 5], dtype)
    d = np.array([3, -3, -3, 3, -1, 7], dtype)
    for fmod, ref in ((0, np.mod), (1, np.fmod)):
        (y,) = session("Mod", [("a", etype), ("b", etype)], out_type=etype, fmod=fmod).run(
            None, {"a": x, "b": d}
        )
        np.testing.assert_array_equal(y, ref(x, d), err_msg=f"fmod={fmod}")


BAD_INPUTS = [
    (
        "Mod",
        [("a", I), ("b", I)],
        {"out_type": I},
        {"a": np.array([3, 4]), "b": np.array([1, 0])},
        "integer division by zero",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
