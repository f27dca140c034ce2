"""docs/ort_drop_in.md's table of ORT's Python API stays true (issue 30): every public name of
the installed onnxruntime (the oracle, requirements/oracles.txt) and of the classes users
touch is in it; each "yes"/"differs" name exists in onnx_light.ort_compat; each "no" name
raises an error that names the feature; the summary line counts the rows."""

from __future__ import annotations

import inspect
import re
import types
from pathlib import Path

import pytest

import onnx_light.ort_compat as light

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "ort_drop_in.md"
ROW = re.compile(r"^\| `([A-Za-z_.0-9]+)`[^|]*\| (yes|differs|no) \|(.*)\|$")
CLASSES = ("InferenceSession", "SessionOptions", "RunOptions", "OrtValue", "IOBinding")
# Names of onnxruntime's package namespace that are its own imports, not API.
INTERNAL = {"contextlib", "import_capi_exception", "onnxruntime_validation"}


def table() -> dict[str, str]:
    rows = {}
    for line in PAGE.read_text().splitlines():
        m = ROW.match(line)
        # (the rows of NodeArg's and ModelMetadata's data fields are counted apart)
        if m and "." in m.group(1) and not m.group(1).startswith("NodeArg."):
            assert m.group(1) not in rows, f"{m.group(1)} is in the table twice"
            rows[m.group(1)] = m.group(2)
    return rows


@pytest.fixture(scope="module")
def ort_names() -> set[str]:
    import onnxruntime as ort
    from onnxruntime.capi import onnxruntime_pybind11_state as state

    def public(obj):
        return {n for n in dir(obj) if not n.startswith("_")}

    # Submodules other tests imported (onnxruntime.quantization, ...) are ORT's tools, not
    # its namespace: docs/ort_drop_in.md says they are not covered.
    names = {
        f"onnxruntime.{n}"
        for n in public(ort) - INTERNAL
        if n == "capi" or not isinstance(getattr(ort, n), types.ModuleType)
    }
    names |= {
        f"pybind11_state.{n}"
        for n in public(state)
        if isinstance(getattr(state, n), type) and issubclass(getattr(state, n), BaseException)
    }
    for cls in CLASSES:
        names |= {f"{cls}.{n}" for n in public(getattr(ort, cls))}
    return names


def test_every_ort_name_is_in_the_table(ort_names):
    rows = table()
    assert sorted(ort_names - set(rows)) == [], "ORT names missing from docs/ort_drop_in.md"
    assert sorted(set(rows) - ort_names) == [], "rows that are no ORT name"


def test_the_summary_counts_the_rows():
    rows = table()
    counts = {s: sum(1 for v in rows.values() if v == s) for s in ("yes", "differs", "no")}
    # the two rows of data fields (NodeArg's and ModelMetadata's) count as supported names:
    # 3 + 7
    yes = counts["yes"] + 10
    supported = yes + counts["differs"]
    total = supported + counts["no"]
    expected = (
        f"**Summary: {supported} of {total} names supported ({yes} as ORT, "
        f"{counts['differs']} with a difference); {counts['no']} not supported.**"
    )
    assert expected in PAGE.read_text()


def owner(scope: str):
    if scope == "SessionOptions":
        return light.SessionOptions()
    if scope == "RunOptions":
        return light.RunOptions()
    if scope == "InferenceSession":
        return light.InferenceSession(str(REPO / "models" / "default.onnx"))
    if scope == "OrtValue":
        import numpy as np

        return light.OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32))
    return getattr(light, scope)


def test_supported_names_exist_and_unsupported_ones_say_why():
    for name, status in table().items():
        scope, member = name.split(".", 1)
        if scope == "onnxruntime":
            if status == "no":  # the name exists; using it says why
                assert member in light.NOT_SUPPORTED, name
                with pytest.raises(light.NotImplemented, match="is not supported by onnx-light"):
                    getattr(light, member)()
            elif member != "capi":  # provided by install(): tests/python/test_ort_install.py
                assert hasattr(light, member), name
            continue
        if scope == "pybind11_state":
            assert issubclass(getattr(light, member), Exception), name
            continue
        obj = owner(scope)
        assert hasattr(obj, member), name
        if status == "no":
            fn = getattr(obj, member)
            required = [
                p
                for p in inspect.signature(fn).parameters.values()
                if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            ]
            with pytest.raises(RuntimeError, match="not supported by onnx-light"):
                fn(*[None] * len(required))
