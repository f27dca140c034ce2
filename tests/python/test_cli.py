"""The onnx-light command-line tool, run as a subprocess on the bundled model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _models import model_path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build"))
TOOL = BUILD / "onnx-light"
MODEL = REPO / "models" / "default.onnx"


def cli(*args, check=True):
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is missing: build it with scripts/build.sh")
    result = subprocess.run([str(TOOL), *map(str, args)], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"onnx-light {' '.join(map(str, args))} failed:\n{result.stderr}")
    return result


def reference(x):
    h = np.where(x < 0, x * np.float32(0.2), x)
    return np.log(h * h + np.float32(1))


def test_bundled_model_is_reproducible(tmp_path):
    # tools/make_default_model.py writes exactly the committed file.
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import make_default_model
    finally:
        sys.path.pop(0)
    for name, make in make_default_model.MODELS.items():
        assert make().SerializeToString() == (REPO / "models" / name).read_bytes(), name


def test_run_random():
    out = cli("run", MODEL, "--random", "--dim", "N=5", "--repeat", "3").stdout
    assert "input  x            FLOAT    [5, 4] random (declared [N, 4])" in out
    assert "output y            FLOAT    [5, 4] min" in out
    assert "run    3 times: mean" in out


def test_run_with_npy_inputs_and_save(tmp_path):
    x = np.random.default_rng(3).standard_normal((6, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    cli("run", MODEL, "--input", f"x={tmp_path / 'x.npy'}", "--save", tmp_path)
    y = np.load(tmp_path / "y.npy")
    np.testing.assert_allclose(y, reference(x), rtol=2e-7, atol=1e-7)


@pytest.mark.parametrize(
    "args,message",
    [
        (["run"], "run needs a model path"),
        (["run", "/nonexistent.onnx"], "NOT_FOUND"),
        (["run", MODEL, "--bogus"], "unknown option '--bogus'"),
        (["run", MODEL, "--repeat", "0"], "--repeat needs a positive integer"),
        (["run", MODEL, "--input", "nope=a.npy"], "the model has no input 'nope'"),
        (["run", MODEL], "input 'x' (FLOAT [N, 4]) has no value: give it with --input x=FILE.npy"),
        (["run", MODEL, "--random", "--dim", "M=3"], "no symbolic dimension 'M'; theirs: N"),
        (["run", MODEL, "--input", "nope=1"], "the model has no input 'nope'; its inputs: x"),
        (["run", MODEL, "--input", "x=[[1, 2], [3]]"], "is not rectangular"),
        (["run", MODEL, "--input", "x=abc"], "'abc' is not a literal"),
        (["frobnicate"], "unknown command 'frobnicate'"),
    ],
)
def test_errors(args, message):
    result = cli(*args, check=False)
    assert result.returncode != 0
    assert message in result.stderr


def test_wrong_npy_dtype(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((2, 4), np.float64))
    result = cli("run", MODEL, "--input", f"x={tmp_path / 'x.npy'}", check=False)
    assert result.returncode == 1
    assert "input 'x': expected FLOAT, got DOUBLE" in result.stderr
    (tmp_path / "bad.npy").write_bytes(b"not numpy")
    result = cli("run", MODEL, "--input", f"x={tmp_path / 'bad.npy'}", check=False)
    assert "not a supported .npy file" in result.stderr


def test_ops_lists_every_kernel():
    out = cli("ops").stdout
    for line in ("onnx_light       LeakyRelu        1+", "onnx_light_cpu   Log              1+"):
        assert line in out
    assert "ai.onnx          Cast             6+" in out
    assert out.strip().endswith("kernels")


def test_version_and_help():
    assert cli("version").stdout.startswith("onnx-light ")
    assert "commands:" in cli("help").stdout


def test_simd_target_can_be_capped_by_environment():
    def run_with(target):
        return subprocess.run(
            [str(TOOL), "run", MODEL, "--random", "--dim", "N=2"],
            capture_output=True,
            text=True,
            env=dict(os.environ, ONNX_LIGHT_SIMD_TARGET=target),
            check=True,
        )

    out = run_with("scalar")
    assert "(SIMD SCALAR, 1 thread)" in out.stdout
    assert out.stderr == ""
    out = run_with("AVX9000")
    assert "ONNX_LIGHT_SIMD_TARGET=AVX9000 is not a SIMD target" in out.stderr
    assert "SCALAR" in out.stderr and "ignored" in out.stderr


def test_literal_inputs_and_a_save_folder_that_does_not_exist(tmp_path):
    out = tmp_path / "new" / "folder"
    result = cli("run", MODEL, "--input", "x=[[1, 2, 3, 4], [-1, 0, 0.5, 2]]", "--save", out)
    assert "input  x            FLOAT    [2, 4] = [[1, 2, 3, 4], [-1, 0, 0.5, 2]]" in result.stdout
    x = np.array([[1, 2, 3, 4], [-1, 0, 0.5, 2]], np.float32)
    np.testing.assert_allclose(np.load(out / "y.npy"), reference(x), rtol=2e-7, atol=1e-7)


def test_a_scalar_literal_sets_a_vads_sample_rate():
    vad = model_path("silero_vad_16k_op15.onnx")
    result = cli("run", vad, "--random", "--dim", "sequence=512", "--input", "sr=16000")
    assert "input  sr           INT64    [] = 16000" in result.stdout
    assert "output output" in result.stdout


def test_a_file_that_is_no_model_says_so(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    result = cli("run", tmp_path / "notes.txt", check=False)
    assert result.returncode == 1
    assert result.stderr.startswith(f"onnx-light: {tmp_path / 'notes.txt'} is not an ONNX model")


def test_a_shape_error_with_defaulted_dimensions_names_them():
    cls = model_path("ch_ppocr_mobile_v2.0_cls_infer.onnx")
    result = cli("run", cls, "--random", check=False)
    assert result.returncode == 1
    assert "the window is larger than the padded input (INVALID_ARGUMENT)" in result.stderr
    assert "hint: these symbolic dimensions were set to 1: p2o.DynamicDimension.0" in result.stderr
    ok = cli(
        "run",
        cls,
        "--random",
        "--dim",
        "p2o.DynamicDimension.1=48",
        "--dim",
        "p2o.DynamicDimension.2=192",
    )
    assert "output" in ok.stdout


def test_map_outputs_are_printed_and_map_inputs_refused(tmp_path):
    # A ZipMap's sequence of maps: its size, key and value types and first map; --save
    # says it keeps tensors only. A map input cannot be given on the command line.
    from _ml import I64, F, map_of, seq_of_maps, typed_model
    from onnx import helper

    zip_model = tmp_path / "zip.onnx"
    zip_model.write_bytes(
        typed_model(
            "ZipMap",
            [("x", helper.make_tensor_type_proto(F, [3, 2]))],
            [("z", seq_of_maps(I64, F))],
            ml_opset=1,
            classlabels_int64s=[4, 5],
        )
    )
    out = cli("run", zip_model, "--input", "x=[[1, 2], [3, 4], [5, 6]]", "--save", tmp_path).stdout
    assert "output z            sequence of 3 maps INT64 -> FLOAT first {4: 1, 5: 2}" in out
    assert "not saved: .npy holds tensors only" in out
    vectorizer = tmp_path / "dv.onnx"
    vectorizer.write_bytes(
        typed_model(
            "DictVectorizer",
            [("m", map_of(I64, F))],
            [("y", helper.make_tensor_type_proto(F, None))],
            ml_opset=1,
            int64_vocabulary=[1],
        )
    )
    result = cli("run", vectorizer, "--random", check=False)
    assert result.returncode == 1
    assert "input 'm' is a map: `onnx-light run` feeds tensors only" in result.stderr
