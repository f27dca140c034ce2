"""And, Or, Xor and Not (src/onnx_light/kernels/math/logic.cc): bool logic with numpy
broadcasting, exactly numpy's results. Operands of one shape run as bytes in the CPU's
widest vectors (split between threads when large): sizes around a vector and a chunk,
and odd lengths, at 1 and 2 threads; the bytes of every output are 0 or 1."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, node_model
from _one_node import check_bad_input, session

import onnx_light

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


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [1, 63, 64, 65, 1000, 262144 + 17])
@pytest.mark.parametrize(
    "op,ref", [("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)]
)
def test_same_shape_operands_as_bytes(op, ref, n, threads):
    rng = np.random.default_rng(n)
    a, b = rng.random(n) < 0.5, rng.random(n) < 0.5
    model = node_model(op, [("a", B), ("b", B)], [("y", B)])
    (y,) = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"a": a, "b": b})
    assert y.dtype == np.bool_ and set(np.unique(y.view(np.uint8))) <= {0, 1}
    np.testing.assert_array_equal(y, ref(a, b))
    (z,) = session("Not", [("a", B)], out_type=B).run(None, {"a": a})
    np.testing.assert_array_equal(z, ~a)


def test_shapes_that_do_not_broadcast_are_refused():
    check_bad_input(
        "And",
        [("a", B), ("b", B)],
        {"out_type": B},
        {"a": A, "b": np.ones(4, bool)},
        "cannot be broadcast",
    )
