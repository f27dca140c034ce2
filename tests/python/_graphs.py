"""One-node models for the kernel tests, and the ONNX Runtime comparison they share.

onnxruntime is imported lazily: it is a test oracle only."""

from __future__ import annotations

import numpy as np

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

# Element types by their short names in the tests.
F, D, H, BF = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.BFLOAT16
I, I32, I8, U8 = TensorProto.INT64, TensorProto.INT32, TensorProto.INT8, TensorProto.UINT8
B, S = TensorProto.BOOL, TensorProto.STRING


def node_model(op, inputs, outputs, opset=17, initializers=None, **attrs):
    """A ModelProto with one node. inputs/outputs are (name, elem_type) pairs; an input
    named "" is an absent optional input (kept in the node, not a graph input), and one
    whose elem_type is None is a weight: `initializers` maps its name to a numpy array."""
    node = helper.make_node(op, [n for n, _ in inputs], [n for n, _ in outputs], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in inputs if n and t is not None],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        [numpy_helper.from_array(a, n) for n, a in (initializers or {}).items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def fused_conv_model(with_z=False, **attrs):
    """One onnx_light:FusedConv of x [1, 2, 5, 5] with all-ones 3x3 weights W [3, 2, 3, 3],
    bias B = [0.5, -1, 2] and pads 1, plus `attrs`; with_z adds a Z input (any shape)."""
    ins = ["x", "W", "B", "z"] if with_z else ["x", "W", "B"]
    node = helper.make_node("FusedConv", ins, ["y"], domain="onnx_light", pads=[1] * 4, **attrs)
    inputs = [helper.make_tensor_value_info("x", F, [1, 2, 5, 5])]
    if with_z:
        inputs.append(helper.make_tensor_value_info("z", F, None))
    graph = helper.make_graph(
        [node],
        "g",
        inputs,
        [helper.make_tensor_value_info("y", F, None)],
        [
            numpy_helper.from_array(np.ones((3, 2, 3, 3), np.float32), "W"),
            numpy_helper.from_array(np.array([0.5, -1, 2], np.float32), "B"),
        ],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("onnx_light", 1)]
    )


def node_bytes(op, inputs, outputs, opset=17, **attrs) -> bytes:
    return node_model(op, inputs, outputs, opset, **attrs).SerializeToString()


def run_node(op, inputs, feeds, outputs, opset=17, **attrs) -> list:
    """Runs a one-node model through onnx-light and returns every output."""
    return onnx_light.RuntimeSession(node_model(op, inputs, outputs, opset, **attrs)).run(
        None, feeds
    )


def run_one(op, inputs, feeds, outputs=(("y", F),), opset=17, **attrs) -> list:
    """run_node with one float output "y" unless told otherwise."""
    return run_node(op, inputs, feeds, outputs, opset, **attrs)


def light_and_ort(data: bytes, feeds) -> tuple:
    """The first output of onnx-light and of ONNX Runtime for the same model and feeds."""
    import onnxruntime as ort

    (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[:1]
    (got,) = onnx_light.RuntimeSession(data).run(None, feeds)[:1]
    return got, want


def levels_model():
    """x -> Identity -> Relu -> Dropout -> Add(c) -> y, with a dead branch (Exp of x, read
    by nothing) and a constant subgraph (Shape of an initializer, Cast) feeding Add."""
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    nodes = [
        helper.make_node("Identity", ["x"], ["i"], name="ident"),
        helper.make_node("Relu", ["i"], ["r"], name="relu"),
        helper.make_node("Dropout", ["r"], ["d"], name="drop"),
        helper.make_node("Exp", ["x"], ["dead"], name="dead_exp"),
        helper.make_node("Neg", ["w"], ["nw"], name="fold_neg"),
        helper.make_node("Add", ["d", "nw"], ["y"], name="add"),
        helper.make_node("Sigmoid", ["r"], ["z"], name="side"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F, [2, 3])],
        [
            helper.make_tensor_value_info("y", F, [2, 3]),
            helper.make_tensor_value_info("z", F, [2, 3]),
        ],
        [w],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


# A feed for levels_model.
LEVELS_X = np.array([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]], np.float32)
