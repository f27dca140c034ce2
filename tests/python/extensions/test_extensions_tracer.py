"""The extensions profile's slot list, checked by the tracer (a proxy plugin that counts
the OrtApi slots the plugin calls, tests/cpp/bridge_ops_ort_called_by_light/
ort_api_tracer.cc): every case of the suite runs with onnxruntime-extensions behind the
tracer under ONNX Runtime (its own process) and under onnx-light. Every slot the library
calls under ORT must be in the profile (else it would call a null slot here), and under
onnx-light it calls nothing else either. The initial profile's table is unchanged."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import pytest
from _ext import Oracle, light_run, one_node
from _ext_cases import CASES
from _ort_api_slots import slot_names

import onnx_light
from onnx_light import _core

BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", Path(__file__).resolve().parents[3] / "build"))
TRACER = BUILD / "lib" / "test_plugins" / "libort_api_tracer.so"

INITIAL = [
    "CreateStatus",
    "GetErrorCode",
    "GetErrorMessage",
    "CreateCustomOpDomain",
    "CustomOpDomain_Add",
    "AddCustomOpDomain",
    "GetTensorMutableData",
    "GetTensorElementType",
    "GetDimensionsCount",
    "GetDimensions",
    "GetTensorShapeElementCount",
    "GetTensorTypeAndShape",
    "KernelInfoGetAttribute_float",
    "KernelInfoGetAttribute_int64",
    "KernelInfoGetAttribute_string",
    "KernelContext_GetInputCount",
    "KernelContext_GetOutputCount",
    "KernelContext_GetInput",
    "KernelContext_GetOutput",
    "ReleaseStatus",
    "ReleaseTensorTypeAndShapeInfo",
    "ReleaseCustomOpDomain",
]
# What the extensions profile adds: the functions onnxruntime-extensions' CPU ops call
# (its sources' custom-op wrapper, confirmed by this test under ORT).
EXTENSIONS_ADDED = [
    "FillStringTensor",
    "GetStringTensorDataLength",
    "GetStringTensorContent",
    "SetDimensions",
    "CreateCpuMemoryInfo",
    "MemoryInfoGetName",
    "ReleaseMemoryInfo",
    "GetStringTensorElementLength",
    "GetStringTensorElement",
    "FillStringTensorElement",
    "ReleaseAllocator",
    "KernelInfoGetAttributeArray_float",
    "KernelInfoGetAttributeArray_int64",
    "GetTensorMemoryInfo",
    "KernelContext_GetAllocator",
]


def _names(indices):
    names = slot_names()
    return {names[i] for i in indices}


def test_the_profiles_set_exactly_their_slots():
    assert _names(_core._host_api_slots("initial")) == set(INITIAL)
    assert _names(_core._host_api_slots("extensions")) == set(INITIAL) | set(EXTENSIONS_ADDED)


@pytest.fixture(scope="module")
def traced(ext_library):
    if not TRACER.exists():
        pytest.fail(f"{TRACER} is missing: build with scripts/build.sh")
    env = {"ONNX_LIGHT_TRACE_TARGET": ext_library}
    ort = Oracle(env=env)
    os.environ["ONNX_LIGHT_TRACE_TARGET"] = ext_library
    keeper = None  # a session holding the tracer loaded, so its counts add up
    try:
        for case in CASES:
            model = one_node(
                case.op,
                case.feeds,
                [f"y{i}" for i in range(case.outputs)],
                domain=case.domain,
                **case.attrs,
            )
            ort.run(model, case.feeds, library=str(TRACER))
            if keeper is None:
                so = onnx_light.SessionOptions()
                so.register_custom_ops_library(TRACER)
                keeper = onnx_light.InferenceSession(model.SerializeToString(), so)
            light_run(model, case.feeds, library=str(TRACER))
        under_ort = ort.trace_counts(str(TRACER))
        counts = (ctypes.c_uint64 * 512)()
        n = ctypes.CDLL(str(TRACER)).OnnxLightTraceCounts(counts, 512)
        under_light = list(counts[:n])
    finally:
        ort.close()
        del os.environ["ONNX_LIGHT_TRACE_TARGET"]
        del keeper
    return under_ort, under_light


def test_what_extensions_calls_under_ort_is_in_the_profile(traced):
    under_ort, _ = traced
    called = _names(i for i, c in enumerate(under_ort) if c)
    profile = _names(_core._host_api_slots("extensions"))
    assert called - profile == set(), sorted(called - profile)
    # The tracer saw the library at work (registration and the string functions).
    assert {"CustomOpDomain_Add", "GetStringTensorContent", "FillStringTensor"} <= called


def test_under_onnx_light_it_calls_only_the_profile(traced):
    _, under_light = traced
    called = _names(i for i, c in enumerate(under_light) if c)
    profile = _names(_core._host_api_slots("extensions"))
    assert called <= profile, sorted(called - profile)
    assert {"CustomOpDomain_Add", "KernelContext_GetOutput", "FillStringTensor"} <= called
