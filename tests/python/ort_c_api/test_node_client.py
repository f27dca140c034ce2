"""npm onnxruntime-node 1.29.0 (its own addon, unmodified) on onnx-light's libonnxruntime.so.1
through LD_LIBRARY_PATH prints the same as on the real ORT 1.29 the package ships
(tests/ort_c_api/node_client.js): sessions from a file and from bytes, input and output
metadata with symbolic dims, outputs allocated and preallocated (fetches), run options,
strings, the binding's refusal of non-tensor outputs, error paths and models refused at
load. The package comes from scripts/ort_clients.sh (npm, pinned, cached; test-only)."""

from __future__ import annotations

import shutil

import pytest
from _client_models import write_models
from _clients import LIGHT_LIB_DIR, REPO, compare, loaded_library, ort_clients, run_client

CLIENT = REPO / "tests" / "ort_c_api" / "node_client.js"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    node = shutil.which("node")
    if node is None:
        raise RuntimeError(
            "node is not on PATH: install Debian's nodejs (the machine image has it)"
        )
    folder = ort_clients("node")
    modules = f"{folder}/node_modules"
    ort_dir = f"{modules}/onnxruntime-node/bin/napi-v6/linux/x64"  # the package's real ORT
    models = write_models(tmp_path_factory.mktemp("node_client") / "models")
    cmd = [node, str(CLIENT), str(models)]
    light = run_client(cmd, LIGHT_LIB_DIR, env={"NODE_PATH": modules})
    ort = run_client(cmd, ort_dir, env={"NODE_PATH": modules})
    return light, ort


def test_same_output_as_real_ort(runs):
    light, ort = runs
    assert light[-1] == "done" and ort[-1] == "done"
    compare(light, ort, skip_prefixes=("library ",))


def test_each_run_loaded_the_library_asked_for(runs):
    light, ort = runs
    assert str(LIGHT_LIB_DIR) in loaded_library(light)
    assert "napi-v6/linux/x64/libonnxruntime.so.1" in loaded_library(ort)
