"""ConvTranspose (src/onnx_light/kernels/nn/conv_transpose.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F

import onnx_light
from onnx_light.onnx import helper


@pytest.mark.parametrize(
    "attrs",
    [
        {"strides": [2, 3], "pads": [1, 0, 0, 2], "output_padding": [1, 2], "group": 2},
        {"strides": [2, 2], "dilations": [2, 1], "auto_pad": "SAME_UPPER"},
        {"strides": [3, 2], "output_shape": [12, 9]},
    ],
)
def test_conv_transpose_matches_onnxruntime(attrs):
    import onnxruntime as ort

    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 4, 5, 4)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(3 * attrs.get("group", 1)).astype(np.float32)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, F, None) for n in ("x", "w", "b")],
        [helper.make_tensor_value_info("y", F, None)],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    feeds = {"x": x, "w": w, "b": b}
    (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    (got,) = onnx_light.RuntimeSession(data).run(None, feeds)
    assert got.shape == want.shape
    np.testing.assert_allclose(
        got, want, rtol=1e-5, atol=1e-5
    )  # float32; onnx-light sums in double
