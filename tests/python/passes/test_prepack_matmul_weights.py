"""Constant float32 weight matrices of a MatMul are packed once per session on CPUs where
the packed product is used (AVX-512): in place of the constant when only MatMul reads it
(the prepack_matmul_weights pass), or, when the kernel is made, if it lies in the mapped
model file (here as external data, aligned so it is read in place); nodes sharing one
matrix share the packed copy. The
products are compared with numpy (float64) at rtol 1e-5 / atol 1e-4 (sums of 1024
products), and with the same model whose weights are fed at run time (never packed)."""

from __future__ import annotations

import numpy as np
import onnx  # the test oracle's writer: external data aligned for mapping
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_light

RNG = np.random.default_rng(31)


def shared_weight_model(k, n, layers):
    """x -> MatMul(W) -> Relu -> MatMul(W) ... : one W [k, n] (k == n) read by every layer."""
    nodes, cur = [], "x"
    for i in range(layers):
        nodes += [
            helper.make_node("MatMul", [cur, "W"], [f"m{i}"]),
            helper.make_node("Relu", [f"m{i}"], [f"r{i}"]),
        ]
        cur = f"r{i}"
    nodes.append(helper.make_node("Identity", [cur], ["y"]))
    w = (RNG.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["m", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "W")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), w


def reference(x, w, layers):
    y = x.astype(np.float64)
    for _ in range(layers):
        y = np.maximum(y @ w.astype(np.float64), 0)
    return y


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m", [1, 7, 64, 200])
def test_packed_shared_weights_match_numpy_and_unpacked(tmp_path, threads, m):
    k = n = 1024
    model, w = shared_weight_model(k, n, layers=3)
    path = tmp_path / "model.onnx"
    onnx.save_model(model, path, save_as_external_data=True, location="w.bin", size_threshold=0)
    s = onnx_light.RuntimeSession(path, intra_op_threads=threads)
    x = RNG.standard_normal((m, k)).astype(np.float32)
    got = s.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, reference(x, w, 3), rtol=1e-5, atol=1e-4)
    # The same weights fed at run time: another product path, the same values.
    fed = shared_weight_model(k, n, layers=3)[0]
    fed.graph.input.append(helper.make_tensor_value_info("W", TensorProto.FLOAT, [k, n]))
    del fed.graph.initializer[:]
    unpacked = onnx_light.RuntimeSession(fed.SerializeToString(), intra_op_threads=threads)
    np.testing.assert_allclose(got, unpacked.run(None, {"x": x, "W": w})[0], rtol=1e-5, atol=1e-4)
    # Runs repeat bit for bit, and a second session over the same file with as many threads
    # agrees (with OpenBLAS, on AVX2, rows split across threads may round differently).
    np.testing.assert_array_equal(s.run(None, {"x": x})[0], got)
    again = onnx_light.RuntimeSession(path, intra_op_threads=threads)
    np.testing.assert_array_equal(again.run(None, {"x": x})[0], got)


def matmul_graph(k, n, *, extra_reader=False, identity=False, a_rank=2):
    """x -> MatMul(W) and x -> MatMul(W') (W' = Identity(W) when `identity`, else W again),
    summed; `extra_reader` also adds W to a third output (W read by something else)."""
    w = (RNG.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "W"], ["p"])]
    second = "W"
    if identity:
        nodes.append(helper.make_node("Identity", ["W"], ["W2"]))
        second = "W2"
    nodes += [
        helper.make_node("MatMul", ["x", second], ["q"]),
        helper.make_node("Add", ["p", "q"], ["y"]),
    ]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if extra_reader:
        nodes.append(helper.make_node("Neg", ["W"], ["wn"]))
        outputs.append(helper.make_tensor_value_info("wn", TensorProto.FLOAT, None))
    shape = ["m", k] if a_rank == 2 else [k]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        outputs,
        [numpy_helper.from_array(w, "W")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), w


@pytest.mark.parametrize("identity", [False, True])
@pytest.mark.parametrize("extra_reader", [False, True])
@pytest.mark.parametrize("m", [1, 5, 130])
def test_weights_packed_in_place_of_the_constant(identity, extra_reader, m, tmp_path):
    # Weights given as bytes (not a mapped file): the prepack_matmul_weights pass replaces
    # the constant by its packed form when only MatMul reads it (one copy for W and its
    # Identity alias); read elsewhere it stays. Either way the products match numpy, at
    # every row count (1 row included: the packed form has no other path), and a saved
    # optimized model (the pass then does not run) holds the weights as they were.
    k, n = 256, 192
    model, w = matmul_graph(k, n, extra_reader=extra_reader, identity=identity)
    x = RNG.standard_normal((m, k)).astype(np.float32)
    want = 2 * (x.astype(np.float64) @ w.astype(np.float64))
    for threads in (1, 2):
        s = onnx_light.RuntimeSession(model.SerializeToString(), intra_op_threads=threads)
        got = s.run(None, {"x": x})
        np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-4)
        if extra_reader:
            np.testing.assert_array_equal(got[1], -w)
    saved = onnx_light.RuntimeSession(
        model.SerializeToString(), optimized_model_path=tmp_path / "o.onnx"
    )
    np.testing.assert_allclose(saved.run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-4)
    back = onnx_light.RuntimeSession(tmp_path / "o.onnx")
    np.testing.assert_allclose(back.run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-4)


def test_packed_weights_with_a_vector_and_a_batched_a():
    model, w = matmul_graph(256, 160, a_rank=1)
    x = RNG.standard_normal(256).astype(np.float32)
    got = onnx_light.RuntimeSession(model.SerializeToString()).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, 2 * (x.astype(np.float64) @ w), rtol=1e-5, atol=1e-4)
    model3, w3 = matmul_graph(256, 160)
    model3.graph.input[0].CopyFrom(
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 256])
    )
    x3 = RNG.standard_normal((2, 3, 256)).astype(np.float32)
    got3 = onnx_light.RuntimeSession(model3.SerializeToString()).run(None, {"x": x3})[0]
    np.testing.assert_allclose(got3, 2 * (x3.astype(np.float64) @ w3), rtol=1e-5, atol=1e-4)
