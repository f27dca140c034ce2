"""docs/ort_c_api.md's slot table is the built library's (tools/ort_c_api_docs.py --check)."""

from __future__ import annotations

import subprocess
import sys

from _clients import REPO


def test_the_slot_table_is_current():
    done = subprocess.run(
        [sys.executable, str(REPO / "tools" / "ort_c_api_docs.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
