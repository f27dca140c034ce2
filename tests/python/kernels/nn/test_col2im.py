"""Col2Im (src/onnx_light/kernels/nn/col2im.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, light_and_ort, node_bytes

import onnx_light


def model(op, inputs, out_type, opset, **attrs):
    return node_bytes(op, inputs, [("y", out_type)], opset, **attrs)


both = light_and_ort


@pytest.mark.parametrize(
    "attrs", [{}, {"strides": [2, 1], "pads": [1, 0, 1, 1], "dilations": [1, 2]}]
)
def test_col2im_matches_onnxruntime(attrs):
    image, block = [6, 7], [2, 3]
    k = 2 * 3
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    p = attrs.get("pads", [0, 0, 0, 0])
    bh = (image[0] + p[0] + p[2] - dh * (block[0] - 1) - 1) // sh + 1
    bw = (image[1] + p[1] + p[3] - dw * (block[1] - 1) - 1) // sw + 1
    x = np.random.default_rng(29).standard_normal((2, 3 * k, bh * bw)).astype(np.float32)
    data = model("Col2Im", [("x", F), ("i", I), ("b", I)], F, 18, **attrs)
    feeds = {"x": x, "i": np.array(image), "b": np.array(block)}
    got, want = both(data, feeds)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="does not hold"):
        onnx_light.RuntimeSession(data).run(None, feeds | {"x": x[:, :, :-1].copy()})
