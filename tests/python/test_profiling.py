"""The profiler: RuntimeSession(enable_profiling=True) records every node of every run;
end_profiling writes a Chrome trace (the events ONNX Runtime's profiler writes: complete
"X" events, category Node with args.op_name, one Session "model_run" per run) and
profile_summary sums the time by op type. Also the tool's --profile."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
from _graphs import LEVELS_X, levels_model
from test_cli import MODEL, cli

import onnx_light


def node_events(trace):
    return [e for e in trace if e["cat"] == "Node"]


def test_trace_has_every_node_of_every_run(tmp_path):
    s = onnx_light.RuntimeSession(levels_model(), enable_profiling=True)
    assert s.planned_nodes == 3  # Relu, Add, Sigmoid (see passes/test_pass_manager.py)
    for _ in range(4):
        s.run(None, {"x": LEVELS_X})
    path = s.end_profiling(tmp_path / "p.json")
    assert path == str(tmp_path / "p.json")
    trace = json.loads((tmp_path / "p.json").read_text())
    nodes = node_events(trace)
    runs = [e for e in trace if e["cat"] == "Session"]
    assert len(nodes) == 4 * 3 and len(runs) == 4
    assert sorted({e["name"] for e in nodes}) == ["add", "relu", "side"]
    assert {e["args"]["op_name"] for e in nodes} == {"Relu", "Add", "Sigmoid"}
    relu = next(e for e in nodes if e["name"] == "relu")
    assert relu["args"]["input_type_shape"] == "FLOAT[2, 3]"
    for e in trace:
        assert e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
    # Each run's nodes lie inside its model_run event, in one order (the plan's), Relu
    # first as the others read it.
    orders = set()
    for run in runs:
        inside = [e for e in nodes if run["ts"] <= e["ts"] <= run["ts"] + run["dur"]]
        orders.add(tuple(e["name"] for e in inside))
    assert len(orders) == 1 and sorted(next(iter(orders))) == ["add", "relu", "side"]
    assert next(iter(orders))[0] == "relu"
    # end_profiling starts afresh.
    s.run(None, {"x": LEVELS_X})
    trace = json.loads(open(s.end_profiling(tmp_path / "q.json")).read())
    assert len(node_events(trace)) == 3


def test_summary_by_op_type():
    s = onnx_light.RuntimeSession(levels_model(), enable_profiling=True)
    for _ in range(5):
        s.run(None, {"x": LEVELS_X})
    rows = s.profile_summary()
    assert {r.op_type for r in rows} == {"Relu", "Add", "Sigmoid"}
    assert all(r.calls == 5 and r.total_ms >= 0 for r in rows)
    assert sum(r.share for r in rows) == pytest.approx(1.0)
    assert [r.total_ms for r in rows] == sorted((r.total_ms for r in rows), reverse=True)


def test_default_path_and_concurrent_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = onnx_light.RuntimeSession(levels_model(), enable_profiling=True)

    def work():
        for _ in range(50):
            s.run(None, {"x": LEVELS_X})

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    path = s.end_profiling()
    assert path.startswith("onnx_light_profile_") and path.endswith(".json")
    trace = json.loads((tmp_path / path).read_text())
    assert len(node_events(trace)) == 3 * 50 * 3


def test_profiling_errors(tmp_path):
    plain = onnx_light.RuntimeSession(levels_model())
    with pytest.raises(RuntimeError, match="enable_profiling=True"):
        plain.end_profiling(tmp_path / "p.json")
    with pytest.raises(RuntimeError, match="enable_profiling=True"):
        plain.profile_summary()
    with pytest.raises(TypeError, match="enable_profiling must be a bool"):
        onnx_light.RuntimeSession(levels_model(), enable_profiling=1)
    s = onnx_light.RuntimeSession(levels_model(), enable_profiling=True)
    s.run(None, {"x": LEVELS_X})
    with pytest.raises(OSError, match="cannot write the profile"):
        s.end_profiling(tmp_path / "missing" / "p.json")
    with pytest.raises(TypeError, match="path must be"):
        s.end_profiling(42)
    # The session is still usable and its events were kept.
    assert s.profile_summary()[0].calls == 1
    np.testing.assert_array_equal(
        s.run(["z"], {"x": LEVELS_X})[0], 1 / (1 + np.exp(-np.maximum(LEVELS_X, 0)))
    )


def test_cli_profile(tmp_path):
    out = cli("run", MODEL, "--random", "--repeat", "4", "--profile", tmp_path / "t.json").stdout
    assert "profile: time per run by op type" in out
    assert f"profile written to {tmp_path / 't.json'}" in out
    trace = json.loads((tmp_path / "t.json").read_text())
    nodes = node_events(trace)
    runs = [e for e in trace if e["cat"] == "Session"]
    assert len(runs) == 4 and len(nodes) % 4 == 0 and nodes
    for op in {e["args"]["op_name"] for e in nodes}:
        assert f"  {op} " in out
    bad = cli("run", MODEL, "--random", "--profile", check=False)
    assert bad.returncode != 0 and "--profile needs a file" in bad.stderr
    bad = cli("run", MODEL, "--random", "--optimization", "most", check=False)
    assert bad.returncode != 0 and "--optimization needs none" in bad.stderr
    out = cli("run", MODEL, "--random", "--optimization", "none").stdout
    assert "output y" in out
