"""A C++ program written against ORT's onnxruntime_cxx_api.h (tests/ort_c_api/cxx_client.cc,
linked with -lonnxruntime) prints the same on onnx-light's libonnxruntime.so.1 as on real ORT
1.29: a dense model with a symbolic batch from a file and from bytes, metadata, a tensor over
the program's buffer, outputs allocated and preallocated, run tags and terminate, a string
model, ZipMap's sequence of maps, a sequence output and one made by the program, the errors
of a missing input, a wrong type, an unknown output and a wrong rank, and three models
refused at load; then free-dimension overrides, session config entries, AddInitializer,
overridable initializers, I/O binding (allocated and preallocated outputs), RunAsync,
profiling and SetOptimizedModelFilePath (both files written), external data from a file and
from memory, the repository's example custom-op library (RegisterCustomOpsLibrary_V2) and
an env with global thread pools."""

from __future__ import annotations

from pathlib import Path

import pytest
from _client_models import write_models
from _clients import BUILD, LIGHT_LIB_DIR, compare, real_ort_dir, run_client

CLIENT = BUILD / "bin" / "ort_cxx_client"
PLUGIN = BUILD / "lib" / "libort_custom_ops.so"  # examples/custom_ops


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not CLIENT.exists():
        raise RuntimeError(f"{CLIENT} is missing: build with scripts/build.sh")
    tmp = tmp_path_factory.mktemp("cxx_client")
    models = write_models(tmp / "models")
    runs = {}
    for which, lib_dir in [("light", LIGHT_LIB_DIR), ("ort", real_ort_dir(tmp))]:
        out = tmp / f"out-{which}"
        out.mkdir()
        lines = run_client([str(CLIENT), str(models), str(PLUGIN), str(out)], lib_dir)
        lines += run_client([str(CLIENT), str(models), "--global-pools"], lib_dir)
        runs[which] = lines + [f"file {p.name.split('_')[0]}" for p in sorted(out.iterdir())]
    return runs["light"], runs["ort"]


def test_each_run_used_the_library_asked_for(runs):
    light, ort = runs
    info = lambda lines: next(l for l in lines if l.startswith("build_info"))  # noqa: E731
    assert "onnx-light" in info(light)
    assert "onnx-light" not in info(ort)


def test_same_output_as_real_ort(runs):
    light, ort = runs
    assert light.count("done") == 2 and ort.count("done") == 2
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
        "input 0 x onnx_type=1 elem=1 shape=[3,4]",  # a free dimension fixed
        "config has=1 value=0 missing_has=0",
        "overridable inputs=1 overridable=1 name=b",
        "binding_wrote_user_buffer 1",
        "run_async ok=1 outputs=1",
        "profile_written 1 prefixed 1 optimized_written 1",
        "value external_from_memory elem=1 shape=[2,3] 2.25",
        "value custom_op elem=1 shape=[4] -0.2",
        "per_session_threads_off_without_global_pools error code=1",
        "value global_pools",
        "file optimized.onnx",
        "file profile",
    ]:
        assert fact in text, fact
