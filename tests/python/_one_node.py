"""One-node sessions for the kernel tests, and the check every kernel test module runs on
its op's bad inputs: a clear ValueError naming the node and the reason."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F

import onnx_light
from onnx_light.onnx import helper

# Ops with more than one required output: the extra ones are computed and dropped.
NODE_OUTPUTS = {"TopK": ["y", "indices"]}


def session(op, inputs, out_type=F, opset=17, **attrs):
    """A session of one `op` node reading `inputs` ((name, elem_type) pairs) into "y"."""
    node = helper.make_node(op, [n for n, _ in inputs], NODE_OUTPUTS.get(op, ["y"]), **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in inputs],
        [helper.make_tensor_value_info("y", out_type, None)],
    )
    return onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    )


def f32(*shape):
    return np.ones(shape, np.float32)


def check_bad_input(op, inputs, attrs, feeds, message, good=None):
    """The run refuses `feeds` with a ValueError that names the node's op (the executor's
    prefix) and matches `message`; with `good` feeds, the same session then runs them and
    their outputs are returned."""
    s = session(op, inputs, **attrs)
    with pytest.raises(ValueError, match=f"\\({op}\\): .*{message}"):
        s.run(None, feeds)
    return s.run(None, good) if good is not None else None
