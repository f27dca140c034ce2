"""``onnxruntime.transformers`` through the drop-in, side by side with ONNX Runtime's own
(1.32, in the genai test venv, which has torch): TypeHelper's type maps for every element
type and some that are none (numpy, torch, ONNX; ValueError where ORT raises one), and
FusionOptions' defaults per model type and its command-line parsing. Also what programs
check before they import it: ``importlib.util.find_spec``, ``importlib.metadata``, the
modules' ``__spec__``/``__file__``, ``InferenceSession._model_path``, and the optimizer that
is not provided (a clear error, never a failed import)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE / "genai"))

from _genai import make_folders, oracle_python  # noqa: E402


@pytest.fixture(scope="module")
def answers():
    folders, err = make_folders()  # the genai test venv (cached): torch and real ORT
    assert folders is not None, f"scripts/genai_folders.sh failed:\n{err}"
    probe = str(HERE / "_ort_transformers_probe.py")
    runs = {}
    for mode in ("real", "light"):
        done = subprocess.run(
            [oracle_python(), probe, mode, str(REPO)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-3000:]
        runs[mode] = json.loads(done.stdout)
    return runs


def test_type_helper_and_fusion_options_answer_as_ort(answers):
    real, light = answers["real"], answers["light"]
    assert set(light) == set(real)
    differ = {k: (light[k], real[k]) for k in real if light[k] != real[k]}
    assert differ == {}
    assert len(real) > 100


def run_installed(code: str) -> subprocess.CompletedProcess:
    prelude = (
        f"import sys; sys.path.insert(0, {str(REPO / 'python')!r})\n"
        "import onnx_light.ort_compat as c; c.install()\n"
    )
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True)


def test_the_modules_are_real_to_the_import_system():
    done = run_installed(
        "import importlib.util, importlib.metadata\n"
        "import onnxruntime, onnxruntime.capi.onnxruntime_pybind11_state as st\n"
        "from onnxruntime.transformers import io_binding_helper\n"
        "for m in (onnxruntime, st, io_binding_helper):\n"
        "    spec = importlib.util.find_spec(m.__name__)\n"
        "    assert spec is m.__spec__ and spec.name == m.__name__, m\n"
        "    assert m.__file__.endswith('.py') and 'onnx_light' in m.__file__, m.__file__\n"
        "assert importlib.util.find_spec('onnxruntime').submodule_search_locations == []\n"
        "d = importlib.metadata.distribution('onnxruntime')\n"
        "assert d.version == onnxruntime.__version__, d.version\n"
        "assert 'onnx-light' in d.metadata['Summary'], d.metadata['Summary']\n"
        "assert importlib.metadata.version('onnxruntime') == onnxruntime.__version__\n"
        "print('ok')\n"
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_model_path_and_bytes_as_ort_keeps_them():
    model = REPO / "models" / "default.onnx"
    done = run_installed(
        "import onnxruntime, pathlib\n"
        f"s = onnxruntime.InferenceSession(pathlib.Path({str(model)!r}))\n"
        f"assert s._model_path == {str(model)!r}, s._model_path\n"
        f"b = open({str(model)!r}, 'rb').read()\n"
        "t = onnxruntime.InferenceSession(b)\n"
        "assert t._model_path is None and t._model_bytes == b\n"
        "print('ok')\n"
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_the_optimizer_imports_and_says_it_is_not_provided():
    done = run_installed(
        "from onnxruntime.transformers.optimizer import optimize_model\n"
        "from onnxruntime.transformers.onnx_model_bert import BertOnnxModel\n"
        "import onnxruntime\n"
        "for call in (lambda: optimize_model('m.onnx'), lambda: BertOnnxModel(None)):\n"
        "    try:\n"
        "        call()\n"
        "    except onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented as e:\n"
        "        assert 'optimizer' in str(e) and 'not supported by onnx-light' in str(e)\n"
        "    else:\n"
        "        raise AssertionError('no error')\n"
        "print('ok')\n"
    )
    assert done.stdout.strip() == "ok", done.stderr
