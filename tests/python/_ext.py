"""Shared by the onnxruntime-extensions suite (tests/python/extensions/, helpers in tests/python/_ext*.py): where the
library is, one-node models of its ops, and running a model under ONNX Runtime with the
library registered (the oracle) and under onnx-light with the same library registered
(the code under test). onnx-light never imports onnxruntime or onnxruntime_extensions;
these tests use them as the oracle only (the library's path is found without importing
the package)."""

from __future__ import annotations

import glob
import importlib.util
import os

import numpy as np

import onnx_light
from onnx_light.onnx import TensorProto, helper

CONTRIB = "ai.onnx.contrib"
EXTENSIONS = "com.microsoft.extensions"

_NP_TO_ONNX = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.bool_): TensorProto.BOOL,
    np.dtype(object): TensorProto.STRING,
}


def library_path() -> str:
    """onnxruntime-extensions' custom-op library (its _extensions_pydll module, which
    exports RegisterCustomOps), found without importing the package."""
    spec = importlib.util.find_spec("onnxruntime_extensions")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "onnxruntime-extensions is missing from the test venv: run scripts/setup.sh "
            "(requirements/oracles.txt pins it)"
        )
    found = glob.glob(os.path.join(spec.submodule_search_locations[0], "_extensions_pydll*.so"))
    if not found:
        raise RuntimeError("onnxruntime-extensions has no _extensions_pydll library")
    return found[0]


def elem(value: np.ndarray) -> int:
    a = np.asarray(value)
    if a.dtype.kind == "U":
        return TensorProto.STRING
    return _NP_TO_ONNX[a.dtype]


def one_node(op, feeds, outputs, domain=CONTRIB, output_types=None, opset=17, **attrs):
    """A model of one `op` node reading `feeds` (name -> array; a name mapped to None is
    an absent optional input) and writing `outputs` (names; "" leaves one out)."""
    names = list(feeds)
    node = helper.make_node(op, names, list(outputs), domain=domain, **attrs)
    ins = [
        helper.make_tensor_value_info(n, elem(v), None) for n, v in feeds.items() if v is not None
    ]
    types = output_types or [None] * len(outputs)
    outs = [
        (
            helper.make_tensor_value_info(n, t, None)
            if t is not None
            else helper.make_empty_tensor_value_info(n)
        )
        for n, t in zip(outputs, types)
        if n
    ]
    graph = helper.make_graph([node], "g", ins, outs)
    imports = [helper.make_opsetid("", opset), helper.make_opsetid(domain, 1)]
    return helper.make_model(graph, opset_imports=imports)


class Oracle:
    """ONNX Runtime + extensions in a worker process (_ext_oracle_worker.py): the library
    cannot be hosted by ORT and onnx-light in one process."""

    def __init__(self, env=None):
        import subprocess
        import sys

        worker = os.path.join(os.path.dirname(__file__), "_ext_oracle_worker.py")
        self._proc = subprocess.Popen(
            [sys.executable, worker],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )

    def _ask(self, request):
        import pickle
        import struct

        data = pickle.dumps(request)
        self._proc.stdin.write(struct.pack("<Q", len(data)) + data)
        self._proc.stdin.flush()
        head = self._proc.stdout.read(8)
        if len(head) < 8:
            raise RuntimeError(f"the ORT oracle process died (exit {self._proc.wait()})")
        (size,) = struct.unpack("<Q", head)
        reply = pickle.loads(self._proc.stdout.read(size))
        if "error" in reply:
            raise RuntimeError(f"ONNX Runtime + extensions: {reply['error']}")
        return reply["outputs"]

    def run(self, model, feeds, library=None):
        feeds = {k: v for k, v in feeds.items() if v is not None}
        model = model if isinstance(model, bytes) else model.SerializeToString()
        return self._ask({"model": model, "feeds": feeds, "library": library or library_path()})

    def trace_counts(self, tracer):
        return self._ask({"counts": tracer})

    def close(self):
        self._proc.stdin.close()
        self._proc.wait(timeout=30)


def light_run(model, feeds, library=None, threads=1):
    so = onnx_light.SessionOptions()
    so.register_custom_ops_library(library or library_path())
    so.intra_op_num_threads = threads
    session = onnx_light.InferenceSession(model.SerializeToString(), so)
    return session.run(None, {k: v for k, v in feeds.items() if v is not None})


def assert_same(got, want, rtol=1e-6, atol=1e-6):
    """Outputs equal: strings, integers and booleans exactly; floats within rtol/atol."""
    assert len(got) == len(want), (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (i, g.shape, w.shape)
        if w.dtype.kind in "fc":
            assert g.dtype == w.dtype, (i, g.dtype, w.dtype)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"output {i}")
        elif w.dtype == object or w.dtype.kind in "US":
            assert g.dtype == object, (i, g.dtype)
            assert g.tolist() == w.tolist(), (i, g.tolist(), w.tolist())
        else:
            assert g.dtype == w.dtype, (i, g.dtype, w.dtype)
            np.testing.assert_array_equal(g, w, err_msg=f"output {i}")
