"""The independent example plugin (examples/custom_ops/ort_custom_ops.cc) under real ONNX
Runtime: it is an honest ORT plugin, and both runtimes agree on it bit for bit. This module
imports onnxruntime (the oracle); the bridge's own suite never does."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from onnx_light.onnx import TensorProto, helper
from onnx_light_ort import CustomOpSession

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build"))
PLUGIN = BUILD / "lib" / "libort_custom_ops.so"


def model(alpha=None):
    attrs = {} if alpha is None else {"alpha": alpha}
    node = helper.make_node("LeakyRelu", ["x"], ["y"], domain="ort_custom_ops", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("ort_custom_ops", 1)], ir_version=9
    )


def ort_session(m):
    if not PLUGIN.exists():
        pytest.fail(f"{PLUGIN} is missing: build with scripts/build.sh")
    so = ort.SessionOptions()
    so.register_custom_ops_library(str(PLUGIN))
    so.intra_op_num_threads = 1
    return ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("alpha", [None, 0.2])
def test_real_ort_and_the_host_agree(alpha):
    m = model(alpha)
    ref = ort_session(m)
    rng = np.random.default_rng(1)
    with CustomOpSession(PLUGIN, m) as host:
        for shape in [(7,), (3, 5), (), (0,), (2, 0, 3), (1, 1000)]:
            x = np.asarray(rng.standard_normal(shape) * 3, dtype=np.float32)
            a = ref.run(None, {"x": x})[0]
            b = host.run(x)
            expected = np.where(x < 0, x * np.float32(0.01 if alpha is None else alpha), x)
            np.testing.assert_array_equal(a, expected.astype(np.float32))
            np.testing.assert_array_equal(b, a)
            assert b.shape == a.shape
