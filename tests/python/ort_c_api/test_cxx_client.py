"""A C++ program written against ORT's onnxruntime_cxx_api.h (tests/ort_c_api/cxx_client.cc,
linked with -lonnxruntime) prints the same on onnx-light's libonnxruntime.so.1 as on real ORT
1.29: a dense model with a symbolic batch from a file and from bytes, metadata, a tensor over
the program's buffer, outputs allocated and preallocated, run tags and terminate, a string
model, ZipMap's sequence of maps, a sequence output and one made by the program, the errors
of a missing input, a wrong type, an unknown output and a wrong rank, and three models
refused at load."""

from __future__ import annotations

from pathlib import Path

import pytest
from _client_models import write_models
from _clients import BUILD, LIGHT_LIB_DIR, compare, real_ort_dir, run_client

CLIENT = BUILD / "bin" / "ort_cxx_client"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not CLIENT.exists():
        raise RuntimeError(f"{CLIENT} is missing: build with scripts/build.sh")
    tmp = tmp_path_factory.mktemp("cxx_client")
    models = write_models(tmp / "models")
    light = run_client([str(CLIENT), str(models)], LIGHT_LIB_DIR)
    ort = run_client([str(CLIENT), str(models)], real_ort_dir(tmp))
    return light, ort


def test_each_run_used_the_library_asked_for(runs):
    light, ort = runs
    info = lambda lines: next(l for l in lines if l.startswith("build_info"))  # noqa: E731
    assert "onnx-light" in info(light)
    assert "onnx-light" not in info(ort)


def test_same_output_as_real_ort(runs):
    light, ort = runs
    assert light[-1] == "done" and ort[-1] == "done"
    compare(light, ort, skip_prefixes=("build_info",))


def test_the_run_covers_what_the_issue_lists(runs):
    light, _ = runs
    text = "\n".join(light)
    for fact in [
        "sym='N'",  # symbolic dims
        "value dense_bytes",  # a session from bytes
        "preallocated_is_user_buffer 1",
        "missing_input error code=1",  # ORT_FAIL, as ORT 1.29
        "wrong_type error code=2",  # ORT_INVALID_ARGUMENT
        "terminated error code=1",
        "value strings elem=8",
        "zipmap 1 onnx_type=3 count=2",
        "made_sequence count=2",
        "missing_file error code=3",  # ORT_NO_SUCHFILE
        "junk_bytes error code=7",  # ORT_INVALID_PROTOBUF
        "unknown_op error code=10",  # ORT_INVALID_GRAPH
    ]:
        assert fact in text, fact
