"""A Rust program written with the `ort` crate (2.0.0-rc.15 from crates.io, `load-dynamic`,
`api-29`, unmodified API use; tests/ort_c_api/rust_client) prints the same on onnx-light's
libonnxruntime.so.1 as on real ORT 1.29: the model-info facts (inputs and outputs with
symbolic dims, metadata), sessions from a file and from bytes, strings, ZipMap's maps, a
sequence, error codes of failing runs and of three models refused at load. `ort` parses
GetVersionString and refuses a minor version below its API; it builds a type info through
SetSymbolicDimensions for every input and output. Built by scripts/ort_clients.sh rust
(Cargo.lock-pinned crates, cached; test-only)."""

from __future__ import annotations

import pytest
from _client_models import write_models
from _clients import LIGHT_LIB_DIR, ORT_LIB, compare, ort_clients, run_client


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not ORT_LIB.exists():
        raise RuntimeError(f"{ORT_LIB} is missing: run scripts/setup.sh")
    client = ort_clients("rust")  # (building it needs cargo and crates.io)
    tmp = tmp_path_factory.mktemp("rust_client")
    models = write_models(tmp / "models")
    light = run_client([client, str(LIGHT_LIB_DIR / "libonnxruntime.so.1"), str(models)], tmp)
    ort = run_client([client, str(ORT_LIB), str(models)], tmp)
    return light, ort


def test_same_output_as_real_ort(runs):
    light, ort = runs
    assert light[-1] == "done" and ort[-1] == "done"
    compare(light, ort)


def test_the_run_covers_the_model_info_and_the_containers(runs):
    light, _ = runs
    text = "\n".join(light)
    for fact in [
        "input x tensor Float32 [-1, 4] 'N'",
        "metadata author=",
        "zipmap 1 [(10, 0.5)",
        "unknown_op error",
    ]:
        assert fact in text, fact
