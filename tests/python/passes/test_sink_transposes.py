"""The transpose-sinking pass (basic level) and no-op Cast removal, each checked against
the same model at level "none": Transposes move past element-wise ops (constants permuted)
until they meet their inverse, and both go; what must not move stays. The NHWC pattern
that converters emit then folds whole into one FusedConv. Moved Transposes compute the
same values in another order: exact, except where a fold rescales weights (float32 at
rtol 1e-5, atol 1e-5)."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT

# The element-wise chain fusion would merge the nodes these tests count: off here (it has
# its own tests, test_fuse_elementwise_chain.py).
ONLY_THIS_PASS = {"disabled_passes": ["fuse_elementwise_chain"]}
RNG = np.random.default_rng(5)
NHWC = [0, 2, 3, 1]
NCHW = [0, 3, 1, 2]


def const(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def model(nodes, inits, x_shape, outputs=("y",), opset=17, inputs=None):
    graph = helper.make_graph(
        nodes,
        "g",
        inputs or [helper.make_tensor_value_info("x", F, list(x_shape))],
        [helper.make_tensor_value_info(o, 0, None) for o in outputs],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def compare(m, feeds, *, exact=True, tmp_path=None):
    """Runs m at level none and at the default level; returns the optimized session."""
    none = onnx_light.RuntimeSession(m, graph_optimization_level="none")
    kw = {"optimized_model_path": tmp_path / "o.onnx"} if tmp_path else {}
    opt = onnx_light.RuntimeSession(m, **kw, **ONLY_THIS_PASS)
    want, got = none.run(None, feeds), opt.run(None, feeds)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        if exact:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    if tmp_path:  # the rewritten graph saves and loads as a standard model
        back = onnx_light.RuntimeSession(tmp_path / "o.onnx", graph_optimization_level="none")
        assert back.planned_nodes == opt.planned_nodes
        for g, b in zip(got, back.run(None, feeds)):
            np.testing.assert_array_equal(b, g)
    return none, opt


def ops(session_model_path):
    from onnx_light.onnx import load

    return [n.op_type for n in load(str(session_model_path)).graph.node]


def test_converted_nhwc_block_folds_into_one_fused_conv(tmp_path):
    # Conv -> NHWC -> bias Add, batch-norm Sub/Mul/Add ([1,1,1,C] and [C] constants),
    # no-op Casts, Relu -> NCHW -> Conv: what tf2onnx leaves around each convolution.
    c = 6
    w1 = (RNG.standard_normal((c, 3, 3, 3)) * 0.3).astype(np.float32)
    w2 = (RNG.standard_normal((4, c, 1, 1)) * 0.3).astype(np.float32)
    per = lambda: RNG.standard_normal((1, 1, 1, c)).astype(np.float32)  # noqa: E731
    inits = [
        const("W1", w1),
        const("W2", w2),
        const("bias", RNG.standard_normal(c).astype(np.float32)),
        const("mean", per()),
        const("scale", np.abs(per()) + 0.5),
        const("shift", per()),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "W1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Transpose", ["c1"], ["t1"], perm=NHWC),
        helper.make_node("Cast", ["t1"], ["k1"], to=F),
        helper.make_node("Add", ["k1", "bias"], ["a1"]),
        helper.make_node("Sub", ["a1", "mean"], ["s1"]),
        helper.make_node("Mul", ["s1", "scale"], ["m1"]),
        helper.make_node("Add", ["m1", "shift"], ["a2"]),
        helper.make_node("Cast", ["a2"], ["k2"], to=F),
        helper.make_node("Relu", ["k2"], ["r"]),
        helper.make_node("Transpose", ["r"], ["t2"], perm=NCHW),
        helper.make_node("Conv", ["t2", "W2"], ["y"]),
    ]
    m = model(nodes, inits, (2, 3, 7, 9))
    x = RNG.standard_normal((2, 3, 7, 9)).astype(np.float32)
    none, opt = compare(m, {"x": x}, exact=False, tmp_path=tmp_path)
    assert none.planned_nodes == 11
    assert ops(tmp_path / "o.onnx") == ["FusedConv", "Conv"]


def test_residual_branches_meet_and_cancel(tmp_path):
    # Two NHWC branches added, then the sum feeds an NCHW Transpose and a graph output
    # (pinned: its Transpose stays, the other cancels).
    def branch(tag):
        return [
            helper.make_node("Transpose", [f"x{tag}"], [f"t{tag}"], perm=NHWC),
            helper.make_node("Mul", [f"t{tag}", "s"], [f"m{tag}"]),
        ]

    inits = [const("s", RNG.standard_normal(5).astype(np.float32))]
    nodes = branch("a") + branch("b")
    nodes += [
        helper.make_node("Add", ["ma", "mb"], ["sum"]),
        helper.make_node("Relu", ["sum"], ["nhwc"]),
        helper.make_node("Transpose", ["nhwc"], ["back"], perm=NCHW),
        helper.make_node("Sigmoid", ["back"], ["y"]),
    ]
    inputs = [helper.make_tensor_value_info(n, F, [2, 5, 3, 4]) for n in ("xa", "xb")]
    m = model(nodes, inits, None, outputs=("y", "nhwc"), inputs=inputs)
    feeds = {n: RNG.standard_normal((2, 5, 3, 4)).astype(np.float32) for n in ("xa", "xb")}
    none, opt = compare(m, feeds, tmp_path=tmp_path)
    # Three Transposes in, one out (in front of the graph output "nhwc").
    assert ops(tmp_path / "o.onnx").count("Transpose") == 1
    assert none.planned_nodes - opt.planned_nodes == 2


def test_transposes_merge_and_constants_of_lower_rank():
    nodes = [
        helper.make_node("Transpose", ["x"], ["a"], perm=[1, 2, 0]),
        helper.make_node("Add", ["a", "row"], ["b"]),  # rank 1: broadcast on the last axis
        helper.make_node("Mul", ["b", "two"], ["c"]),  # rank 0
        helper.make_node("Where", ["mask", "c", "alt"], ["d"]),  # constant condition
        helper.make_node("Clip", ["d", "lo", "hi"], ["e"]),  # scalar bounds stay
        helper.make_node("Transpose", ["e"], ["y"], perm=[0, 2, 1]),  # merges: not inverse
    ]
    inits = [
        const("row", RNG.standard_normal(2).astype(np.float32)),
        const("two", np.float32(2)),
        const("mask", RNG.random((3, 1, 2)) > 0.5),
        const("alt", RNG.standard_normal((4, 1)).astype(np.float32)),
        const("lo", np.float32(-1)),
        const("hi", np.float32(1.5)),
    ]
    m = model(nodes, inits, (2, 3, 4))
    none, opt = compare(m, {"x": RNG.standard_normal((2, 3, 4)).astype(np.float32)})
    assert none.planned_nodes - opt.planned_nodes == 1  # two Transposes became one


def test_cast_to_another_type_moves_and_cancels():
    nodes = [
        helper.make_node("Transpose", ["x"], ["a"], perm=[1, 0]),
        helper.make_node("Cast", ["a"], ["b"], to=TensorProto.INT64),
        helper.make_node("Transpose", ["b"], ["y"], perm=[1, 0]),
    ]
    m = model(nodes, [], (3, 5))
    none, opt = compare(m, {"x": (RNG.standard_normal((3, 5)) * 9).astype(np.float32)})
    assert opt.planned_nodes == 1 and none.planned_nodes == 3


def test_no_op_cast_goes_and_real_cast_stays():
    nodes = [
        helper.make_node("Cast", ["x"], ["a"], to=F),
        helper.make_node("CastLike", ["a", "x"], ["b"]),
        helper.make_node("Cast", ["b"], ["y"], to=TensorProto.FLOAT16),
    ]
    m = model(nodes, [], (4,))
    none, opt = compare(m, {"x": RNG.standard_normal(4).astype(np.float32)})
    assert none.planned_nodes == 3 and opt.planned_nodes == 1


@pytest.mark.parametrize(
    "case",
    ["two_readers", "no_perm", "non_elementwise", "graph_output", "fed_other", "subgraph"],
)
def test_what_must_not_move(case):
    x_shape = (2, 3, 4)
    inits = [const("c", RNG.standard_normal(2).astype(np.float32))]
    outputs = ("y",)
    t = helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1])
    if case == "two_readers":  # one Transpose would become two
        nodes = [t, helper.make_node("Relu", ["t"], ["y"]), helper.make_node("Neg", ["t"], ["z"])]
        outputs = ("y", "z")
    elif case == "no_perm":  # a reversal of unknown rank
        nodes = [
            helper.make_node("Transpose", ["x"], ["t"]),
            helper.make_node("Relu", ["t"], ["r"]),
            helper.make_node("Transpose", ["r"], ["y"]),
        ]
    elif case == "non_elementwise":
        nodes = [
            t,
            helper.make_node("Softmax", ["t"], ["s"]),
            helper.make_node("Relu", ["s"], ["y"]),
        ]
    elif case == "graph_output":
        nodes = [t, helper.make_node("Relu", ["t"], ["y"])]
        outputs = ("y", "t")
    elif case == "fed_other":  # the other operand is not a constant or a like Transpose
        nodes = [t, helper.make_node("Add", ["t", "t2"], ["y"])]
        nodes.insert(0, helper.make_node("Neg", ["x2"], ["t2"]))
    else:  # a subgraph reads the transposed value
        branch = helper.make_graph(
            [helper.make_node("Relu", ["t"], ["o"])],
            "b",
            [],
            [helper.make_tensor_value_info("o", F, None)],
        )
        nodes = [
            t,
            helper.make_node("If", ["cond"], ["y"], then_branch=branch, else_branch=branch),
            helper.make_node("Relu", ["t"], ["z"]),
        ]
        inits.append(const("cond", np.array(True)))
        outputs = ("y", "z")
    inputs = [helper.make_tensor_value_info("x", F, list(x_shape))]
    feeds = {"x": RNG.standard_normal(x_shape).astype(np.float32)}
    if case == "fed_other":
        inputs.append(helper.make_tensor_value_info("x2", F, [2, 4, 3]))
        feeds["x2"] = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    m = model(nodes, inits, None, outputs=outputs, inputs=inputs)
    none, opt = compare(m, feeds)
    assert opt.planned_nodes == none.planned_nodes
