"""fuse_conv_activation (src/onnx_light/runtime/passes/pass_fuse_conv_activation.cc): Conv +
activation (and the HardSwish and x*sigmoid(x) patterns) into onnx_light:FusedConv, checked
against the same model at level "none" (float32 at rtol 1e-5, atol 1e-5: the activation runs
in SIMD); and what must not fuse."""

from __future__ import annotations

import numpy as np
import pytest
from _conv_graphs import ONLY_THIS_PASS, check, conv_model, scalar

import onnx_light
from onnx_light.onnx import helper

ACTIVATIONS = [
    ("Relu", {}, []),
    ("Sigmoid", {}, []),
    ("Tanh", {}, []),
    ("LeakyRelu", {"alpha": 0.07}, []),
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}, []),
    ("HardSwish", {}, []),
    ("Clip", {}, ["lo", "hi"]),
]


@pytest.mark.parametrize("op,attrs,bounds", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
@pytest.mark.parametrize(
    "shape",
    [
        ((6, 3, 3, 3), (2, 3, 9, 11), {"pads": [1] * 4}),  # dense 3x3
        ((6, 1, 3, 3), (2, 6, 9, 11), {"pads": [1] * 4, "group": 6}),  # depthwise
        ((6, 1, 5, 5), (1, 6, 17, 19), {"pads": [2] * 4, "group": 6, "strides": [2, 2]}),
        ((6, 2, 3, 3), (2, 6, 9, 11), {"group": 3}),  # grouped, no padding
        ((6, 3, 1, 1), (2, 3, 9, 11), {}),  # 1x1 without im2col
        ((6, 3, 3), (2, 3, 13), {"pads": [1, 1]}),  # 1-D: the general path
    ],
    ids=["dense", "depthwise", "depthwise_s2", "grouped", "pointwise", "conv1d"],
)
def test_conv_activation_fuses(op, attrs, bounds, shape, tmp_path):
    w_shape, x_shape, conv_attrs = shape
    extra = [scalar("lo", -0.5), scalar("hi", 0.8)] if bounds else []
    tail = [helper.make_node(op, ["c", *bounds], ["y"], **attrs)]
    model = conv_model(
        tail, w_shape=w_shape, x_shape=x_shape, conv_attrs=conv_attrs, extra_inits=extra
    )
    check(model, fused_away=1, x_shape=x_shape, tmp_path=tmp_path)
    ops = [n.op_type for n in onnx_light.onnx.load(str(tmp_path / "o.onnx")).graph.node]
    assert ops == ["FusedConv"]


def test_clip_before_opset_11_and_relu_like_clip():
    tail = [helper.make_node("Clip", ["c"], ["y"], min=0.0, max=6.0)]
    check(conv_model(tail, opset=9), fused_away=1)
    tail = [helper.make_node("Clip", ["c", "zero"], ["y"])]  # no max: a Relu
    check(conv_model(tail, extra_inits=[scalar("zero", 0.0)]), fused_away=1)


@pytest.mark.parametrize("last", ["div6", "mul_sixth"])
def test_hardswish_pattern_fuses(last):
    """x * Clip(x + 3, 0, 6) / 6, as Paddle and older PyTorch exports write HardSwish."""
    tail = [
        helper.make_node("Add", ["c", "three"], ["a"]),
        helper.make_node("Clip", ["a", "zero", "six"], ["cl"]),
        helper.make_node("Mul", ["c", "cl"], ["m"]),
        (
            helper.make_node("Div", ["m", "six"], ["y"])
            if last == "div6"
            else helper.make_node("Mul", ["m", "sixth"], ["y"])
        ),
    ]
    inits = [
        scalar("three", 3.0),
        scalar("zero", 0.0),
        scalar("six", 6.0),
        scalar("sixth", 1.0 / 6.0),
    ]
    check(conv_model(tail, extra_inits=inits), fused_away=4)


def test_silu_pattern_fuses():
    tail = [helper.make_node("Sigmoid", ["c"], ["s"]), helper.make_node("Mul", ["s", "c"], ["y"])]
    check(conv_model(tail), fused_away=2)


def test_what_must_not_fuse():
    # The conv output is also a graph output: the Relu stays.
    tail = [helper.make_node("Relu", ["c"], ["y"])]
    check(conv_model(tail, outputs=("y", "c")), fused_away=0)
    # Read by two nodes.
    tail = [helper.make_node("Relu", ["c"], ["y"]), helper.make_node("Neg", ["c"], ["z"])]
    check(conv_model(tail, outputs=("y", "z")), fused_away=0)
    # HardSwish-like chain with the wrong constant (Add 2, not 3).
    tail = [
        helper.make_node("Add", ["c", "two"], ["a"]),
        helper.make_node("Clip", ["a", "zero", "six"], ["cl"]),
        helper.make_node("Mul", ["c", "cl"], ["m"]),
        helper.make_node("Div", ["m", "six"], ["y"]),
    ]
    inits = [scalar("two", 2.0), scalar("zero", 0.0), scalar("six", 6.0)]
    check(conv_model(tail, extra_inits=inits), fused_away=0)
    # float64: FusedConv is float32 only.
    tail = [helper.make_node("Relu", ["c"], ["y"])]
    model = conv_model(tail, dtype=np.float64)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    assert onnx_light.RuntimeSession(model, **ONLY_THIS_PASS).planned_nodes == none.planned_nodes
