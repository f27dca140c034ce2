"""The ONNX backend test data through onnx-light (tools/conformance.py): every case that
tests/conformance/passing.txt pins must still pass, and no case may crash the process."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import conformance  # noqa: E402


def test_pinned_cases_still_pass(record_property):
    results = conformance.run_all()
    status = {f"{r['folder']}/{r['name']}": r for r in results}
    pinned = [
        line.strip()
        for line in (REPO / "tests" / "conformance" / "passing.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    lost = {name: status.get(name, {"status": "missing", "detail": ""}) for name in pinned}
    lost = {k: f"{v['status']}: {v['detail']}" for k, v in lost.items() if v["status"] != "pass"}
    assert lost == {}, f"cases that stopped passing: {lost}"
    counts = Counter(r["status"] for r in results)
    for k, v in counts.items():
        record_property(k, v)
    new = sorted(set(k for k, r in status.items() if r["status"] == "pass") - set(pinned))
    print(f"\nconformance: {len(results)} cases, {dict(counts)}; {len(new)} new passes to pin")
    assert set(counts) <= {"pass", "wrong", "unsupported", "error"}
