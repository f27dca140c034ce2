"""Constant float32 weight matrices of a MatMul, stored in the model file (here as
external data, aligned so they are read in place), are packed once per session on CPUs
where the packed product is used; nodes sharing one matrix share the packed copy. The
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
    # Runs repeat bit for bit, and a second session over the same file agrees.
    np.testing.assert_array_equal(s.run(None, {"x": x})[0], got)
    np.testing.assert_array_equal(onnx_light.RuntimeSession(path).run(None, {"x": x})[0], got)
