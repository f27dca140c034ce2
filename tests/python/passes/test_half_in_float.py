"""16-bit float compute in float32 (pass half_in_float, level basic and above): each region
of compute ops over float16 or bfloat16 values runs on the float32 kernels, with one Cast
where a half value enters and one where a region value leaves (read outside, or a graph
output, which keeps its half type). Nothing inside is rounded to 16 bits between nodes, so
a float16 network is as close to its float32 counterpart as ONNX Runtime's (which does the
same on x86 CPUs): the references are the float32 network in float64-exact numpy and the
same float16 model on ORT. Tolerances: the final rounding to float16 (half an ulp, 2^-11
relative) plus float32 accumulation (1e-5 relative)."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from ml_dtypes import bfloat16

import onnx_light
from onnx_light.onnx import TensorProto, helper, load_model, numpy_helper

ort = pytest.importorskip("onnxruntime", reason="pip install -r requirements/oracles.txt")

OFF = {"disabled_passes": ["half_in_float"]}
H = TensorProto.FLOAT16


def ops(model, tmp_path, **options):
    out = tmp_path / "optimized.onnx"
    onnx_light.RuntimeSession(model.SerializeToString(), optimized_model_path=str(out), **options)
    g = load_model(str(out)).graph
    return collections.Counter(n.op_type for n in g.node), g


def conv_stack(layers=4, channels=32, width=40, elem=H, np_type=np.float16):
    """Unsqueeze -> [Conv -> Squeeze -> Add(bias) -> Relu -> Unsqueeze] x layers -> Squeeze
    -> Softmax over channels: the float16 Conv1D stack tf2onnx writes for a Keras model in
    mixed precision."""
    rng = np.random.default_rng(0)
    inits, nodes = [], []
    inits.append(numpy_helper.from_array(np.array([2], np.int64), "ax"))
    nodes.append(helper.make_node("Unsqueeze", ["x", "ax"], ["u0"]))
    cur = "u0"
    for k in range(layers):
        w = (rng.standard_normal((channels, channels, 1, 5)) / np.sqrt(5 * channels)).astype(
            np_type
        )
        b = (rng.standard_normal((channels, 1)) * 0.1).astype(np_type)
        inits += [numpy_helper.from_array(w, f"w{k}"), numpy_helper.from_array(b, f"b{k}")]
        nodes += [
            helper.make_node("Conv", [cur, f"w{k}"], [f"c{k}"], pads=[0, 2, 0, 2]),
            helper.make_node("Squeeze", [f"c{k}", "ax"], [f"s{k}"]),
            helper.make_node("Add", [f"s{k}", f"b{k}"], [f"a{k}"]),
            helper.make_node("Relu", [f"a{k}"], [f"r{k}"]),
            helper.make_node("Unsqueeze", [f"r{k}", "ax"], [f"u{k + 1}"]),
        ]
        cur = f"u{k + 1}"
    nodes.append(helper.make_node("Squeeze", [cur, "ax"], ["last"]))
    nodes.append(helper.make_node("Softmax", ["last"], ["y"], axis=1))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", elem, ["N", channels, width])],
        [helper.make_tensor_value_info("y", elem, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def float32_reference(model, x):
    """The same network with float32 weights, evaluated in float64 numpy (exact enough)."""
    inits = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in model.graph.initializer}
    h = x.astype(np.float64)
    k = 0
    while f"w{k}" in inits:
        w, b = inits[f"w{k}"][:, :, 0, :], inits[f"b{k}"]
        p = np.pad(h, ((0, 0), (0, 0), (2, 2)))
        cols = np.stack([p[:, :, t : t + h.shape[2]] for t in range(5)], axis=-1)
        h = np.maximum(np.einsum("nctk,ock->not", cols, w) + b, 0.0)
        k += 1
    e = np.exp(h - h.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_a_float16_conv_stack_runs_in_float32_and_is_as_close_as_ort(tmp_path):
    model = conv_stack()
    c, g = ops(model, tmp_path)
    # one Cast in (the input), one out (the output); the rest float32 (fused epilogues)
    assert c["Cast"] == 2, c
    assert [o.type.tensor_type.elem_type for o in g.output] == [H]
    c_off, _ = ops(model, tmp_path, **OFF)
    assert c_off["Cast"] == 0, c_off
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((8, 32, 40)) * 2).astype(np.float16)
    want = float32_reference(model, x)
    ref = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    ort_err = np.abs(ref.run(None, {"x": x})[0].astype(np.float64) - want)
    for threads in (1, 2):
        on = onnx_light.RuntimeSession(model.SerializeToString(), intra_op_threads=threads)
        got = on.run(None, {"x": x})[0]
        assert got.dtype == np.float16
        err = np.abs(got.astype(np.float64) - want)
        # half an ulp of the output plus float32 accumulation, and never worse than ORT
        assert np.all(err <= np.abs(want) * 2.0**-11 + 1e-5), err.max()
        assert err.mean() <= ort_err.mean() * 1.05 + 1e-7, (err.mean(), ort_err.mean())
    # the pass off: every node rounds to float16, measurably further from float32
    off = onnx_light.RuntimeSession(model.SerializeToString(), **OFF).run(None, {"x": x})[0]
    off_err = np.abs(off.astype(np.float64) - want)
    assert off_err.mean() > err.mean(), (off_err.mean(), err.mean())


def test_bfloat16_runs_in_float32_too(tmp_path):
    # (Conv takes no bfloat16) an MLP: MatMul -> Add -> Relu -> MatMul -> Softmax
    rng = np.random.default_rng(4)
    w1, w2 = (rng.standard_normal((2, 32, 32)) / 6).astype(bfloat16)
    b1 = (rng.standard_normal(32) * 0.1).astype(bfloat16)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["m1"]),
            helper.make_node("Add", ["m1", "b1"], ["a1"]),
            helper.make_node("Relu", ["a1"], ["r1"]),
            helper.make_node("MatMul", ["r1", "w2"], ["m2"]),
            helper.make_node("Softmax", ["m2"], ["y"], axis=-1),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [4, 32])],
        [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, None)],
        [numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    c, _ = ops(model, tmp_path)
    assert c["Cast"] == 2, c
    x = rng.standard_normal((4, 32)).astype(bfloat16)
    f = [a.astype(np.float64) for a in (x, w1, b1, w2)]
    h = np.maximum(f[0] @ f[1] + f[2], 0) @ f[3]
    e = np.exp(h - h.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    got = onnx_light.RuntimeSession(model.SerializeToString()).run(None, {"x": x})[0]
    assert got.dtype == bfloat16
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= np.abs(want) * 2.0**-8 + 1e-5), err.max()


def test_values_read_outside_the_region_or_returned_are_rounded_back_once(tmp_path):
    # m = MatMul(x, w) is a graph output and read by TopK (no float32 region op), and by
    # Tanh (in the region): one Cast in, m rounded back once for both, Tanh's result out.
    rng = np.random.default_rng(1)
    w = rng.standard_normal((16, 16)).astype(np.float16)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["m"]),
            helper.make_node("Tanh", ["m"], ["t"]),
            helper.make_node("TopK", ["m", "k"], ["top", "idx"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", H, [4, 16])],
        [
            helper.make_tensor_value_info("m", H, None),
            helper.make_tensor_value_info("t", H, None),
            helper.make_tensor_value_info("top", H, None),
            helper.make_tensor_value_info("idx", TensorProto.INT64, None),
        ],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array([3], np.int64), "k")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    c, g = ops(model, tmp_path)
    assert c["Cast"] == 3 and c["TopK"] == 1, c  # x in; m and t out
    x = rng.standard_normal((4, 16)).astype(np.float16)
    got = onnx_light.RuntimeSession(model.SerializeToString()).run(None, {"x": x})
    exact = x.astype(np.float64) @ w.astype(np.float64)
    m = exact.astype(np.float16)  # one rounding of the float32 product
    np.testing.assert_allclose(got[0].astype(np.float64), exact, rtol=2.0**-11, atol=1e-3)
    np.testing.assert_allclose(
        got[1].astype(np.float64), np.tanh(exact), rtol=2.0**-11, atol=2.0**-12
    )
    np.testing.assert_array_equal(got[2], np.sort(got[0], axis=1)[:, ::-1][:, :3])
    assert got[0].dtype == got[1].dtype == got[2].dtype == np.float16
    assert (
        np.abs(got[0].astype(np.float64) - m.astype(np.float64)).max() <= np.abs(m).max() * 2.0**-10
    )


def test_data_movement_between_regions_joins_only_when_enclosed(tmp_path):
    # Relu -> Transpose -> Sigmoid: the Transpose joins (no Cast between); a Transpose whose
    # output is also a graph output stays half, rounded from the region once.
    def model(transpose_is_output):
        outs = [helper.make_tensor_value_info("y", H, None)]
        if transpose_is_output:
            outs.append(helper.make_tensor_value_info("t", H, None))
        graph = helper.make_graph(
            [
                helper.make_node("Relu", ["x"], ["r"]),
                helper.make_node("Transpose", ["r"], ["t"], perm=[1, 0]),
                helper.make_node("Sigmoid", ["t"], ["y"]),
            ],
            "g",
            [helper.make_tensor_value_info("x", H, [3, 5])],
            outs,
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

    c, _ = ops(model(False), tmp_path)
    assert c["Cast"] == 2, c
    c, _ = ops(model(True), tmp_path)
    assert c["Cast"] == 4, c  # x in, r out to the half Transpose, t back in, y out
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float16)
    for m in (model(False), model(True)):
        got = onnx_light.RuntimeSession(m.SerializeToString()).run(None, {"x": x})
        want = 1.0 / (1.0 + np.exp(-np.maximum(x.astype(np.float64), 0).T))
        np.testing.assert_allclose(got[0].astype(np.float64), want, rtol=2.0**-11, atol=1e-6)


def test_below_level_basic_nothing_changes(tmp_path):
    c, _ = ops(conv_stack(layers=1), tmp_path, graph_optimization_level="none")
    assert c["Cast"] == 0 and c["Conv"] == 1, c


@pytest.mark.parametrize("opset", [1, 5, 6, 12])
def test_old_opsets_get_casts_they_can_run(opset, tmp_path):
    # The node fuzzer's finding: a float16 Softsign of an opset before 6 (where Cast spells
    # `to` as a string) took a float32 output while its Cast could not be made, and wrote
    # float16 results through a float32 tensor. Casts are matched at opset 13 or newer, and
    # a node whose casts cannot be made stays as it is.
    graph = helper.make_graph(
        [helper.make_node("Softsign", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", H, [3, 4])],
        [helper.make_tensor_value_info("y", H, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    x = np.linspace(-4, 4, 12, dtype=np.float16).reshape(3, 4)
    got = onnx_light.RuntimeSession(model.SerializeToString()).run(None, {"x": x})[0]
    want = x.astype(np.float64) / (1 + np.abs(x.astype(np.float64)))
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2.0**-11, atol=1e-7)
    # constant input: folded at load through the same casts
    const = helper.make_graph(
        [helper.make_node("Softsign", ["c"], ["y"])],
        "g",
        [],
        [helper.make_tensor_value_info("y", H, None)],
        [numpy_helper.from_array(x, "c")],
    )
    folded = helper.make_model(const, opset_imports=[helper.make_opsetid("", opset)])
    got = onnx_light.RuntimeSession(folded.SerializeToString()).run(None, {})[0]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2.0**-11, atol=1e-7)
