"""Structurally malformed models never crash the process: every ONNX backend node model
(the onnx wheel's test data) is altered node by node - each input removed, each input's
name emptied, an extra input added, an extra output added - and then created and run with
the test's stored inputs. Each variant must give a result or a Python exception
(ValueError, TypeError or RuntimeError) with a message; a crash fails the test and names
the variant.

The sweep runs in a child process that prints each variant before trying it, so a crash
(a signal) is reported with the variant that caused it. The onnx package builds the
variants only (test data handling); it is not an oracle here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import onnx

REPO = Path(__file__).resolve().parents[2]
NODE_DATA = Path(onnx.__file__).parent / "backend" / "test" / "data" / "node"

CHILD = r"""
import json, sys
from pathlib import Path
import numpy as np
import onnx
from onnx import numpy_helper
import onnx_light

def feeds_of(case, graph):
    inputs = [vi.name for vi in graph.input]
    names = {}
    files = sorted(case.glob("test_data_set_0/input_*.pb"), key=lambda p: int(p.stem.split("_")[1]))
    for name, f in zip(inputs, files):
        t = onnx.TensorProto()
        try:
            t.ParseFromString(f.read_bytes())
            names[name] = numpy_helper.to_array(t)
        except Exception:
            return None  # sequences and optionals: run with what can be read
    return names

def variants(model):
    for k, node in enumerate(model.graph.node):
        if len(model.graph.node) > 4:
            return
        for i in range(len(node.input)):
            m = onnx.ModelProto(); m.CopyFrom(model)
            del m.graph.node[k].input[i]
            yield f"node {k} input {i} removed", m
            m = onnx.ModelProto(); m.CopyFrom(model)
            m.graph.node[k].input[i] = ""
            yield f"node {k} input {i} emptied", m
        m = onnx.ModelProto(); m.CopyFrom(model)
        extra = node.input[0] if len(node.input) else (model.graph.input[0].name if model.graph.input else "")
        m.graph.node[k].input.append(extra)
        yield f"node {k} extra input", m
        m = onnx.ModelProto(); m.CopyFrom(model)
        m.graph.node[k].output.append(f"extra_output_{k}")
        yield f"node {k} extra output", m

counts = {"cases": 0, "variants": 0, "created": 0, "ran": 0, "errors": 0}
bad_errors = []
for case in sorted(Path(sys.argv[1]).iterdir()):
    path = case / "model.onnx"
    if not path.exists():
        continue
    model = onnx.load(str(path))
    feeds = feeds_of(case, model.graph)
    counts["cases"] += 1
    for what, m in variants(model):
        counts["variants"] += 1
        print(f"TRY {case.name}: {what}", flush=True)
        try:
            s = onnx_light.RuntimeSession(m.SerializeToString())
            counts["created"] += 1
            if feeds is not None:
                s.run(None, {k: v for k, v in feeds.items() if k in {i.name for i in s.get_inputs()}})
                counts["ran"] += 1
        except (ValueError, TypeError, RuntimeError) as e:
            counts["errors"] += 1
            if not str(e):
                bad_errors.append(f"{case.name}: {what}: {type(e).__name__} without a message")
        except Exception as e:
            bad_errors.append(f"{case.name}: {what}: {type(e).__name__}: {e}")
print("RESULT " + json.dumps({"counts": counts, "bad_errors": bad_errors}), flush=True)
"""


def test_malformed_node_models_give_errors_not_crashes(record_property):
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    r = subprocess.run(
        [sys.executable, "-c", CHILD, str(NODE_DATA)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    lines = r.stdout.splitlines()
    last = next((ln for ln in reversed(lines) if ln.startswith("TRY ")), "(none)")
    assert (
        r.returncode == 0
    ), f"the sweep died (exit {r.returncode}) at {last[4:]}\n{r.stderr[-3000:]}"
    result = json.loads(next(ln for ln in lines if ln.startswith("RESULT "))[7:])
    counts = result["counts"]
    record_property("counts", counts)
    print(f"malformed variants: {counts}")
    assert counts["cases"] > 1500 and counts["variants"] > 5000, counts
    assert counts["errors"] > counts["variants"] // 4, counts  # most variants are refused
    assert result["bad_errors"] == [], result["bad_errors"][:20]
