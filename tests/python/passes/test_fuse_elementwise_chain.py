"""fuse_elementwise_chain: float32 element-wise nodes in a row become one
onnx_light:ElementwiseChain. Every step computes what its ai.onnx op computes (IEEE
arithmetic, the same vector functions for the unary ops), so the fused results equal the
unfused graph's (level "none") bit for bit, over blocks and their tails, on one thread and
two, and for operands that broadcast (per channel or per row in the blocks, others step
by step). Also what must not fuse, the
node read from a file with bad attributes, and disabled_passes."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


RNG = np.random.default_rng(23)


def chain_model(steps, *, shape, operand_shapes=None, outputs=("y",), elem=F, consts=None):
    """x -> steps -> y. A step is (op, other) with other None (unary), a float constant
    (a one-element initializer), "x" (the chain's input again), or a feed name whose shape
    operand_shapes gives; a leading "r:" puts the running value second (other op value)."""
    nodes, inits, inputs = [], [], [helper.make_tensor_value_info("x", elem, list(shape))]
    value = "x"
    for k, (op, other) in enumerate(steps):
        out = "y" if k == len(steps) - 1 else f"v{k}"
        if other is None:
            nodes.append(helper.make_node(op, [value], [out]))
        else:
            swap = isinstance(other, str) and other.startswith("r:")
            name = other[2:] if swap else other
            if swap and name[0].isdigit():
                name = float(name)
            if isinstance(name, float):
                cname = f"c{k}"
                cshape = (consts or {}).get(k, (1,))
                inits.append(numpy_helper.from_array(np.full(cshape, name, np.float32), cname))
                name = cname
            elif name != "x" and name not in [i.name for i in inputs]:
                inputs.append(helper.make_tensor_value_info(name, elem, list(operand_shapes[name])))
            nodes.append(helper.make_node(op, [name, value] if swap else [value, name], [out]))
        value = out
    graph = helper.make_graph(
        nodes,
        "chain",
        inputs,
        [helper.make_tensor_value_info(o, elem, None) for o in outputs],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def both(model, feeds, threads=1, **kw):
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, intra_op_threads=threads, **kw)
    return none, opt, none.run(None, feeds), opt.run(None, feeds)


CHAINS = {
    "mul_add": [("Mul", 1.5), ("Add", -0.25)],
    "affine_tanh_affine": [("Mul", 0.5), ("Tanh", None), ("Add", 1.0), ("Mul", 0.5)],
    "silu_of_scaled": [("Mul", 1.702), ("Sigmoid", None), ("Mul", "x")],
    "reversed_operands": [("Sub", "r:2.0"), ("Div", "r:3.0"), ("Exp", None)],
    "full_size_operands": [("Add", "b"), ("Mul", "c"), ("Relu", None), ("Sub", "r:b")],
    "erf_hardswish": [("Erf", None), ("HardSwish", None), ("Div", 7.0)],
    "long": [
        ("Add", 1.0),
        ("Mul", 2.0),
        ("Sub", 0.5),
        ("Div", 3.0),
        ("Relu", None),
        ("Tanh", None),
    ],
}


NOT_FUSED = {
    # name: steps, outputs, nodes fused away
    "intermediate_is_an_output": ([("Mul", 2.0), ("Add", 1.0)], ("y", "v0"), 0),
    "square": ([("Mul", 2.0), ("Relu", None)], ("y",), 1),  # control: this one fuses
    "one_node": ([("Tanh", None)], ("y",), 0),
    "not_chainable_op": ([("Mul", 2.0), ("Neg", None), ("Add", 1.0)], ("y",), 0),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(3, 5), (1, 4096 + 17), (2, 3, 8192 + 5)], ids=str)
@pytest.mark.parametrize("name", sorted(CHAINS))
def test_chains_fuse_and_match_the_unfused_graph_exactly(name, shape, threads, tmp_path):
    steps = CHAINS[name]
    model = chain_model(steps, shape=shape, operand_shapes={"b": shape, "c": shape})
    feeds = {"x": (RNG.standard_normal(shape) * 3).astype(np.float32)}
    if any(o in ("b", "c", "r:b") for _, o in steps):
        feeds["b"] = RNG.standard_normal(shape).astype(np.float32)
        feeds["c"] = RNG.standard_normal(shape).astype(np.float32)
    path = tmp_path / "o.onnx"
    none, opt, want, got = both(model, feeds, threads, optimized_model_path=path)
    assert none.planned_nodes - opt.planned_nodes == len(steps) - 1
    np.testing.assert_array_equal(got[0], want[0])
    written = onnx_light.onnx.load(str(path))
    assert [n.op_type for n in written.graph.node] == ["ElementwiseChain"]
    back = onnx_light.RuntimeSession(path, graph_optimization_level="none").run(None, feeds)[0]
    np.testing.assert_array_equal(back, got[0])


@pytest.mark.parametrize(
    "operand_shape,x_shape",
    [
        ((1, 6, 1, 1), (2, 6, 5, 7)),  # per channel: blocked, runs of 35 against one value
        ((96, 1, 1), (1, 96, 80, 80)),  # PP-OCRv4 det's: runs of 6400, blocks cut inside them
        ((7,), (2, 6, 5, 7)),  # a row: blocked, the row repeating
        ((5, 1), (3, 5, 4099)),  # runs across block ends
        ((6, 1, 7), (2, 6, 5, 7)),  # not one run of equal dims: step by step
        ((2, 6, 5, 7), (2, 6, 1, 7)),  # the running value broadcasts (grows): step by step
    ],
    ids=str,
)
@pytest.mark.parametrize("threads", [1, 2])
def test_operands_that_broadcast(operand_shape, x_shape, threads):
    steps = [("Mul", 2.0), ("Add", "b"), ("Sigmoid", None), ("Div", "r:b")]
    model = chain_model(steps, shape=x_shape, operand_shapes={"b": operand_shape})
    feeds = {
        "x": RNG.standard_normal(x_shape).astype(np.float32),
        "b": (RNG.standard_normal(operand_shape) + 3).astype(np.float32),
    }
    none, opt, want, got = both(model, feeds, threads)
    assert none.planned_nodes - opt.planned_nodes == 3
    assert got[0].shape == want[0].shape
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("length", [63, 64, 80, 200])
def test_a_chain_longer_than_the_kernels_operands_splits(length):
    """The kernel names operands 1..63: a longer run of steps with distinct constants (80
    Div/Mul in a row in onnxruntime_go's example_big_compute.onnx had been refused at run
    time) becomes several chains, each within the limit, equal to the unfused graph."""
    steps = [("Div" if k % 2 == 0 else "Mul", 1.0 + k / 64.0) for k in range(length)]
    model = chain_model(steps, shape=(3, 700))
    feeds = {"x": RNG.standard_normal((3, 700)).astype(np.float32)}
    none, opt, want, got = both(model, feeds)
    np.testing.assert_array_equal(got[0], want[0])
    assert opt.planned_nodes == -(-length // 63)  # chains of 63 steps, one operand each


def test_a_head_with_the_constant_first_starts_from_the_tensor():
    model = chain_model([("Mul", "r:0.5"), ("Add", 1.0)], shape=(4, 9))
    feeds = {"x": RNG.standard_normal((4, 9)).astype(np.float32)}
    _, opt, want, got = both(model, feeds)
    np.testing.assert_array_equal(got[0], want[0])
    # A one-element constant of higher rank than x broadcasts x up: step by step.
    model = chain_model([("Mul", 0.5), ("Add", 1.0)], shape=(9,), consts={1: (1, 1)})
    _, _, want, got = both(model, {"x": feeds["x"][0]})
    assert got[0].shape == want[0].shape == (1, 9)
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "steps",
    [
        [("Mul", "s"), ("Mul", "t"), ("Add", "b")],  # a quantized product's scales, its sums
        [("Mul", "s"), ("Exp", None), ("Sub", "r:t"), ("Relu", None)],  # value second
        [("Div", "t"), ("Mul", 3.0)],  # the tensor at once: the one value first (Div)
    ],
    ids=["scales", "unary_and_swap", "at_once"],
)
def test_a_chain_from_one_value_runs_in_blocks_from_the_tensor(steps, threads):
    """The chain's input is one value (x_scale), the tensor comes in at a later step: the
    steps before it on that value, the blocks from the tensor on; equal bit for bit."""
    shapes = {"s": (), "t": (2, 24, 33, 65), "b": (1, 24, 1, 1)}
    model = chain_model(steps, shape=(), operand_shapes=shapes)
    feeds = {"x": np.array(0.37, np.float32)}
    for name, shape in shapes.items():
        if any(other == name or other == "r:" + name for _, other in steps):
            feeds[name] = np.asarray(RNG.standard_normal(shape) + 0.5, np.float32)
    none, opt, want, got = both(model, feeds, threads)
    assert opt.planned_nodes == 1
    assert got[0].shape == want[0].shape == (2, 24, 33, 65)
    np.testing.assert_array_equal(got[0], want[0])


def test_a_one_value_chain_of_higher_rank_broadcasts_step_by_step():
    # x [1, 1] against a [5] tensor: the result is [1, 5], not the tensor's shape.
    model = chain_model(
        [("Mul", "s"), ("Add", "t")], shape=(1, 1), operand_shapes={"s": (), "t": (5,)}
    )
    feeds = {
        "x": np.full((1, 1), 2.0, np.float32),
        "s": np.array(3.0, np.float32),
        "t": np.arange(5, dtype=np.float32),
    }
    _, _, want, got = both(model, feeds)
    assert got[0].shape == want[0].shape == (1, 5)
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("case", sorted(NOT_FUSED))
def test_what_must_not_fuse(case):
    steps, outputs, fused = NOT_FUSED[case]
    model = chain_model(steps, shape=(3, 4), outputs=outputs)
    feeds = {"x": RNG.standard_normal((3, 4)).astype(np.float32)}
    none, opt, want, got = both(model, feeds)
    assert none.planned_nodes - opt.planned_nodes == fused
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_a_value_read_twice_by_one_node_ends_the_chain():
    x = helper.make_tensor_value_info("x", F, [8])
    nodes = [
        helper.make_node("Mul", ["x", "c"], ["a"]),
        helper.make_node("Mul", ["a", "a"], ["b"]),  # a * a: not a step of a
        helper.make_node("Add", ["b", "c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [x],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(np.array([1.5], np.float32), "c")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    feeds = {"x": RNG.standard_normal(8).astype(np.float32)}
    none, opt, want, got = both(model, feeds)
    assert none.planned_nodes - opt.planned_nodes == 1  # only Mul(a, a) -> Add
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("elem", [TensorProto.INT32, TensorProto.DOUBLE])
def test_other_types_do_not_fuse(elem):
    steps = [("Add", "b"), ("Mul", "b")]
    model = chain_model(steps, shape=(5,), operand_shapes={"b": (5,)}, elem=elem)
    dtype = np.int32 if elem == TensorProto.INT32 else np.float64
    feeds = {"x": np.arange(5, dtype=dtype), "b": np.full(5, 3, dtype)}
    none, opt, want, got = both(model, feeds)
    assert none.planned_nodes == opt.planned_nodes
    np.testing.assert_array_equal(got[0], want[0])


def test_disabled_passes():
    model = chain_model(CHAINS["long"], shape=(4, 4))
    feeds = {"x": RNG.standard_normal((4, 4)).astype(np.float32)}
    off = onnx_light.RuntimeSession(model, disabled_passes=["fuse_elementwise_chain"])
    on = onnx_light.RuntimeSession(model)
    assert off.planned_nodes == 6 and on.planned_nodes == 1
    np.testing.assert_array_equal(off.run(None, feeds)[0], on.run(None, feeds)[0])
    with pytest.raises(ValueError, match="no pass is named 'fuse_everything'.*constant_folding"):
        onnx_light.RuntimeSession(model, disabled_passes=["fuse_everything"])
    with pytest.raises(TypeError, match="not one string"):
        onnx_light.RuntimeSession(model, disabled_passes="fuse_elementwise_chain")
    with pytest.raises(TypeError, match="str pass names"):
        onnx_light.RuntimeSession(model, disabled_passes=[3])
