"""onnx-light's ORT plugin (the outgoing bridge) under real ONNX Runtime: the shared case
table of bridge_cases.py through onnxruntime.InferenceSession with
SessionOptions.register_custom_ops_library. bfloat16 goes through an IO binding (ORT's
Python API takes no ml_dtypes arrays)."""

from __future__ import annotations

import bridge_cases as bc
import ml_dtypes
import numpy as np
import onnxruntime as ort
import pytest

from onnx_light.onnx import TensorProto


def ort_runner(model):
    if not bc.PLUGIN.exists():
        pytest.fail(f"{bc.PLUGIN} is missing: build with scripts/build.sh")
    so = ort.SessionOptions()
    so.register_custom_ops_library(str(bc.PLUGIN))
    so.intra_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), so, providers=["CPUExecutionProvider"]
    )
    elem = model.graph.input[0].type.tensor_type.elem_type

    def run(x):
        if elem != TensorProto.BFLOAT16 or x.dtype != ml_dtypes.bfloat16:
            return session.run(None, {"x": x})[0]
        x = np.array(x, copy=True, order="C")  # (ascontiguousarray would make 0-d 1-d)
        out = np.empty(x.shape, np.uint16)
        binding = session.io_binding()
        binding.bind_ortvalue_input(
            "x", ort.OrtValue.ortvalue_from_numpy_with_onnx_type(x.view(np.uint16), elem)
        )
        binding.bind_ortvalue_output(
            "y", ort.OrtValue.ortvalue_from_numpy_with_onnx_type(out, elem)
        )
        session.run_with_iobinding(binding)
        return out.view(ml_dtypes.bfloat16)

    return run, lambda: None


def test_case_table_under_real_ort(record_property):
    errors = {}
    bc.run_table(ort_runner, errors)
    for (op, t), e in sorted(errors.items()):
        record_property(f"{op}/{t}", e)
        print(f"real ORT: {op} {t}: largest error {e:.3f} ULP")


def test_recovery_after_type_and_rank_errors_under_real_ort():
    bc.run_recovery(ort_runner, type_error=(Exception,), rank_error=(Exception,))


def test_default_alpha_under_real_ort():
    bc.default_alpha_case(ort_runner)


def test_wrong_alpha_type_fails_kernel_creation_with_a_status():
    m = bc.wrong_alpha_model()
    with pytest.raises(Exception, match="attribute 'alpha' must be a float"):
        run, _ = ort_runner(m)
        run(np.ones(2, np.float32))
