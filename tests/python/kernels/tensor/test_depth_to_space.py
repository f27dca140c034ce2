"""DepthToSpace, SpaceToDepth (src/onnx_light/kernels/tensor/depth_to_space.cc): values
equal to the ONNX spec's reshape-transpose-reshape definition in numpy (and to ONNX
Runtime on float) for DCR and CRD, blocks 1-3, item sizes 1, 2, 4, 8, bool and strings
(the element-wise fallback), at 1 and 2 threads; bad inputs refused with a ValueError
that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F
from _item_types import TYPES
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import TensorProto, helper

ELEM = TYPES


def spec_reference(op, x, b, mode):
    n, c, h, w = x.shape
    if op == "SpaceToDepth":
        t = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
        return t.reshape(n, c * b * b, h // b, w // b)
    if mode == "DCR":
        t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // (b * b), h * b, w * b)


def make(op, dtype, b, mode):
    attrs = {"blocksize": b} | ({"mode": mode} if op == "DepthToSpace" else {})
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", ELEM[dtype], None)],
        [helper.make_tensor_value_info("y", ELEM[dtype], None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", list(ELEM))
@pytest.mark.parametrize(
    "op,shape,b,mode",
    [
        ("DepthToSpace", (1, 256, 28, 28), 2, "DCR"),
        ("DepthToSpace", (2, 36, 5, 7), 3, "CRD"),
        ("DepthToSpace", (1, 8, 3, 3), 2, "CRD"),
        ("DepthToSpace", (2, 18, 4, 1), 3, "DCR"),
        ("DepthToSpace", (1, 5, 2, 3), 1, "DCR"),
        ("SpaceToDepth", (1, 64, 56, 56), 2, None),
        ("SpaceToDepth", (2, 3, 9, 6), 3, None),
        ("SpaceToDepth", (1, 3, 640, 640), 2, None),
        ("SpaceToDepth", (2, 5, 8, 44), 4, None),  # 4 interleaved columns a block
    ],
)
def test_values_match_the_spec(op, shape, b, mode, dtype, threads):
    if dtype is np.str_ and np.prod(shape) > 100000:  # (element by element: smaller planes)
        shape = tuple(min(d, 12) for d in shape)
    x = np.random.default_rng(b).integers(0, 100, shape)
    x = x.astype(str) if dtype is np.str_ else x.astype(dtype)
    s = onnx_light.RuntimeSession(make(op, dtype, b, mode), intra_op_threads=threads)
    got = s.run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, spec_reference(op, x, b, mode))


def test_float_values_match_onnxruntime():
    import onnxruntime as ort  # the oracle (requirements/oracles.txt): missing fails loudly

    x = np.random.default_rng(0).standard_normal((1, 48, 10, 12)).astype(np.float32)
    for op, mode in (("DepthToSpace", "DCR"), ("DepthToSpace", "CRD"), ("SpaceToDepth", None)):
        model = make(op, np.float32, 2, mode)
        got = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
        theirs = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        np.testing.assert_array_equal(got, theirs.run(None, {"x": x})[0])


BAD_INPUTS = [
    (
        "DepthToSpace",
        [("a", F)],
        {"blocksize": 2},
        {"a": f32(1, 3, 2, 2)},
        "not divisible by blocksize",
    ),
    (
        "SpaceToDepth",
        [("a", F)],
        {"blocksize": 2},
        {"a": f32(1, 1, 3, 2)},
        "must be divisible by blocksize",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
