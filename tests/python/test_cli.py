"""The onnx-light command-line tool, run as a subprocess on the bundled model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

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
        (["run", MODEL], "missing input 'x'"),
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
