"""Resource bounds. memory_budget: the bytes a run's node outputs may hold at once. A node whose output
would go past it fails the run with RESOURCE_EXHAUSTED before allocating (a 50,000 x
50,000 ConstantOfShape, 10 GB, is refused at once), values give their bytes back when
released (a chain fits in two tensors' worth), subgraph runs count against the same
budget, and the session keeps working after a refusal. And the depth of nested subgraphs,
bounded by the model reader."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
MB4 = 1 << 20  # floats in 4 MiB


def model(nodes, inputs, inits=()):
    graph = helper.make_graph(
        nodes, "g", inputs, [helper.make_tensor_value_info("y", F, None)], list(inits)
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def chain_model():
    """x [N] -> Neg -> Abs -> Neg -> y: at N = 1M three 4 MiB outputs, at most two alive at
    once."""
    nodes = [
        helper.make_node("Neg", ["x"], ["a"]),
        helper.make_node("Abs", ["a"], ["b"]),
        helper.make_node("Neg", ["b"], ["y"]),
    ]
    return model(nodes, [helper.make_tensor_value_info("x", F, ["N"])])


def test_released_values_give_their_bytes_back():
    x = np.linspace(-1, 1, MB4, dtype=np.float32)
    want = -np.abs(-x)
    # Node 2 holds a (4 MiB) and makes b; node 3 holds b and makes y: 8 MiB at most.
    s = onnx_light.RuntimeSession(chain_model(), memory_budget=8 * MB4)
    for _ in range(3):  # nothing is left charged between runs (memory plan on from run 2)
        np.testing.assert_array_equal(s.run(None, {"x": x})[0], want)
    tight = onnx_light.RuntimeSession(chain_model(), memory_budget=8 * MB4 - 1)
    with pytest.raises(RuntimeError, match="RESOURCE_EXHAUSTED.*memory budget is 8388607"):
        tight.run(None, {"x": x})
    # Smaller inputs still fit the same session.
    np.testing.assert_array_equal(tight.run(None, {"x": x[: MB4 // 2]})[0], want[: MB4 // 2])


def test_a_huge_constant_of_shape_is_refused_before_allocating():
    shape = numpy_helper.from_array(np.array([50_000, 50_000], np.int64), "shape")
    nodes = [
        helper.make_node("Add", ["n", "shape"], ["s"]),
        helper.make_node("ConstantOfShape", ["s"], ["c"]),
        helper.make_node("ReduceSum", ["c"], ["y"], keepdims=0),
    ]
    m = model(nodes, [helper.make_tensor_value_info("n", TensorProto.INT64, [2])], [shape])
    s = onnx_light.RuntimeSession(m, memory_budget=1 << 30)
    with pytest.raises(
        RuntimeError, match="RESOURCE_EXHAUSTED.*ConstantOfShape.*10000000000 bytes"
    ):
        s.run(None, {"n": np.zeros(2, np.int64)})
    small = {"n": np.array([-49_990, -49_990], np.int64)}  # a 10 x 10 zero matrix
    np.testing.assert_array_equal(s.run(None, small)[0], 0.0)


def loop_model():
    """A Loop whose body makes a 4 MiB tensor of ones per iteration (from the carried value,
    so that nothing folds) and carries its sum."""
    body = helper.make_graph(
        [
            helper.make_node("Mul", ["acc_in", "zero"], ["z"]),
            helper.make_node("Add", ["z", "one"], ["ones"]),
            helper.make_node("Expand", ["ones", "size"], ["big"]),
            helper.make_node("ReduceSum", ["big", "axes"], ["s"], keepdims=0),
            helper.make_node("Add", ["acc_in", "s"], ["acc_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", F, []),
        ],
        [
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", F, []),
        ],
        [
            numpy_helper.from_array(np.array([1.0], np.float32), "one"),
            numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
            numpy_helper.from_array(np.array([MB4], np.int64), "size"),
            numpy_helper.from_array(np.array([0], np.int64), "axes"),
        ],
    )
    loop = helper.make_node("Loop", ["trips", "", "acc"], ["y"], body=body)
    return model(
        [loop],
        [
            helper.make_tensor_value_info("trips", TensorProto.INT64, []),
            helper.make_tensor_value_info("acc", F, []),
        ],
    )


def test_subgraph_runs_count_against_the_budget():
    feeds = {"trips": np.array(5, np.int64), "acc": np.array(0, np.float32)}
    ok = onnx_light.RuntimeSession(loop_model(), memory_budget=4 * MB4 + 64)
    for _ in range(2):
        np.testing.assert_array_equal(ok.run(None, feeds)[0], 5.0 * MB4)
    short = onnx_light.RuntimeSession(loop_model(), memory_budget=4 * MB4 - 1)
    with pytest.raises(RuntimeError, match="RESOURCE_EXHAUSTED.*Expand"):
        short.run(None, feeds)


def test_each_concurrent_run_has_its_own_budget():
    s = onnx_light.RuntimeSession(chain_model(), memory_budget=8 * MB4)
    x = np.ones(MB4, np.float32)
    errors = []

    def work():
        try:
            for _ in range(20):
                assert s.run(None, {"x": x})[0][0] == -1.0
        except Exception as e:  # noqa: BLE001 - collected for the assertion below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.parametrize("budget,error", [(-1, ValueError), (2**64, ValueError), ("1", TypeError)])
def test_bad_budgets(budget, error):
    with pytest.raises(error, match="memory_budget"):
        onnx_light.RuntimeSession(chain_model(), memory_budget=budget)


def nested_ifs(depth):
    """`depth` If nodes, each with the next as its then-branch; the innermost returns x."""
    leaf = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "leaf",
        [],
        [helper.make_tensor_value_info("y", F, None)],
    )
    g = leaf
    for d in range(depth):
        node = helper.make_node("If", ["c"], ["y"], then_branch=g, else_branch=leaf)
        g = helper.make_graph([node], f"b{d}", [], [helper.make_tensor_value_info("y", F, None)])
    return model(
        list(g.node),
        [
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("x", F, [2]),
        ],
    )


def test_subgraph_nesting_is_bounded_by_the_readers_depth_limit():
    # Each level of nesting is three messages (node, attribute, graph); the reader stops at
    # 100 (onnx::ParseOptions::max_depth), so about 32 nested subgraphs load and deeper
    # models are refused before anything recurses on them.
    feeds = {"c": np.array(True), "x": np.array([1, 2], np.float32)}
    deep = onnx_light.RuntimeSession(nested_ifs(32).SerializeToString())
    np.testing.assert_array_equal(deep.run(None, feeds)[0], [1, 2])
    with pytest.raises(ValueError, match="messages nested deeper than the limit of 100"):
        onnx_light.RuntimeSession(nested_ifs(40).SerializeToString())
