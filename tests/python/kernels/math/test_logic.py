"""And, Or, Xor and Not (src/onnx_light/kernels/math/logic.cc): bool logic with numpy
broadcasting, exactly numpy's results."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B
from _one_node import check_bad_input, session

A = np.array([[True, False, True], [False, False, True]])
C = np.array([True, False, False])


@pytest.mark.parametrize(
    "op,ref", [("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)]
)
def test_binary_logic_broadcasts_like_numpy(op, ref):
    (y,) = session(op, [("a", B), ("b", B)], out_type=B).run(None, {"a": A, "b": C})
    np.testing.assert_array_equal(y, ref(A, C))


def test_not():
    (y,) = session("Not", [("a", B)], out_type=B).run(None, {"a": A})
    np.testing.assert_array_equal(y, ~A)


def test_shapes_that_do_not_broadcast_are_refused():
    check_bad_input(
        "And",
        [("a", B), ("b", B)],
        {"out_type": B},
        {"a": A, "b": np.ones(4, bool)},
        "cannot be broadcast",
    )
