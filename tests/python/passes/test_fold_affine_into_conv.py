"""fold_affine_into_conv (src/onnx_light/runtime/passes/pass_fold_affine_into_conv.cc): a
per-channel or scalar Mul, Add or Sub by a constant right after a float32 Conv folds into
its weights and bias, repeatedly, against level "none" (float32 at rtol 1e-5, atol 1e-5:
scaled weights round differently); a constant that varies along another axis, or a Conv
output read twice, does not fold."""

from __future__ import annotations

import numpy as np
import pytest
from _conv_graphs import check, conv_model

from onnx_light.onnx import helper, numpy_helper

RNG = np.random.default_rng(23)


def constant(name, shape):
    return numpy_helper.from_array(RNG.uniform(0.5, 1.5, shape).astype(np.float32), name)


@pytest.mark.parametrize(
    "ops,shapes",
    [
        (["Mul"], [(6, 1, 1)]),
        (["Add"], [(1, 6, 1, 1)]),
        (["Sub"], [()]),
        (["Mul", "Add"], [(6, 1, 1), (6, 1, 1)]),
        (["Mul", "Sub", "Mul"], [(), (6, 1, 1), (1,)]),
    ],
)
def test_per_channel_and_scalar_maps_fold(ops, shapes):
    tail, inits, prev = [], [], "c"
    for i, (op, shape) in enumerate(zip(ops, shapes)):
        out = "y" if i == len(ops) - 1 else f"t{i}"
        tail.append(helper.make_node(op, [prev, f"k{i}"], [out]))
        inits.append(constant(f"k{i}", shape))
        prev = out
    check(conv_model(tail, extra_inits=inits), fused_away=len(ops))


@pytest.mark.parametrize("shape", [(6, 9, 1), (1, 1, 11)])
def test_a_constant_that_varies_along_another_axis_stays(shape):
    tail = [helper.make_node("Mul", ["c", "k"], ["y"])]
    check(conv_model(tail, extra_inits=[constant("k", shape)]), fused_away=0)


def test_a_conv_output_read_twice_stays():
    tail = [helper.make_node("Mul", ["c", "k"], ["y"]), helper.make_node("Neg", ["c"], ["z"])]
    check(
        conv_model(tail, extra_inits=[constant("k", (6, 1, 1))], outputs=("y", "z")), fused_away=0
    )
