"""The memory pattern (RuntimeSession(enable_mem_pattern=True), the default): the second
run in a row with the same input shapes plans an arena for the intermediate values, and
the runs that follow place them there. Checked against numpy (float32, the same
operations in the same order: results compared exactly where the ops are exact, at
rtol 1e-6 and atol 1e-6 where Sigmoid rounds) and against the same session with the pattern off (bit-identical):
views whose source dies before them (Reshape), graph outputs that are views of an
intermediate (never placed, so earlier outputs stay intact), new and alternating shapes,
partial runs, several threads on one session, and real models."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from _models import model_path

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def views_model():
    """y = 2 * (relu(x).ravel() + (-sigmoid(x)).ravel()); v = abs(x).ravel().

    relu(x) dies at its Reshape while the view lives on; sigmoid(x) would take its bytes
    if the plan did not follow views. v is a graph output that is a view of abs(x)."""
    flat = numpy_helper.from_array(np.array([-1], np.int64), "flat")
    two = numpy_helper.from_array(np.array(2.0, np.float32), "two")
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Reshape", ["a", "flat"], ["b"]),
        helper.make_node("Sigmoid", ["x"], ["c"]),
        helper.make_node("Neg", ["c"], ["d"]),
        helper.make_node("Reshape", ["d", "flat"], ["e"]),
        helper.make_node("Add", ["b", "e"], ["f"]),
        helper.make_node("Mul", ["f", "two"], ["y"]),
        helper.make_node("Abs", ["x"], ["g"]),
        helper.make_node("Reshape", ["g", "flat"], ["v"]),
    ]
    graph = helper.make_graph(
        nodes,
        "views",
        [helper.make_tensor_value_info("x", F, ["n", 64])],
        [helper.make_tensor_value_info("y", F, None), helper.make_tensor_value_info("v", F, None)],
        [flat, two],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def reference(x):
    sig = (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)
    y = (np.maximum(x, 0).ravel() + (-sig).ravel()) * np.float32(2)
    return y, np.abs(x).ravel()


def check(session, x, outputs=None):
    got = session.run(outputs, {"x": x})
    y, v = reference(x)
    want = {"y": y, "v": v}
    for name, g in zip(outputs or ["y", "v"], got):
        np.testing.assert_allclose(g, want[name], rtol=1e-6, atol=1e-6)
    return got


def test_plan_made_on_the_second_run_and_results_stay_right():
    rng = np.random.default_rng(3)
    s = onnx_light.RuntimeSession(views_model())
    assert s.memory_pattern_stats()["planned_frames"] == 0
    kept = []
    for i in range(6):
        x = rng.standard_normal((3, 64)).astype(np.float32)
        kept.append((x, check(s, x)))
        stats = s.memory_pattern_stats()
        assert stats["planned_frames"] == (0 if i == 0 else 1), (i, stats)
    assert stats["arena_bytes"] >= 2 * 3 * 64 * 4  # relu(x) and sigmoid(x) live together
    assert stats["placed_values"] >= 3
    # Outputs belong to the caller: later runs never wrote over them.
    for x, (y, v) in kept:
        np.testing.assert_array_equal(v, np.abs(x).ravel())
        np.testing.assert_allclose(y, reference(x)[0], rtol=1e-6, atol=1e-6)


def test_new_shapes_record_again_and_alternating_shapes_never_plan():
    rng = np.random.default_rng(4)
    s = onnx_light.RuntimeSession(views_model())
    for _ in range(2):
        check(s, rng.standard_normal((3, 64)).astype(np.float32))
    assert s.memory_pattern_stats()["planned_frames"] == 1
    check(s, rng.standard_normal((5, 64)).astype(np.float32))  # new shapes: record
    assert s.memory_pattern_stats()["planned_frames"] == 0
    check(s, rng.standard_normal((5, 64)).astype(np.float32))
    assert s.memory_pattern_stats()["planned_frames"] == 1
    for i in range(6):
        check(s, rng.standard_normal((2 + i % 2, 64)).astype(np.float32))
        assert s.memory_pattern_stats()["planned_frames"] == 0


def test_partial_runs_use_the_plan():
    rng = np.random.default_rng(5)
    s = onnx_light.RuntimeSession(views_model())
    for _ in range(2):
        check(s, rng.standard_normal((4, 64)).astype(np.float32))
    for outputs in (["v"], ["y"], ["v", "y"]):
        check(s, rng.standard_normal((4, 64)).astype(np.float32), outputs)
        assert s.memory_pattern_stats()["planned_frames"] == 1


def test_off_matches_on_and_plans_nothing():
    rng = np.random.default_rng(6)
    on = onnx_light.RuntimeSession(views_model())
    off = onnx_light.RuntimeSession(views_model(), enable_mem_pattern=False)
    for _ in range(4):
        x = rng.standard_normal((3, 64)).astype(np.float32)
        for a, b in zip(on.run(None, {"x": x}), off.run(None, {"x": x})):
            np.testing.assert_array_equal(a, b)
    assert off.memory_pattern_stats() == {"planned_frames": 0, "arena_bytes": 0, "placed_values": 0}


def test_option_is_checked():
    with pytest.raises(TypeError, match="enable_mem_pattern must be a bool"):
        onnx_light.RuntimeSession(views_model(), enable_mem_pattern=1)


def test_threads_with_their_own_shapes_on_one_session():
    s = onnx_light.RuntimeSession(views_model())
    errors = []

    def worker(rows):
        rng = np.random.default_rng(rows)
        try:
            for _ in range(60):
                check(s, rng.standard_normal((rows, 64)).astype(np.float32))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(r,)) for r in (1, 2, 3, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.parametrize(
    "name, feeds",
    [
        ("ch_ppocr_mobile_v2.0_cls_infer.onnx", {"x": (2, 3, 48, 192)}),
        ("ch_PP-OCRv4_rec_infer.onnx", {"x": (1, 3, 48, 160)}),
    ],
)
def test_real_models_bit_identical_with_and_without(name, feeds):
    path = str(model_path(name))
    rng = np.random.default_rng(7)
    on = onnx_light.RuntimeSession(path)
    off = onnx_light.RuntimeSession(path, enable_mem_pattern=False)
    for _ in range(3):
        f = {k: rng.uniform(-1, 1, size=v).astype(np.float32) for k, v in feeds.items()}
        for a, b in zip(on.run(None, f), off.run(None, f)):
            np.testing.assert_array_equal(a, b)
    assert on.memory_pattern_stats()["planned_frames"] == 1


def test_parallel_branches_run_one_after_another():
    """Eight parallel branches (MatMul -> Transpose -> ReduceMax, 256 KiB maps) joined by a
    chain of Max, as Keras exports multi-width convolution stacks: the nodes run in the
    file's order (each branch's maps die before the next branch starts), so the arena holds
    about two maps, not all eight branches' (breadth first, every MatMul ran before any
    Transpose: an arena of eight maps and more)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((256, 256)).astype(np.float32)
    weights = [rng.standard_normal((256, 256)).astype(np.float32) for _ in range(8)]
    nodes, inits = [], []
    for i, w in enumerate(weights):
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        nodes += [
            helper.make_node("MatMul", ["x", f"w{i}"], [f"t{i}"]),
            helper.make_node("Transpose", [f"t{i}"], [f"u{i}"]),
            helper.make_node("ReduceMax", [f"u{i}"], [f"v{i}"], axes=[1], keepdims=1),
        ]
    acc = "v0"
    for i in range(1, 8):
        nodes.append(helper.make_node("Max", [acc, f"v{i}"], [f"m{i}"]))
        acc = f"m{i}"
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F, [256, 256])],
        [helper.make_tensor_value_info(acc, F, None)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    s = onnx_light.RuntimeSession(model)
    want = np.max([(x @ w).T.max(axis=1, keepdims=True) for w in weights], axis=0)
    for _ in range(3):
        np.testing.assert_allclose(s.run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-4)
    arena = s.memory_pattern_stats()["arena_bytes"]
    assert 0 < arena <= 3 * 256 * 256 * 4, arena
