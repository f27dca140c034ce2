"""The wheel's smoke suite: run in a fresh venv outside the checkout, with only the installed
wheel (and numpy, ml_dtypes, onnxruntime) importable. scripts/test_wheel.sh builds the wheel,
makes the venv and the data (make_references.py), and runs

    VENV/bin/python smoke.py DATA_DIR EXAMPLE_PLUGIN.so

Each check prints one line; the first failure raises (exit status 1).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import numpy as np

DATA = Path(sys.argv[1])
EXAMPLE_PLUGIN = Path(sys.argv[2])
SITE = Path(sysconfig.get_paths()["purelib"]).resolve()
# What the wheel's shared objects may take from the system (glibc and the GCC runtimes).
SYSTEM_LIBS = (
    "linux-vdso",
    "libc.so",
    "libm.so",
    "libdl.so",
    "librt.so",
    "libpthread.so",
    "/lib64/ld-linux",
    "ld-linux",
    "libstdc++.so",
    "libgcc_s.so",
)


def check(name: str, ok: bool, detail: str = "") -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
    if not ok:
        raise SystemExit(1)


def default_model_reference(x: np.ndarray) -> np.ndarray:
    """models/default.onnx: y = log(LeakyRelu(x, 0.2)^2 + 1), in float64."""
    h = np.where(x < 0, 0.2 * x.astype(np.float64), x.astype(np.float64))
    return np.log(h * h + 1.0)


def main() -> int:
    for var in ("PYTHONPATH", "ONNX_LIGHT_BUILD_DIR"):
        check(f"${var} is unset", var not in os.environ)

    import onnx_light
    import onnx_light_ort
    from onnx_light import onnx as olx

    where = Path(onnx_light.__file__).resolve()
    check("onnx_light imported from the venv", SITE in where.parents, str(where))
    check(
        "onnx_light._core is the installed one",
        SITE in Path(onnx_light._core.__file__).resolve().parents,
        onnx_light._core.__file__,
    )
    check("version", onnx_light.__version__.count(".") == 2, onnx_light.__version__)
    stubs = where.parent / "_core" / "__init__.pyi"
    check("type stubs shipped", stubs.exists() and (where.parent / "py.typed").exists())

    # ldd: every shared object of the installed package resolves inside the wheel or to the
    # system's glibc / libstdc++ / libgcc_s.
    objects = sorted(
        p
        for d in ("onnx_light", "onnx_light_ort", "onnx_light.libs")
        for p in (SITE / d).rglob("*.so*")
    )
    for so in objects:
        out = subprocess.run(["ldd", str(so)], capture_output=True, text=True, check=True).stdout
        deps = []
        for line in out.splitlines():
            line = line.strip()
            name = line.split()[0]
            inside = str(SITE) in line
            ok = "not found" not in line and (inside or name.startswith(SYSTEM_LIBS))
            if not ok:
                check(f"ldd {so.relative_to(SITE)}", False, line)
            deps.append(name + (" (wheel)" if inside else ""))
        print(f"     ldd {so.relative_to(SITE)}: {', '.join(deps)}")
    check(
        "ldd: only system libraries and the wheel's own",
        len(objects) >= 4,
        f"{len(objects)} objects",
    )

    # Load and save a model.
    with tempfile.TemporaryDirectory() as tmp:
        model = olx.load_model(str(DATA / "default.onnx"))
        saved = Path(tmp) / "copy.onnx"
        olx.save_model(model, str(saved))
        again = olx.load_model(str(saved))
        check(
            "load and save a model",
            again.SerializeToString() == model.SerializeToString()
            and [n.op_type for n in again.graph.node] == ["LeakyRelu", "Mul", "Add", "Log"],
        )

    # A real model against stored reference outputs (ONNX Runtime's, make_references.py),
    # through the drop-in InferenceSession.
    ref = np.load(DATA / "real_reference.npz")
    sess = onnx_light.InferenceSession(
        str(DATA / "real_model.onnx"), providers=["CPUExecutionProvider"]
    )
    (y,) = sess.run(None, {sess.get_inputs()[0].name: ref["x"]})
    err = float(np.max(np.abs(y - ref["y"])))
    check(
        "PP-OCRv4 det vs stored ORT outputs (float32, atol 1e-4)",
        y.shape == ref["y"].shape and err <= 1e-4,
        f"shape {list(y.shape)}, max |diff| {err:.2e}",
    )

    # CustomOpSession: the example ORT plugin through the bundled plugin host.
    check(
        "bridge library in the package",
        SITE in onnx_light_ort.bridge_library_path().resolve().parents,
        str(onnx_light_ort.bridge_library_path()),
    )
    leaky = olx.load_model(str(DATA / "ort_custom_ops_leaky_relu.onnx"))
    with onnx_light_ort.CustomOpSession(EXAMPLE_PLUGIN, leaky) as cs:
        x = np.array([[-2.0, -0.5], [0.0, 3.0], [-7.5, 1.0]], dtype=cs.dtype)
        got = cs.run(x)
    alpha = next(a.f for a in leaky.graph.node[0].attribute if a.name == "alpha")
    want = np.where(x < 0, np.float32(alpha) * x, x)
    check("CustomOpSession with the example plugin", np.array_equal(got, want), str(got.tolist()))

    # onnx-light's kernels as an ORT plugin, under ONNX Runtime.
    import onnxruntime as ort

    plugin = onnx_light_ort.plugin_library_path()
    check("ORT plugin library in the package", SITE in Path(plugin).resolve().parents, plugin)
    so = ort.SessionOptions()
    so.register_custom_ops_library(plugin)
    ort_sess = ort.InferenceSession(
        str(DATA / "default.onnx"), so, providers=["CPUExecutionProvider"]
    )
    x = np.linspace(-4, 4, 12, dtype=np.float32).reshape(3, 4)
    (y,) = ort_sess.run(None, {"x": x})
    err = float(np.max(np.abs(y - default_model_reference(x))))
    check(
        "the plugin under ONNX Runtime (float32, atol 1e-5)", err <= 1e-5, f"max |diff| {err:.2e}"
    )

    # libonnxruntime.so.1: ORT's C API on onnx-light, from the package, through its table
    # (ctypes; the slots found by name): an env, a session of default.onnx, its input count.
    import ctypes

    capi = onnx_light_ort.ort_c_api_library_path()
    lib = ctypes.CDLL(capi)
    lib.OnnxLightOrtApiSlotName.restype = ctypes.c_char_p
    slot = {
        lib.OnnxLightOrtApiSlotName(i).decode(): i for i in range(lib.OnnxLightOrtApiSlotCount())
    }
    lib.OrtGetApiBase.restype = ctypes.POINTER(ctypes.c_void_p * 2)
    base = lib.OrtGetApiBase().contents
    version = ctypes.CFUNCTYPE(ctypes.c_char_p)(base[1])().decode()
    table = ctypes.cast(
        ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint32)(base[0])(29),
        ctypes.POINTER(ctypes.c_void_p),
    )
    P = ctypes.c_void_p

    def fn(name, *args):
        return ctypes.CFUNCTYPE(P, *args)(table[slot[name]])

    env, so, session, count = P(), P(), P(), ctypes.c_size_t()
    ok = (
        fn("CreateEnv", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(P))(
            2, b"smoke", ctypes.byref(env)
        )
        is None
    )
    ok = ok and fn("CreateSessionOptions", ctypes.POINTER(P))(ctypes.byref(so)) is None
    ok = (
        ok
        and fn("CreateSession", P, ctypes.c_char_p, P, ctypes.POINTER(P))(
            env, str(DATA / "default.onnx").encode(), so, ctypes.byref(session)
        )
        is None
    )
    ok = (
        ok
        and fn("SessionGetInputCount", P, ctypes.POINTER(ctypes.c_size_t))(
            session, ctypes.byref(count)
        )
        is None
    )
    for name, handle in [
        ("ReleaseSession", session),
        ("ReleaseSessionOptions", so),
        ("ReleaseEnv", env),
    ]:
        fn(name, P)(handle)
    check(
        "libonnxruntime.so.1 in the package: OrtGetApiBase, a session through the table",
        SITE in Path(capi).resolve().parents and version == "1.29.0" and ok and count.value == 1,
        f"{capi}, version {version}, inputs {count.value}",
    )

    # Batch inference from the wheel, where no engine is installed: a pickled predictor in a
    # process pool, against the formula; onnx_light.batch imports no engine.
    import multiprocessing

    from onnx_light.batch import BatchPredictor

    predictor = BatchPredictor(str(DATA / "default.onnx"))
    x = np.linspace(-4, 4, 400, dtype=np.float32).reshape(100, 4)
    with multiprocessing.get_context("fork").Pool(2) as workers:
        parts = workers.map(predictor.predict, [{"x": c} for c in np.array_split(x, 4)])
    err = float(
        np.max(np.abs(np.concatenate([p["y"] for p in parts]) - default_model_reference(x)))
    )
    engines = [m for m in ("pandas", "pyarrow", "ray", "pyspark") if m in sys.modules]
    check(
        "onnx_light.batch in a process pool (float32, atol 1e-5), no engine imported",
        err <= 1e-5 and not engines,
        f"max |diff| {err:.2e}, engines imported: {engines}",
    )

    # The tool: python -m onnx_light and the onnx-light console script.
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "onnx_light",
                "run",
                str(DATA / "default.onnx"),
                "--input",
                "x=[[-4, -1, 0, 2]]",
                "--save",
                str(Path(tmp) / "out"),
            ],
            capture_output=True,
            text=True,
        )
        check(
            "python -m onnx_light run",
            run.returncode == 0 and "output y" in run.stdout,
            next((ln for ln in run.stdout.splitlines() if ln.startswith("output")), run.stderr),
        )
        saved_y = np.load(Path(tmp) / "out" / "y.npy")
        err = float(
            np.max(
                np.abs(
                    saved_y - default_model_reference(np.array([[-4, -1, 0, 2]], dtype=np.float32))
                )
            )
        )
        check("python -m onnx_light run --save writes y", err <= 1e-5, f"max |diff| {err:.2e}")
    script = Path(sys.executable).parent / "onnx-light"
    ver = subprocess.run([str(script), "version"], capture_output=True, text=True)
    check(
        "onnx-light console script",
        ver.returncode == 0 and ver.stdout.strip() == f"onnx-light {onnx_light.__version__}",
        ver.stdout.strip(),
    )
    bad = subprocess.run(
        [sys.executable, "-m", "onnx_light", "run", str(DATA / "nope.onnx")],
        capture_output=True,
        text=True,
    )
    check(
        "python -m onnx_light reports errors",
        bad.returncode == 1 and "nope.onnx" in bad.stderr,
        bad.stderr.strip().splitlines()[0] if bad.stderr else "",
    )
    print("smoke: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
