"""The names of the OrtApi table's slots, in order, read from the pinned ORT C API header
(third_party/ort-headers, fetched by scripts/setup.sh): for the tests and docs that list
which slots a host profile sets and which a plugin calls."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import gen_ort_api_slots  # noqa: E402

HEADER = Path(__file__).resolve().parents[2] / "third_party/ort-headers/include/onnxruntime_c_api.h"


def slot_names() -> list[str]:
    if not HEADER.exists():
        raise RuntimeError(f"{HEADER} is missing: run scripts/setup.sh")
    # One parser for the build (tools/gen_ort_api_slots.py makes libonnxruntime.so.1's
    # slot list from it) and the tests.
    _, names = gen_ort_api_slots.slot_names(HEADER.read_text())
    # Anchors the bridges rely on (checked by static_assert in the host too).
    assert names.index("CreateCustomOpDomain") == 26, "the OrtApi parse drifted"
    assert names.index("KernelContext_GetOutput") == 91, "the OrtApi parse drifted"
    assert names.index("ReleaseCustomOpDomain") == 101, "the OrtApi parse drifted"
    return names
