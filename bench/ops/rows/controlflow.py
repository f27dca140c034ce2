"""Control flow (kernels/controlflow/): If, Loop and Scan with small bodies, where what is
measured is the per-branch and per-iteration cost of running a subgraph (an LSTM written
as a Loop, a Scan over time steps)."""

import numpy as np
from cases import In, OpCase

from onnx_light.onnx import helper

FLOAT = 1
SHAPE = (256, 1024)


def _branch(op: str):
    """A branch graph: one `op` on the outer scope's scope0."""
    return helper.make_graph(
        [helper.make_node(op, ["scope0"], ["y"])],
        op,
        [],
        [helper.make_tensor_value_info("y", FLOAT, None)],
    )


def _loop_body():
    """A Loop body over a [1,64] state: state = tanh(state @ W + x) with W and x from the
    outer scope (a recurrent cell), the state also collected as a scan output."""
    nodes = [
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("MatMul", ["h_in", "scope0"], ["hw"]),
        helper.make_node("Add", ["hw", "scope1"], ["pre"]),
        helper.make_node("Tanh", ["pre"], ["h_out"]),
        helper.make_node("Identity", ["h_out"], ["h_scan"]),
    ]
    return helper.make_graph(
        nodes,
        "cell",
        [
            helper.make_tensor_value_info("i", 7, []),
            helper.make_tensor_value_info("cond_in", 9, []),
            helper.make_tensor_value_info("h_in", FLOAT, [1, 64]),
        ],
        [
            helper.make_tensor_value_info("cond_out", 9, []),
            helper.make_tensor_value_info("h_out", FLOAT, [1, 64]),
            helper.make_tensor_value_info("h_scan", FLOAT, [1, 64]),
        ],
    )


def _scan_body():
    """A Scan body: state = tanh(state @ W + x_t), W from the outer scope."""
    nodes = [
        helper.make_node("MatMul", ["s_in", "scope0"], ["sw"]),
        helper.make_node("Add", ["sw", "x_t"], ["pre"]),
        helper.make_node("Tanh", ["pre"], ["s_out"]),
        helper.make_node("Identity", ["s_out"], ["y_t"]),
    ]
    return helper.make_graph(
        nodes,
        "step",
        [
            helper.make_tensor_value_info("s_in", FLOAT, [1, 64]),
            helper.make_tensor_value_info("x_t", FLOAT, [1, 64]),
        ],
        [
            helper.make_tensor_value_info("s_out", FLOAT, [1, 64]),
            helper.make_tensor_value_info("y_t", FLOAT, [1, 64]),
        ],
    )


ROWS = [
    OpCase(
        "If then Relu else Neg [256,1024]",
        "If",
        [In((), np.bool_, values=True)],
        {"then_branch": _branch("Relu"), "else_branch": _branch("Neg")},
        opset=13,
        out_types=[FLOAT],
        scope=[In(SHAPE)],
    ),
    OpCase(
        "Loop 200 steps of a [1,64] tanh cell",
        "Loop",
        [
            In((), np.int64, values=200),
            In((), np.bool_, values=True),
            In((1, 64)),
        ],
        {"body": _loop_body()},
        opset=16,
        outputs=2,
        out_types=[FLOAT, FLOAT],
        tol=1e-5,
        scope=[In((64, 64), const=True, values=np.eye(64) * 0.5), In((1, 64), const=True)],
    ),
    OpCase(
        "Scan 200 steps of a [1,64] tanh cell",
        "Scan",
        [In((1, 64)), In((200, 1, 64))],
        {"body": _scan_body(), "num_scan_inputs": 1},
        opset=16,
        outputs=2,
        out_types=[FLOAT, FLOAT],
        tol=1e-5,
        scope=[In((64, 64), const=True, values=np.eye(64) * 0.5)],
    ),
]
