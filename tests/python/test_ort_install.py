"""Running a program written for ONNX Runtime unmodified (issue 30, docs/ort_drop_in.md):
``onnx_light.ort_compat.install()`` and ``python -m onnx_light.ort_compat SCRIPT | -m MODULE``.
Each case runs in a new process (install() changes sys.modules)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# A program written for ORT: it reaches into onnxruntime.capi as nudenet does, catches ORT's
# exception classes, reports its argv and exits with a status of its own.
PROGRAM = textwrap.dedent("""
    import sys
    import numpy as np
    import onnxruntime as ort
    from onnxruntime.capi import _pybind_state as C
    from onnxruntime.capi.onnxruntime_pybind11_state import InvalidProtobuf
    from onnxruntime.capi.onnxruntime_inference_collection import InferenceSession

    assert InferenceSession is ort.InferenceSession
    print("version", ort.__version__, ort.get_version_string(), ort.get_device())
    print("providers", C.get_available_providers())
    print("argv", sys.argv[1:], "path0", sys.path[0])
    try:
        ort.InferenceSession(b"junk")
    except InvalidProtobuf as e:
        print("caught", type(e).__name__)
    try:
        import onnxruntime.quantization
    except ModuleNotFoundError as e:
        print("refused", e.name)
    sys.exit(3)
    """)


def python(*args, cwd=None, **env):
    environ = dict(os.environ, PYTHONPATH=str(REPO / "python"), **env)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=environ, timeout=120
    )


def test_a_script_runs_unmodified_with_its_argv_path_and_exit_status(tmp_path):
    script = tmp_path / "app.py"
    script.write_text(PROGRAM)
    r = python("-m", "onnx_light.ort_compat", str(script), "a", "--b")
    assert r.returncode == 3, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "version 1.30.0 1.30.0 CPU"
    assert lines[1] == "providers ['CPUExecutionProvider']"
    assert lines[2] == f"argv ['a', '--b'] path0 {tmp_path}"
    assert lines[3] == "caught InvalidProtobuf"
    assert lines[4] == "refused onnxruntime.quantization"


def test_a_module_runs_with_dash_m(tmp_path):
    (tmp_path / "ortapp.py").write_text(PROGRAM)
    r = python("-m", "onnx_light.ort_compat", "-m", "ortapp", "x", cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert "argv ['x']" in r.stdout and "caught InvalidProtobuf" in r.stdout


def test_usage_errors_exit_2_with_a_message(tmp_path):
    r = python("-m", "onnx_light.ort_compat")
    assert r.returncode == 2 and "usage: python -m onnx_light.ort_compat" in r.stderr
    r = python("-m", "onnx_light.ort_compat", str(tmp_path / "missing.py"))
    assert r.returncode == 2 and "no such script" in r.stderr
    r = python("-m", "onnx_light.ort_compat", "-m")
    assert r.returncode == 2 and "-m needs a module name" in r.stderr
    r = python("-m", "onnx_light.ort_compat", "--help")
    assert r.returncode == 0 and "usage:" in r.stdout


def test_install_is_idempotent_and_uninstall_restores_the_real_package():
    code = textwrap.dedent("""
        import sys
        import onnx_light.ort_compat as compat
        compat.install(); compat.install()
        import onnxruntime
        assert compat.installed() and onnxruntime.__onnx_light__
        assert onnxruntime.InferenceSession is compat.InferenceSession
        compat.uninstall()
        assert not compat.installed() and "onnxruntime" not in sys.modules
        import onnxruntime  # the real one, in the test venv
        assert not getattr(onnxruntime, "__onnx_light__", False)
        try:
            compat.install()
        except RuntimeError as e:
            print("refused:", e)
        """)
    r = python("-c", code)
    assert r.returncode == 0, r.stderr
    assert "refused: onnxruntime was imported before onnx_light.ort_compat.install()" in r.stdout


def test_an_error_in_the_program_is_its_traceback_and_status(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("import onnxruntime\nraise KeyError('boom')\n")
    r = python("-m", "onnx_light.ort_compat", str(script))
    assert r.returncode == 1 and "KeyError: 'boom'" in r.stderr
