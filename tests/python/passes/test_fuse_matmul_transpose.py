"""A float32 MatMul reading a Transpose that swaps the last two axes (either operand), and
a Mul of the product by a one-value constant, fused into com.microsoft:FusedMatMul (pass
fuse_matmul_transpose, extended level), as ORT does for attention's Q @ K^T * scale. The
fused product reads the operand with strides instead of copying it; results against the
same model at level "none" (rtol 1e-6: the product may sum in another order) and numpy.
What must not fuse keeps its nodes."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper, load_model, numpy_helper

F = TensorProto.FLOAT


def model(nodes, inputs, inits=()):
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, F, None) for n in inputs],
        [helper.make_tensor_value_info("y", F, None)],
        list(inits),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def ops(m, tmp_path):
    out = tmp_path / "opt.onnx"
    onnx_light.RuntimeSession(m, optimized_model_path=str(out))
    return collections.Counter(n.op_type for n in load_model(str(out)).graph.node)


def check(m, feeds, want):
    got = onnx_light.RuntimeSession(m).run(None, feeds)[0]
    plain = onnx_light.RuntimeSession(m, graph_optimization_level="none").run(None, feeds)[0]
    np.testing.assert_allclose(got, plain, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


RNG = np.random.default_rng(8)
Q = RNG.standard_normal((1, 4, 3, 16)).astype(np.float32)
K = RNG.standard_normal((1, 4, 37, 16)).astype(np.float32)
SCALE = numpy_helper.from_array(np.array(0.25, np.float32), "s")


@pytest.mark.parametrize("scaled", [True, False])
def test_attention_scores_fuse(scaled, tmp_path):
    nodes = [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["p" if scaled else "y"]),
    ]
    if scaled:
        nodes.append(helper.make_node("Mul", ["p", "s"], ["y"]))
    m = model(nodes, ["q", "k"], [SCALE] if scaled else [])
    found = ops(m, tmp_path)
    assert found == {"FusedMatMul": 1}, found
    want = Q @ K.transpose(0, 1, 3, 2) * (np.float32(0.25) if scaled else 1)
    check(m, {"q": Q, "k": K}, want)


def test_transposed_a_and_2d(tmp_path):
    a = RNG.standard_normal((7, 5)).astype(np.float32)
    b = RNG.standard_normal((7, 6)).astype(np.float32)
    nodes = [
        helper.make_node("Transpose", ["a"], ["at"], perm=[1, 0]),
        helper.make_node("MatMul", ["at", "b"], ["y"]),
    ]
    m = model(nodes, ["a", "b"])
    assert ops(m, tmp_path) == {"FusedMatMul": 1}
    check(m, {"a": a, "b": b}, a.T @ b)


@pytest.mark.parametrize("case", ["other_perm", "shared_transpose", "vector_scale", "rank4_scale"])
def test_what_must_not_fuse(case, tmp_path):
    perm = [0, 2, 1, 3] if case == "other_perm" else [0, 1, 3, 2]
    k = K if case != "other_perm" else RNG.standard_normal((1, 16, 4, 3)).astype(np.float32)
    nodes = [
        helper.make_node("Transpose", ["k"], ["kt"], perm=perm),
        helper.make_node("MatMul", ["q", "kt"], ["p"]),
    ]
    inits = [SCALE]
    if case == "shared_transpose":
        nodes.append(helper.make_node("ReduceSum", ["kt"], ["r"], keepdims=1))
        nodes.append(helper.make_node("Add", ["p", "r"], ["y"]))
    elif case == "vector_scale":
        inits = [numpy_helper.from_array(np.full(37, 0.5, np.float32), "s")]
        nodes.append(helper.make_node("Mul", ["p", "s"], ["y"]))
    elif case == "rank4_scale":  # one value, but of rank 4: may raise the product's rank
        inits = [numpy_helper.from_array(np.full((1, 1, 1, 1), 0.5, np.float32), "s")]
        nodes.append(helper.make_node("Mul", ["p", "s"], ["y"]))
    else:
        nodes.append(helper.make_node("Mul", ["p", "s"], ["y"]))
    m = model(nodes, ["q", "k"], inits)
    found = ops(m, tmp_path)
    if case == "other_perm" or case == "shared_transpose":
        assert found["FusedMatMul"] == 0 and found["Transpose"] == 1, found
    else:  # the Transpose fuses; the Mul stays
        assert found["FusedMatMul"] == 1 and found["Mul"] == 1, found
    feeds = {"q": Q, "k": k}
    got = onnx_light.RuntimeSession(m).run(None, feeds)[0]
    plain = onnx_light.RuntimeSession(m, graph_optimization_level="none").run(None, feeds)[0]
    np.testing.assert_allclose(got, plain, rtol=1e-6, atol=1e-6)
