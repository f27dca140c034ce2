"""The pass manager (src/onnx_light/runtime/passes/pass_manager.cc): optimization levels,
disabled passes and optimized_model_path, on small graphs and the real models."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import LEVELS_X, levels_model
from _models import model_path

import onnx_light
from onnx_light.onnx import TensorProto

F = TensorProto.FLOAT


def test_levels_remove_work_and_keep_results():
    model = levels_model()
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    assert (none.folded_nodes, none.removed_nodes, none.planned_nodes) == (0, 0, 7)
    want = none.run(None, {"x": LEVELS_X})
    for level in ("basic", "extended", "all", 1, 2, 99):
        s = onnx_light.RuntimeSession(model, graph_optimization_level=level)
        # Neg(w) folded; Identity, Dropout and the dead Exp removed; Relu, Add, Sigmoid run.
        assert (s.folded_nodes, s.removed_nodes, s.planned_nodes) == (1, 3, 3), level
        for g, w in zip(s.run(None, {"x": LEVELS_X}), want):
            np.testing.assert_array_equal(g, w)
    # constant_folding=False turns that pass off at any level.
    s = onnx_light.RuntimeSession(model, constant_folding=False)
    assert (s.folded_nodes, s.planned_nodes) == (0, 4)


def test_optimized_model_path_writes_what_runs_and_it_loads_back(tmp_path):
    path = tmp_path / "opt.onnx"
    s = onnx_light.RuntimeSession(levels_model(), optimized_model_path=path)
    m = onnx_light.onnx.load(str(path))
    assert sorted(n.op_type for n in m.graph.node) == ["Add", "Relu", "Sigmoid"]
    assert [t.name for t in m.graph.initializer] == ["nw"]  # the folded value
    again = onnx_light.RuntimeSession(path)
    for g, w in zip(again.run(None, {"x": LEVELS_X}), s.run(None, {"x": LEVELS_X})):
        np.testing.assert_array_equal(g, w)
    # The file is standard ONNX: the onnx checker accepts it.
    import onnx

    onnx.checker.check_model(onnx.load(str(path)))


def test_bad_levels_and_paths():
    with pytest.raises(ValueError, match="none, basic, extended, all"):
        onnx_light.RuntimeSession(levels_model(), graph_optimization_level="max")
    with pytest.raises(ValueError, match="0, 1, 2 or 99"):
        onnx_light.RuntimeSession(levels_model(), graph_optimization_level=3)
    with pytest.raises(TypeError):
        onnx_light.RuntimeSession(levels_model(), graph_optimization_level=1.5)
    with pytest.raises(TypeError):
        onnx_light.RuntimeSession(levels_model(), optimized_model_path=42)
    with pytest.raises(OSError, match="optimized_model_path"):
        onnx_light.RuntimeSession(levels_model(), optimized_model_path="/nonexistent/dir/m.onnx")


def test_onnxruntime_level_values_are_accepted():
    import onnxruntime as ort

    s = onnx_light.RuntimeSession(
        levels_model(), graph_optimization_level=ort.GraphOptimizationLevel.ORT_DISABLE_ALL
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
