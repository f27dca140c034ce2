"""Maven com.microsoft.onnxruntime:onnxruntime 1.29.0 (its jar and JNI library, unmodified)
on onnx-light's libonnxruntime.so.1 through -Donnxruntime.native.onnxruntime.path prints the
same as on the real ORT 1.29 inside the jar (tests/ort_c_api/JavaClient.java): node infos
with symbolic dim names, metadata, sessions from a file and from bytes, strings, ZipMap's
sequence of maps, a sequence output, run options, the error codes of five failing runs and
of three models refused at load. The jar comes from scripts/ort_clients.sh java (Maven
Central, pinned, cached; test-only)."""

from __future__ import annotations

import shutil

import pytest
from _client_models import write_models
from _clients import LIGHT_LIB_DIR, REPO, compare, loaded_library, ort_clients, run_client

CLIENT = REPO / "tests" / "ort_c_api" / "JavaClient.java"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    java = shutil.which("java")
    if java is None:
        raise RuntimeError("java is not on PATH: install a JDK 17 (Debian's openjdk-17-jdk)")
    jar = ort_clients("java")
    tmp = tmp_path_factory.mktemp("java_client")
    models = write_models(tmp / "models")
    cmd = [java, "-cp", jar, str(CLIENT), str(models)]
    lib = f"-Donnxruntime.native.onnxruntime.path={LIGHT_LIB_DIR / 'libonnxruntime.so.1'}"
    light = run_client([java, lib, *cmd[1:]], LIGHT_LIB_DIR)
    ort = run_client(cmd, tmp)  # the jar extracts and loads its own ORT
    return light, ort


def test_same_output_as_real_ort(runs):
    light, ort = runs
    assert light[-1] == "done" and ort[-1] == "done"
    compare(light, ort, skip_prefixes=("library ",))


def test_each_run_loaded_the_library_asked_for(runs):
    light, ort = runs
    assert str(LIGHT_LIB_DIR) in loaded_library(light)
    assert "onnxruntime-java" in loaded_library(ort)
