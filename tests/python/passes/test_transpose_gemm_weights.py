"""A float32 or float64 constant read only as B of Gemm nodes with transB=1 is stored
transposed once per session and those nodes read it with transB=0 (pass
transpose_gemm_weights, extended level; float32 weights are then packed where the packed
product runs). Results against numpy in float64 (float32: rtol 1e-5 / atol 1e-5, sums of
up to 640 products; float64: rtol 1e-12) and against the same model at level "none"; the
optimized model shows the rewrite (a transposed initializer, transB=0); what must not be
transposed keeps its weights and transB=1; disabled_passes and ORT's
session.disable_prepacking turn it off."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper, load_model, numpy_helper

RNG = np.random.default_rng(32)
TOL = {np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}
ELEM = {
    np.float16: TensorProto.FLOAT16,
    np.float32: TensorProto.FLOAT,
    np.float64: TensorProto.DOUBLE,
}


def gemm_model(dtype, k, n, *, alpha=1.0, beta=1.0, extra=(), outputs=("y",), share=False):
    """x [m, k] -> Gemm(x, W [n, k], c [n], transB=1) -> y; with `share`, a second Gemm
    reads the same W: y = Gemm(Relu(Gemm(x, W)), W) (k == n)."""
    w = (RNG.standard_normal((n, k)) / np.sqrt(k)).astype(dtype)
    c = RNG.standard_normal(n).astype(dtype)
    nodes = [
        helper.make_node(
            "Gemm", ["x", "W", "c"], ["g0" if share else "y"], alpha=alpha, beta=beta, transB=1
        )
    ]
    if share:
        nodes += [
            helper.make_node("Relu", ["g0"], ["r"]),
            helper.make_node("Gemm", ["r", "W"], ["y"], transB=1),
        ]
    nodes += list(extra)
    e = ELEM[dtype]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", e, ["m", k])],
        [helper.make_tensor_value_info(o, e, None) for o in outputs],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(c, "c")],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return m.SerializeToString(), w, c


def optimized(model, tmp_path, **options):
    out = tmp_path / "opt.onnx"
    onnx_light.RuntimeSession(model, optimized_model_path=str(out), **options)
    m = load_model(str(out))
    trans_b = [
        next((a.i for a in n.attribute if a.name == "transB"), 0)
        for n in m.graph.node
        if n.op_type == "Gemm"
    ]
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    return trans_b, inits


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", [1, 5, 64])
@pytest.mark.parametrize("threads", [1, 2])
def test_transposed_weights_match_numpy_and_level_none(dtype, m, threads):
    k, n = 640, 300
    model, w, c = gemm_model(dtype, k, n, alpha=0.5, beta=2.0)
    x = RNG.standard_normal((m, k)).astype(dtype)
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    want = 0.5 * (x.astype(np.float64) @ w.T.astype(np.float64)) + 2.0 * c
    assert got.dtype == dtype and got.shape == (m, n)
    np.testing.assert_allclose(got, want, **TOL[dtype])
    plain = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    np.testing.assert_allclose(got, plain.run(None, {"x": x})[0], **TOL[dtype])


def test_the_optimized_model_holds_the_transpose(tmp_path):
    model, w, _ = gemm_model(np.float32, 48, 20)
    trans_b, inits = optimized(model, tmp_path)
    assert trans_b == [0]
    np.testing.assert_array_equal(inits["W"], w.T)  # [k, n], the same values
    # It loads back and runs as the original does.
    x = RNG.standard_normal((3, 48)).astype(np.float32)
    again = onnx_light.RuntimeSession(str(tmp_path / "opt.onnx")).run(None, {"x": x})[0]
    want = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
    np.testing.assert_allclose(again, want, rtol=1e-6, atol=1e-6)


def test_weights_shared_by_two_gemms_are_transposed_once(tmp_path):
    model, w, c = gemm_model(np.float32, 64, 64, share=True)
    trans_b, inits = optimized(model, tmp_path)
    assert trans_b == [0, 0]
    np.testing.assert_array_equal(inits["W"], w.T)
    x = RNG.standard_normal((4, 64)).astype(np.float32)
    got = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
    h = np.maximum(x.astype(np.float64) @ w.T + c, 0)
    np.testing.assert_allclose(got, h @ w.T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "case",
    [
        "also_added",  # another op reads W (with x: not folded)
        "graph_output",  # W is an output
        "gemm_without_transb",  # a Gemm reads W untransposed (k == n)
        "w_as_a",  # a Gemm reads W as its A
        "float16",  # not float32/float64 (half_in_float off: it would widen the Gemm)
    ],
)
def test_what_must_not_be_transposed(case, tmp_path):
    k = n = 16
    dtype = np.float32
    extra, outputs = [], ["y"]
    if case == "also_added":
        extra = [helper.make_node("Add", ["W", "x"], ["z"])]
        outputs = ["y", "z"]
    elif case == "graph_output":
        extra = [helper.make_node("Identity", ["W"], ["z"])]
        outputs = ["y", "z"]
    elif case == "gemm_without_transb":
        extra = [helper.make_node("Gemm", ["x", "W"], ["z"])]
        outputs = ["y", "z"]
    elif case == "w_as_a":
        extra = [helper.make_node("Gemm", ["W", "x"], ["z"], transB=1)]
        outputs = ["y", "z"]
    options = {}
    if case == "float16":
        dtype = np.float16
        options = {"disabled_passes": ["half_in_float"]}
    model, w, _ = gemm_model(dtype, k, n, extra=extra, outputs=outputs)
    trans_b, inits = optimized(model, tmp_path, **options)
    assert trans_b[0] == 1
    np.testing.assert_array_equal(inits["W"], w)
    # The results still match level "none".
    x = RNG.standard_normal((k, k)).astype(dtype)
    got = onnx_light.RuntimeSession(model, **options).run(None, {"x": x})
    want = onnx_light.RuntimeSession(model, graph_optimization_level="none").run(None, {"x": x})
    for g, e in zip(got, want):
        np.testing.assert_array_equal(g, e)


def test_disabled_by_name_and_by_ort_config_entry(tmp_path):
    model, w, _ = gemm_model(np.float32, 32, 8)
    trans_b, inits = optimized(model, tmp_path, disabled_passes=["transpose_gemm_weights"])
    assert trans_b == [1]
    np.testing.assert_array_equal(inits["W"], w)
    from onnx_light import ort_compat

    so = ort_compat.SessionOptions()
    so.add_session_config_entry("session.disable_prepacking", "1")
    so.optimized_model_filepath = str(tmp_path / "ort.onnx")
    ort_compat.InferenceSession(model, so)
    m = load_model(str(tmp_path / "ort.onnx"))
    assert [a.i for a in m.graph.node[0].attribute if a.name == "transB"] == [1]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "options",
    [
        {},  # packed straight from the [n, k] original (no transposed copy)
        {"disabled_passes": ["prepack_matmul_weights"]},  # transposed, not packed
    ],
)
def test_large_weights_shared_by_two_gemms_packed_from_the_original(options, threads):
    # 192 x 192 = 36,864 values: past the packing threshold (16k). Both Gemm nodes read one
    # packed copy of W^T; with prepacking off by name they read one transposed copy.
    model, w, c = gemm_model(np.float32, 192, 192, share=True)
    x = RNG.standard_normal((7, 192)).astype(np.float32)
    sess = onnx_light.RuntimeSession(model, intra_op_threads=threads, **options)
    got = sess.run(None, {"x": x})[0]
    h = np.maximum(x.astype(np.float64) @ w.T.astype(np.float64) + c, 0)
    np.testing.assert_allclose(got, h @ w.T.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_large_weights_read_with_trans_a_are_transposed_not_packed():
    # A reader with transA=1 reads B row-major but A transposed: the packed product does not
    # take it, so W is transposed as a plain matrix (and the results stay right).
    k, n, m = 256, 128, 9
    w = (RNG.standard_normal((n, k)) / 16).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["xt", "W"], ["y"], transA=1, transB=1)],
        "g",
        [helper.make_tensor_value_info("xt", TensorProto.FLOAT, [k, m])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "W")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    xt = RNG.standard_normal((k, m)).astype(np.float32)
    got = onnx_light.RuntimeSession(model.SerializeToString()).run(None, {"xt": xt})[0]
    want = xt.T.astype(np.float64) @ w.T.astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def fused_gemm_model(k, n, trans_b):
    """x [m, k] -> com.microsoft FusedGemm(x, W, c, transB, activation=LeakyRelu) -> y, as
    ORT's saved optimized graphs write a Gemm + activation."""
    w = (RNG.standard_normal((n, k) if trans_b else (k, n)) / np.sqrt(k)).astype(np.float32)
    c = RNG.standard_normal(n).astype(np.float32)
    node = helper.make_node(
        "FusedGemm",
        ["x", "W", "c"],
        ["y"],
        domain="com.microsoft",
        transB=trans_b,
        activation="LeakyRelu",
        activation_alpha=0.1,
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["m", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(c, "c")],
    )
    m = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
    )
    return m.SerializeToString(), w, c


@pytest.mark.parametrize("trans_b", [0, 1])
@pytest.mark.parametrize("threads", [1, 2])
def test_fused_gemm_weights_transposed_and_packed(trans_b, threads, tmp_path):
    # FusedGemm reads its weights as Gemm does: transB=1 made transB=0 (the optimized model
    # shows it), then packed once; the values as numpy's in float64.
    k, n = 640, 300
    model, w, c = fused_gemm_model(k, n, trans_b)
    x = RNG.standard_normal((37, k)).astype(np.float32)
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    wk = (w.T if trans_b else w).astype(np.float64)
    pre = x.astype(np.float64) @ wk + c
    np.testing.assert_allclose(got, np.where(pre > 0, pre, 0.1 * pre), rtol=1e-5, atol=1e-5)
    out = tmp_path / "opt.onnx"
    onnx_light.RuntimeSession(model, optimized_model_path=str(out))
    node = load_model(str(out)).graph.node[0]
    assert node.op_type == "FusedGemm"
    assert next((a.i for a in node.attribute if a.name == "transB"), 0) == 0
