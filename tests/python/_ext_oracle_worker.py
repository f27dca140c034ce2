"""The oracle of the onnxruntime-extensions suite, in a process of its own: ONNX Runtime
with the extensions library registered. It must not share a process with onnx-light's
hosting of the same library: the library keeps the OrtApi table of the last host that
registered it in process-wide (GNU unique) symbols, so the other host's kernels would call
the wrong table (docs/custom_ops_ort_called_by_light.md).

Protocol on stdin/stdout: each request and reply is an 8-byte little-endian length and a
pickle. Request {"model": bytes, "feeds": dict, "library": path}; reply {"outputs": list}
or {"error": str}. Request {"counts": path}: the tracer's call counts, as a list."""

from __future__ import annotations

import ctypes
import pickle
import struct
import sys


def _read(stream):
    head = stream.read(8)
    if len(head) < 8:
        return None
    (size,) = struct.unpack("<Q", head)
    return pickle.loads(stream.read(size))


def _write(stream, obj) -> None:
    data = pickle.dumps(obj)
    stream.write(struct.pack("<Q", len(data)))
    stream.write(data)
    stream.flush()


def main() -> None:
    import onnxruntime as ort

    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sessions = {}
    while True:
        request = _read(inp)
        if request is None:
            return
        try:
            if "counts" in request:
                lib = ctypes.CDLL(request["counts"])
                counts = (ctypes.c_uint64 * 512)()
                n = lib.OnnxLightTraceCounts(counts, 512)
                _write(out, {"outputs": list(counts[:n])})
                continue
            key = (request["model"], request["library"])
            if key not in sessions:
                so = ort.SessionOptions()
                so.register_custom_ops_library(request["library"])
                so.intra_op_num_threads = 1
                sessions[key] = ort.InferenceSession(
                    request["model"], so, providers=["CPUExecutionProvider"]
                )
            result = sessions[key].run(None, request["feeds"])
            _write(out, {"outputs": result})
        except Exception as e:  # reported to the test, which fails with it
            _write(out, {"error": f"{type(e).__name__}: {e}"})


if __name__ == "__main__":
    main()
