"""The per-op facts compiled into the planner (src/onnx_light/runtime/op_schemas.inc) are
what the onnx package's op schemas say: the committed file equals a fresh generation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_op_schemas_inc_is_current():
    r = subprocess.run(
        [sys.executable, str(REPO / "tools" / "gen_op_schemas.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
