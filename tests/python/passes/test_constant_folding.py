"""Constant folding at session creation: which nodes fold, that results do not change,
that a node failing on constant inputs still fails at run time (not at creation), that
control flow and fed initializers are never folded, and the IR < 4 rule for initializers
listed as graph inputs."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F, I = TensorProto.FLOAT, TensorProto.INT64


def folding_model(ir_version=8, default_input=False):
    # w = ConstantOfShape([2, 3]) * 2 (foldable); y = x + w (not: x is fed).
    nodes = [
        helper.make_node(
            "ConstantOfShape",
            ["shape"],
            ["ones"],
            value=numpy_helper.from_array(np.array([1.0], np.float32)),
        ),
        helper.make_node("Mul", ["ones", "two"], ["w"]),
        helper.make_node("Add", ["x", "w"], ["y"]),
    ]
    inits = [
        numpy_helper.from_array(np.array([2, 3], np.int64), "shape"),
        numpy_helper.from_array(np.array(2.0, np.float32), "two"),
    ]
    inputs = [helper.make_tensor_value_info("x", F, [2, 3])]
    if default_input:  # "two" is also a graph input: a feed may replace it
        inputs.append(helper.make_tensor_value_info("two", F, []))
    graph = helper.make_graph(
        nodes, "g", inputs, [helper.make_tensor_value_info("y", F, None)], initializer=inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = ir_version
    return model


def test_foldable_nodes_fold_and_results_match():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    folded = onnx_light.RuntimeSession(folding_model())
    plain = onnx_light.RuntimeSession(folding_model(), constant_folding=False)
    assert folded.folded_nodes == 2 and plain.folded_nodes == 0
    np.testing.assert_array_equal(folded.run(None, {"x": x})[0], x + 2)
    np.testing.assert_array_equal(plain.run(None, {"x": x})[0], x + 2)


def test_an_initializer_that_backs_an_input_is_not_folded():
    s = onnx_light.RuntimeSession(folding_model(default_input=True))
    assert s.folded_nodes == 1  # ConstantOfShape only; Mul reads the overridable "two"
    x = np.zeros((2, 3), np.float32)
    np.testing.assert_array_equal(
        s.run(None, {"x": x, "two": np.array(5.0, np.float32)})[0], np.full((2, 3), 5.0)
    )
    np.testing.assert_array_equal(s.run(None, {"x": x})[0], np.full((2, 3), 2.0))


def test_before_ir4_listed_initializers_are_weights_not_inputs():
    s = onnx_light.RuntimeSession(folding_model(ir_version=3, default_input=True))
    assert [i.name for i in s.get_inputs()] == ["x"]
    assert s.folded_nodes == 2
    with pytest.raises(ValueError, match="unknown input 'two'"):
        s.run(None, {"x": np.zeros((2, 3), np.float32), "two": np.array(5.0, np.float32)})


def test_a_failing_constant_node_still_fails_at_run_time():
    nodes = [
        helper.make_node("Reshape", ["c", "shape"], ["r"]),
        helper.make_node("Add", ["x", "r"], ["y"]),
    ]
    inits = [
        numpy_helper.from_array(np.ones(6, np.float32), "c"),
        numpy_helper.from_array(np.array([4, 2], np.int64), "shape"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F, None)],
        [helper.make_tensor_value_info("y", F, None)],
        initializer=inits,
    )
    s = onnx_light.RuntimeSession(helper.make_model(graph))
    assert s.folded_nodes == 0
    with pytest.raises(ValueError, match="cannot reshape"):
        s.run(None, {"x": np.ones((4, 2), np.float32)})


def test_control_flow_is_never_folded():
    branch = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["o"])],
        "b",
        [],
        [helper.make_tensor_value_info("o", F, None)],
    )
    nodes = [helper.make_node("If", ["cond"], ["y"], then_branch=branch, else_branch=branch)]
    inits = [
        numpy_helper.from_array(np.array(True), "cond"),
        numpy_helper.from_array(np.ones(2, np.float32), "c"),
    ]
    graph = helper.make_graph(
        nodes, "g", [], [helper.make_tensor_value_info("y", F, None)], initializer=inits
    )
    s = onnx_light.RuntimeSession(helper.make_model(graph))
    assert s.folded_nodes == 0
    np.testing.assert_array_equal(s.run(None, {})[0], [1.0, 1.0])


def test_constant_folding_option_type_is_checked():
    with pytest.raises(TypeError, match="constant_folding must be a bool"):
        onnx_light.RuntimeSession(folding_model(), constant_folding=1)


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
