"""The genai suite's helpers (bench/genai_vs_ort.py uses them too): the model-builder
folders, where the oracle's Python is, and onnxruntime-genai's generations for a folder
(tests/python/genai/oracle_generate.py run in the test-only genai venv that
scripts/genai_folders.sh makes)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
ARCHS = ["llama", "qwen2", "qwen3", "phi3", "mistral", "gemma", "gemma2"]


def make_folders(bench: bool = False) -> tuple[Path | None, str]:
    """scripts/genai_folders.sh [--bench]: (the folders' parent, "") or (None, its stderr)."""
    cmd = [str(REPO / "scripts" / "genai_folders.sh")] + (["--bench"] if bench else [])
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return None, done.stderr[-3000:]
    return Path(done.stdout.strip().splitlines()[-1]), ""


def oracle_python() -> str:
    cache = os.environ.get("ONNX_LIGHT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "onnx-light"
    )
    return os.path.join(cache, "genai-venv", "bin", "python")


_ORACLE: dict = {}


def oracle(folder: Path, requests: list[dict]) -> list[dict]:
    """onnxruntime-genai's generations for `requests` on `folder` (oracle_generate.py)."""
    key = (str(folder), json.dumps(requests, sort_keys=True))
    if key not in _ORACLE:
        done = subprocess.run(
            [oracle_python(), str(HERE / "oracle_generate.py"), str(folder), json.dumps(requests)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"onnxruntime-genai failed on {folder}:\n{done.stderr[-3000:]}"
        _ORACLE[key] = json.loads(done.stdout)
    return _ORACLE[key]
