"""One-node models for the kernel tests, and the ONNX Runtime comparison they share.

onnxruntime is imported lazily: it is a test oracle only."""

from __future__ import annotations

import onnx_light
from onnx_light.onnx import helper, numpy_helper


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


def node_bytes(op, inputs, outputs, opset=17, **attrs) -> bytes:
    return node_model(op, inputs, outputs, opset, **attrs).SerializeToString()


def run_node(op, inputs, feeds, outputs, opset=17, **attrs) -> list:
    """Runs a one-node model through onnx-light and returns every output."""
    return onnx_light.RuntimeSession(node_model(op, inputs, outputs, opset, **attrs)).run(
        None, feeds
    )


def light_and_ort(data: bytes, feeds) -> tuple:
    """The first output of onnx-light and of ONNX Runtime for the same model and feeds."""
    import onnxruntime as ort

    (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[:1]
    (got,) = onnx_light.RuntimeSession(data).run(None, feeds)[:1]
    return got, want
