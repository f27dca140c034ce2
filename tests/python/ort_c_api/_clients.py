"""Runs an ORT C API client program twice, on onnx-light's libonnxruntime.so.1 and on real
ORT's, and compares what the two runs print (one fact per line: names, types, shapes,
error codes exactly; numbers within a tolerance)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build")).resolve()
LIGHT_LIB_DIR = BUILD / "lib"
# Real ORT 1.29.0 (the pinned npm package's Linux x64 build, scripts/setup.sh): the oracle.
ORT_LIB = REPO / "third_party" / "ort-lib" / "libonnxruntime.so"

_NUMBER = re.compile(r"^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$|^-?(inf|nan)$", re.I)


def real_ort_dir(tmp: Path) -> Path:
    """A folder where real ORT answers to its SONAME (libonnxruntime.so.1)."""
    if not ORT_LIB.exists():
        raise RuntimeError(f"{ORT_LIB} is missing: run scripts/setup.sh (it fetches real ORT)")
    folder = tmp / "real-ort"
    folder.mkdir(exist_ok=True)
    link = folder / "libonnxruntime.so.1"
    if not link.exists():
        link.symlink_to(ORT_LIB)
    return folder


def run_client(
    cmd: list[str], lib_dir: Path, cwd: Path | None = None, env: dict | None = None
) -> list[str]:
    full_env = dict(os.environ, **(env or {}))
    full_env["LD_LIBRARY_PATH"] = str(lib_dir)
    done = subprocess.run(cmd, capture_output=True, text=True, env=full_env, cwd=cwd, timeout=600)
    assert (
        done.returncode == 0
    ), f"{cmd} on {lib_dir} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout.splitlines()


def same_line(a: str, b: str, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    ta, tb = a.split(), b.split()
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if x == y:
            continue
        if _NUMBER.match(x) and _NUMBER.match(y):
            fx, fy = float(x), float(y)
            if abs(fx - fy) <= atol + rtol * abs(fy):
                continue
        return False
    return True


def compare(light: list[str], ort: list[str], skip_prefixes: tuple[str, ...] = ()) -> None:
    keep = lambda lines: [l for l in lines if not l.startswith(skip_prefixes)]  # noqa: E731
    light, ort = keep(light), keep(ort)
    for i, (a, b) in enumerate(zip(light, ort)):
        assert same_line(a, b), f"line {i} differs:\n  onnx-light: {a}\n  ORT:        {b}"
    assert len(light) == len(ort), f"onnx-light printed {len(light)} lines, ORT {len(ort)}"


def loaded_library(lines: list[str]) -> str:
    """The library a client reported it loaded (its "library PATH" line)."""
    return next(line for line in lines if line.startswith("library "))


def ort_clients(kind: str) -> str:
    """scripts/ort_clients.sh KIND's answer (the installed binding's folder, jar or binary)."""
    done = subprocess.run(
        [str(REPO / "scripts" / "ort_clients.sh"), kind], capture_output=True, text=True
    )
    assert done.returncode == 0, f"scripts/ort_clients.sh {kind} failed:\n{done.stderr}"
    return done.stdout.strip()


def light_commands(models: Path, out: Path) -> list[tuple[list[str], dict]]:
    """Every client program, as run on onnx-light's library: (command, extra environment)."""
    lib = LIGHT_LIB_DIR / "libonnxruntime.so.1"
    cxx = str(BUILD / "bin" / "ort_cxx_client")
    node_modules = f"{ort_clients('node')}/node_modules"
    jar = ort_clients("java")
    return [
        ([cxx, str(models), str(BUILD / "lib" / "libort_custom_ops.so"), str(out)], {}),
        ([cxx, str(models), "--global-pools"], {}),
        (
            ["node", str(REPO / "tests/ort_c_api/node_client.js"), str(models)],
            {"NODE_PATH": node_modules},
        ),
        (
            [
                "java",
                f"-Donnxruntime.native.onnxruntime.path={lib}",
                "-cp",
                jar,
                str(REPO / "tests/ort_c_api/JavaClient.java"),
                str(models),
            ],
            {},
        ),
        ([ort_clients("rust"), str(lib), str(models)], {}),
    ]
