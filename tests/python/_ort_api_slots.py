"""The names of the OrtApi table's slots, in order, read from the pinned ORT C API header
(third_party/ort-headers, fetched by scripts/setup.sh): for the tests and docs that list
which slots a host profile sets and which a plugin calls."""

from __future__ import annotations

import re
from pathlib import Path

HEADER = Path(__file__).resolve().parents[2] / "third_party/ort-headers/include/onnxruntime_c_api.h"

_DECL = re.compile(
    r"ORT_API2_STATUS\(\s*(\w+)"  # OrtStatus* functions
    r"|ORT_CLASS_RELEASE2?\(\s*(\w+)\s*\)"  # ReleaseX
    r"|\(ORT_API_CALL\s*\*\s*(\w+)\)"  # other function pointers
    r"|ORT_API_T\(\s*[^,]+,\s*(\w+)"  # typed functions of later versions
)


def slot_names() -> list[str]:
    if not HEADER.exists():
        raise RuntimeError(f"{HEADER} is missing: run scripts/setup.sh")
    text = HEADER.read_text()
    body = text[text.index("struct OrtApi {") :]
    body = body[: body.index("\n};")]
    body = re.sub(r"//[^\n]*", "", body)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    names = []
    for m in _DECL.finditer(body):
        status, release, pointer, typed = m.groups()
        names.append(status or (f"Release{release}" if release else pointer or typed))
    # Anchors the bridges rely on (checked by static_assert in the host too).
    assert names.index("CreateCustomOpDomain") == 26, "the OrtApi parse drifted"
    assert names.index("KernelContext_GetOutput") == 91, "the OrtApi parse drifted"
    assert names.index("ReleaseCustomOpDomain") == 101, "the OrtApi parse drifted"
    return names
