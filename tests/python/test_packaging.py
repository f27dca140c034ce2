"""The package's pieces as seen from the checkout: one version number, `python -m
onnx_light`, the ORT plugin path helper, the generated type stubs. The installed wheel is
tested in a fresh venv by scripts/test_wheel.sh (tests/wheel/smoke.py)."""

from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import pytest

import onnx_light
import onnx_light_ort

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build"))
MODEL = REPO / "models" / "default.onnx"


def run_module(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(REPO / "python"), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "onnx_light", *args],
        capture_output=True,
        text=True,
        env=environment,
    )


def python_c(code: str, **env: str) -> subprocess.CompletedProcess:
    """Runs `python -c code` with the checkout's packages and the given environment."""
    environment = dict(os.environ, PYTHONPATH=str(REPO / "python"), **env)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment
    )


def test_one_version_number():
    cmake = (REPO / "CMakeLists.txt").read_text()
    project = re.search(r"project\(onnx_light VERSION ([0-9.]+)", cmake).group(1)
    assert onnx_light.__version__ == project
    # pyproject.toml reads the wheel's version from CMakeLists.txt with this regex.
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    version = config["tool"]["scikit-build"]["metadata"]["version"]
    assert version["input"] == "CMakeLists.txt"
    assert re.search(version["regex"], cmake).group("value") == project
    assert "version" in config["project"]["dynamic"]
    assert run_module("version").stdout == f"onnx-light {project}\n"


def test_python_m_onnx_light_runs_a_model(tmp_path):
    r = run_module(
        "run", str(MODEL), "--input", "x=[[-4, -1, 0, 2.5]]", "--save", str(tmp_path / "out")
    )
    assert r.returncode == 0, r.stderr
    assert "output y" in r.stdout and "run    1 time" in r.stdout
    y = np.load(tmp_path / "out" / "y.npy")
    x = np.array([[-4, -1, 0, 2.5]], dtype=np.float64)
    h = np.where(x < 0, 0.2 * x, x)
    np.testing.assert_allclose(y, np.log(h * h + 1), rtol=0, atol=1e-6)  # float32


def test_python_m_onnx_light_errors_and_usage(tmp_path):
    r = run_module()
    assert r.returncode == 2 and r.stderr.startswith("usage: onnx-light")
    r = run_module("frobnicate")
    assert r.returncode == 2 and "unknown command 'frobnicate'" in r.stderr
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"this is not a model")
    r = run_module("run", str(bad))
    assert r.returncode == 1 and "is not an ONNX model" in r.stderr
    # Output of Python and of the tool's C stdio comes out in order.
    code = (
        "import sys; from onnx_light.__main__ import main; print('before', flush=False); "
        "sys.exit(main(['version']))"
    )
    r = python_c(code)
    assert r.stdout == f"before\nonnx-light {onnx_light.__version__}\n"


def test_main_takes_an_argument_list():
    from onnx_light.__main__ import main

    assert main(["dtypes"]) == 0
    with pytest.raises(TypeError):
        main([1, 2])  # type: ignore[list-item]


LIBRARIES = [  # helper, the file in build/lib, what its error calls it
    (
        "plugin_library_path",
        "libonnx_light_ort_bridge_ops_light_called_by_ort.so",
        "ORT plugin library",
    ),
    ("ort_c_api_library_path", "libonnxruntime.so.1", "libonnxruntime.so.1"),
]


@pytest.mark.parametrize("helper, file, what", LIBRARIES, ids=[h for h, _, _ in LIBRARIES])
def test_library_paths(helper, file, what):
    path = Path(getattr(onnx_light_ort, helper)())
    assert path == BUILD / "lib" / file
    assert path.is_file()


@pytest.mark.parametrize("helper, file, what", LIBRARIES, ids=[h for h, _, _ in LIBRARIES])
def test_library_path_missing_is_a_clear_error(tmp_path, helper, file, what):
    # A build directory holding only the extension (for the import), no bridge libraries.
    (tmp_path / "python" / "onnx_light").mkdir(parents=True)
    for so in (BUILD / "python" / "onnx_light").glob("_core*.so"):
        (tmp_path / "python" / "onnx_light" / so.name).symlink_to(so)
    code = f"import onnx_light_ort; onnx_light_ort.{helper}()"
    r = python_c(code, ONNX_LIGHT_BUILD_DIR=str(tmp_path))
    assert r.returncode == 1
    assert f"RuntimeError: onnx-light's {what} is missing" in r.stderr


def test_type_stubs_are_generated_and_match_the_module():
    cache = (BUILD / "CMakeCache.txt").read_text()
    if "ONNX_LIGHT_PYTHON_STUBS:BOOL=OFF" in cache:  # sanitizer and fuzz builds
        pytest.skip(f"{BUILD} is configured without stubs (ONNX_LIGHT_PYTHON_STUBS=OFF)")
    stubs = BUILD / "python" / "stubs" / "_core"
    init = (stubs / "__init__.pyi").read_text()
    onnx = (stubs / "onnx.pyi").read_text()
    ast.parse(init)  # valid Python
    ast.parse(onnx)
    assert "def cli_main(argv: Sequence[str]) -> int:" in init
    assert "class RunOptions:" in init
    assert "class ModelProto(_Message):" in onnx
    assert "def graph(self) -> GraphProto: ..." in onnx
    # Every public function of _core has a stub.
    for name in dir(onnx_light._core):
        if not name.startswith("_") and callable(getattr(onnx_light._core, name)):
            assert re.search(rf"^(def|class) {name}\b", init, re.M), name
    assert (REPO / "python" / "onnx_light" / "py.typed").exists()
    assert (REPO / "python" / "onnx_light_ort" / "py.typed").exists()


def test_ctrl_c_stops_python_m_onnx_light_at_once():
    # A long run (100,000 repeats of PP-OCR's classifier) interrupted after 1.5 s.
    model = REPO / "third_party" / "models" / "ch_ppocr_mobile_v2.0_cls_infer.onnx"
    args = [
        sys.executable,
        "-m",
        "onnx_light",
        "run",
        str(model),
        "--random",
        "--repeat",
        "100000",
        "--dim",
        "p2o.DynamicDimension.0=1",
        "--dim",
        "p2o.DynamicDimension.1=48",
        "--dim",
        "p2o.DynamicDimension.2=192",
    ]
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    p = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(1.5)
        assert p.poll() is None, p.stderr.read()
        start = time.monotonic()
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=10) == -signal.SIGINT
        assert time.monotonic() - start < 5
    finally:
        p.kill()
        p.wait()
