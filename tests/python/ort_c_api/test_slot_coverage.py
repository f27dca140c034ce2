"""Every slot libonnxruntime.so.1 implements is called by at least one of the client
programs that the other tests compare with real ORT (C++, Node.js, Java, Rust, and
onnxruntime_go's own suite), so each real slot's behaviour is checked against ORT's. The
library traces the slots a process calls when ONNX_LIGHT_ORT_TRACE names a file (see
onnx_light_ort/ort_c_api/table.cc). The stubs are checked one by one in
tests/cpp/ort_c_api/slots_test.cc."""

from __future__ import annotations

import ctypes
import os
import subprocess

import pytest
from _client_models import write_models
from _clients import LIGHT_LIB_DIR, light_commands, ort_clients, run_client


def slots() -> tuple[list[str], set[str]]:
    lib = ctypes.CDLL(str(LIGHT_LIB_DIR / "libonnxruntime.so.1"))
    lib.OnnxLightOrtApiSlotName.restype = ctypes.c_char_p
    names = [lib.OnnxLightOrtApiSlotName(i).decode() for i in range(lib.OnnxLightOrtApiSlotCount())]
    real = {n for i, n in enumerate(names) if lib.OnnxLightOrtApiSlotIsStub(i) == 0}
    return names, real


@pytest.fixture(scope="module")
def used(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("coverage")
    models = write_models(tmp / "models")
    trace = tmp / "trace.txt"
    env = {"ONNX_LIGHT_ORT_TRACE": str(trace)}
    for cmd, extra in light_commands(models, tmp):
        run_client(cmd, tmp, env={**env, **extra})
    go = subprocess.run(
        ["go", "test", "-count=1", "./..."],
        cwd=ort_clients("go"),
        env=dict(
            os.environ,
            **env,
            ONNXRUNTIME_SHARED_LIBRARY_PATH=str(LIGHT_LIB_DIR / "libonnxruntime.so.1"),
            GOFLAGS="-mod=mod",
        ),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert go.returncode == 0, go.stdout[-3000:]
    return set(trace.read_text().split())


def test_every_real_slot_is_called_by_a_client(used):
    names, real = slots()
    assert len(names) == 425
    assert len(real) >= 150
    assert sorted(real - used) == []


# The stubs the clients call, each answered as a CPU build of ORT answers: onnxruntime_go's
# GPU tests ask for CUDA, TensorRT and OpenVINO options and skip on the error; Java and Rust
# ask for the training, model-editor, compile and EP sub-APIs and go on without them (null).
CALLED_STUBS = {
    "CreateCUDAProviderOptions",
    "CreateTensorRTProviderOptions",
    "SessionOptionsAppendExecutionProvider_OpenVINO_V2",
    "GetCompileApi",
    "GetExecutionProviderApi",
    "GetModelEditorApi",
    "GetTrainingApi",
}


def test_the_only_stubs_clients_call_are_the_documented_ones(used):
    _, real = slots()
    assert used - real == CALLED_STUBS
