"""bench/ops covers the runtime: every registered kernel of ai.onnx, ai.onnx.ml and
com.microsoft has at least one row, and every row builds a model that onnx-light and ORT
(where ORT has the kernel) both run to the same outputs within the row's tolerance. The
timings themselves are bench/ops/run.py's, never asserted here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build"))
sys.path[:0] = [str(REPO / "bench"), str(REPO / "bench" / "ops")]

import rows  # noqa: E402
import run as bench_ops  # noqa: E402

CASES = [(family, case) for family, cases in rows.FAMILIES.items() for case in cases]


def test_every_registered_kernel_has_a_row():
    tool = BUILD / "onnx-light"
    if not tool.exists():
        pytest.fail(f"{tool} is missing: build it with scripts/build.sh")
    missing = bench_ops.missing_rows(tool)
    assert not missing, f"kernels with no bench/ops row: {missing}"


def test_row_names_are_unique():
    names = [case.name for _, case in CASES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("family,case", CASES, ids=[f"{f}:{c.name}" for f, c in CASES])
def test_row_runs_and_agrees_with_ort(family, case):
    r = bench_ops.compare(case, threads=1)
    assert r["ok"], f"{case.name}: outputs differ from ORT's by {r['diff']}"
