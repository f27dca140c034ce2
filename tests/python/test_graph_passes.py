"""Graph optimization levels and passes, each checked against the unoptimized run (level
"none") on the same inputs: Identity/Dropout removal, dead-node removal, constant folding;
optimized_model_path writes the planned graph, which loads back and gives the same
outputs; nodes not needed for the requested outputs do not run. Exact comparisons for the
basic level (it only removes work); the fusions have tests of their own
(test_fusions.py)."""

from __future__ import annotations

import numpy as np
import pytest
from _models import model_path

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def chain_model():
    """x -> Identity -> Relu -> Dropout -> Add(c) -> y, with a dead branch (Exp of x, read
    by nothing) and a constant subgraph (Shape of an initializer, Cast) feeding Add."""
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    nodes = [
        helper.make_node("Identity", ["x"], ["i"], name="ident"),
        helper.make_node("Relu", ["i"], ["r"], name="relu"),
        helper.make_node("Dropout", ["r"], ["d"], name="drop"),
        helper.make_node("Exp", ["x"], ["dead"], name="dead_exp"),
        helper.make_node("Neg", ["w"], ["nw"], name="fold_neg"),
        helper.make_node("Add", ["d", "nw"], ["y"], name="add"),
        helper.make_node("Sigmoid", ["r"], ["z"], name="side"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F, [2, 3])],
        [
            helper.make_tensor_value_info("y", F, [2, 3]),
            helper.make_tensor_value_info("z", F, [2, 3]),
        ],
        [w],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


X = np.array([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]], np.float32)


def test_levels_remove_work_and_keep_results():
    model = chain_model()
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    assert (none.folded_nodes, none.removed_nodes, none.planned_nodes) == (0, 0, 7)
    want = none.run(None, {"x": X})
    for level in ("basic", "extended", "all", 1, 2, 99):
        s = onnx_light.RuntimeSession(model, graph_optimization_level=level)
        # Neg(w) folded; Identity, Dropout and the dead Exp removed; Relu, Add, Sigmoid run.
        assert (s.folded_nodes, s.removed_nodes, s.planned_nodes) == (1, 3, 3), level
        for g, w in zip(s.run(None, {"x": X}), want):
            np.testing.assert_array_equal(g, w)
    # constant_folding=False turns that pass off at any level.
    s = onnx_light.RuntimeSession(model, constant_folding=False)
    assert (s.folded_nodes, s.planned_nodes) == (0, 4)


def test_optimized_model_path_writes_what_runs_and_it_loads_back(tmp_path):
    path = tmp_path / "opt.onnx"
    s = onnx_light.RuntimeSession(chain_model(), optimized_model_path=path)
    m = onnx_light.onnx.load(str(path))
    assert sorted(n.op_type for n in m.graph.node) == ["Add", "Relu", "Sigmoid"]
    assert [t.name for t in m.graph.initializer] == ["nw"]  # the folded value
    again = onnx_light.RuntimeSession(path)
    for g, w in zip(again.run(None, {"x": X}), s.run(None, {"x": X})):
        np.testing.assert_array_equal(g, w)
    # The file is standard ONNX: the onnx checker accepts it.
    import onnx

    onnx.checker.check_model(onnx.load(str(path)))


def test_identity_feeding_a_graph_output_or_a_subgraph_stays():
    then_g = helper.make_graph(
        [helper.make_node("Neg", ["i"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", F, None)],
    )
    else_g = helper.make_graph(
        [helper.make_node("Abs", ["i"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", F, None)],
    )
    nodes = [
        helper.make_node("Identity", ["x"], ["i"]),
        helper.make_node("Identity", ["x"], ["out2"]),
        helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F, [3])],
        [
            helper.make_tensor_value_info("y", F, None),
            helper.make_tensor_value_info("out2", F, [3]),
        ],
        [numpy_helper.from_array(np.array(0, np.float32), "zero")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    s = onnx_light.RuntimeSession(model)
    assert s.removed_nodes == 0
    x = np.array([1.0, -2.0, 4.0], np.float32)
    y, out2 = s.run(None, {"x": x})
    np.testing.assert_array_equal(y, -x)
    np.testing.assert_array_equal(out2, x)


def test_only_the_nodes_the_requested_outputs_need_run():
    # 'z' needs Relu and Sigmoid; a failing node on the other branch must not run for it.
    model = chain_model()
    bad = helper.make_node("Reshape", ["d", "bad_shape"], ["rs"], name="bad")
    model.graph.node.append(bad)
    model.graph.initializer.append(numpy_helper.from_array(np.array([7], np.int64), "bad_shape"))
    model.graph.node[5].input[0] = "rs"  # Add reads the Reshape: y now fails to compute
    s = onnx_light.RuntimeSession(model)
    (z,) = s.run(["z"], {"x": X})
    np.testing.assert_array_equal(z, 1 / (1 + np.exp(-np.maximum(X, 0))))
    with pytest.raises(ValueError, match="Reshape"):
        s.run(["y"], {"x": X})


def test_bad_levels_and_paths():
    with pytest.raises(ValueError, match="none, basic, extended, all"):
        onnx_light.RuntimeSession(chain_model(), graph_optimization_level="max")
    with pytest.raises(ValueError, match="0, 1, 2 or 99"):
        onnx_light.RuntimeSession(chain_model(), graph_optimization_level=3)
    with pytest.raises(TypeError):
        onnx_light.RuntimeSession(chain_model(), graph_optimization_level=1.5)
    with pytest.raises(TypeError):
        onnx_light.RuntimeSession(chain_model(), optimized_model_path=42)
    with pytest.raises(OSError, match="optimized_model_path"):
        onnx_light.RuntimeSession(chain_model(), optimized_model_path="/nonexistent/dir/m.onnx")


def test_onnxruntime_level_values_are_accepted():
    import onnxruntime as ort

    s = onnx_light.RuntimeSession(
        chain_model(), graph_optimization_level=ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    assert s.planned_nodes == 7


def test_real_model_levels_agree(tmp_path):
    path = model_path("ch_ppocr_mobile_v2.0_cls_infer.onnx")
    x = np.random.default_rng(2).uniform(-1, 1, (2, 3, 48, 192)).astype(np.float32)
    none = onnx_light.RuntimeSession(str(path), graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(str(path), optimized_model_path=tmp_path / "o.onnx")
    back = onnx_light.RuntimeSession(tmp_path / "o.onnx", graph_optimization_level="none")
    assert opt.planned_nodes < none.planned_nodes
    assert back.planned_nodes == opt.planned_nodes
    want = none.run(None, {"x": x})[0]
    basic = onnx_light.RuntimeSession(str(path), graph_optimization_level="basic")
    np.testing.assert_array_equal(basic.run(None, {"x": x})[0], want)  # removals only
    # The fusions (BatchNormalization folded into weights) round differently: the output
    # is a probability, compared at 1e-5; the reloaded model runs exactly what opt runs.
    got = opt.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
    np.testing.assert_array_equal(back.run(None, {"x": x})[0], got)


def test_dequantized_weights_fold_and_the_steps_between_are_dropped(tmp_path):
    # int8 weights -> Cast -> Mul(scale) -> MatMul: the first two fold into one float
    # constant; the Cast's float copy, read by nothing once the Mul has folded, is released
    # during folding and is not written to the optimized model (only the result is).
    rng = np.random.default_rng(4)
    w8 = rng.integers(-128, 128, (64, 32)).astype(np.int8)
    nodes = [
        helper.make_node("Cast", ["w8"], ["wf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["wf", "scale"], ["w"]),
        helper.make_node("MatMul", ["x", "w"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [
            numpy_helper.from_array(w8, "w8"),
            numpy_helper.from_array(np.array(0.02, np.float32), "scale"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    out = tmp_path / "opt.onnx"
    s = onnx_light.RuntimeSession(model, optimized_model_path=str(out))
    assert s.planned_nodes == 1
    x = rng.standard_normal((3, 64)).astype(np.float32)
    want = x @ (w8.astype(np.float32) * np.float32(0.02))
    np.testing.assert_allclose(s.run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-5)
    from onnx_light import onnx as ox

    names = {t.name for t in ox.load(str(out)).graph.initializer}
    assert "wf" not in names and "w" in names
    again = onnx_light.RuntimeSession(str(out))
    np.testing.assert_allclose(again.run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-5)


def test_misaligned_weights_from_a_file_are_copied_and_stay_correct(tmp_path):
    # raw_data sits at any byte offset in a file; a misaligned float initializer is copied
    # to aligned memory and the file's pages under it are dropped (read again from the
    # file if anything needs the bytes: here, writing the optimized model). Results stay
    # exact through runs, the export, and a session on the exported file.
    rng = np.random.default_rng(8)
    w = rng.standard_normal((256, 300)).astype(np.float32)  # 300 KiB: whole pages inside
    for pad in range(8):  # find a name length that puts raw_data off a 4-byte boundary
        name = "w" + "x" * pad
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", name], ["y"])],
            "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [numpy_helper.from_array(w, name)],
        )
        data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        blob = data.SerializeToString()
        if blob.find(w.tobytes()[:64]) % 4 != 0:
            break
    else:
        pytest.fail("no misaligned layout found")
    path = tmp_path / "m.onnx"
    path.write_bytes(blob)
    x = rng.standard_normal((3, 256)).astype(np.float32)
    want = x @ w
    out = tmp_path / "opt.onnx"
    s = onnx_light.RuntimeSession(str(path), optimized_model_path=str(out))
    for _ in range(2):
        np.testing.assert_allclose(s.run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-4)
    again = onnx_light.RuntimeSession(str(out))
    np.testing.assert_allclose(again.run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-4)
