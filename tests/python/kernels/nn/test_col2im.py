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


def reference(x, image, block, strides, pads, dilations):
    """Col2Im by its definition, in double: every block value added at its image position."""
    n, ck, _ = x.shape
    k = int(np.prod(block))
    out = [
        (image[i] + pads[i] + pads[i + 2] - dilations[i] * (block[i] - 1) - 1) // strides[i] + 1
        for i in range(2)
    ]
    y = np.zeros((n, ck // k, *image))
    for c in range(ck // k):
        for kh in range(block[0]):
            for kw in range(block[1]):
                row = x[:, c * k + kh * block[1] + kw].astype(np.float64)
                for oh in range(out[0]):
                    ih = oh * strides[0] - pads[0] + kh * dilations[0]
                    for ow in range(out[1]):
                        iw = ow * strides[1] - pads[1] + kw * dilations[1]
                        if 0 <= ih < image[0] and 0 <= iw < image[1]:
                            y[:, c, ih, iw] += row[:, oh * out[1] + ow]
    return y


CASES = [
    ([6, 7], [2, 3], {}),
    ([6, 7], [2, 3], {"strides": [2, 1], "pads": [1, 0, 1, 1], "dilations": [1, 2]}),
    # column strides (no unit run), dilation, pads wider than a tap reaches
    ([9, 11], [3, 3], {"strides": [1, 2], "pads": [2, 3, 2, 3], "dilations": [2, 1]}),
    ([5, 12], [2, 4], {"strides": [3, 3], "pads": [0, 2, 1, 1]}),
    # one image column and a stride past it: some taps land nowhere
    ([3, 1], [1, 1], {"strides": [1, 3], "pads": [0, 1, 0, 1]}),
    ([56, 56], [3, 3], {"pads": [1, 1, 1, 1]}),  # the bench row's geometry
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("image,block,attrs", CASES)
def test_col2im_float_planes_match_the_definition(image, block, attrs, threads):
    # 2-D float planes are summed in float, tap by tap (ONNX Runtime's order): within
    # float rounding of the double definition.
    strides = attrs.get("strides", [1, 1])
    dilations = attrs.get("dilations", [1, 1])
    pads = attrs.get("pads", [0, 0, 0, 0])
    k = int(np.prod(block))
    out = [
        (image[i] + pads[i] + pads[i + 2] - dilations[i] * (block[i] - 1) - 1) // strides[i] + 1
        for i in range(2)
    ]
    x = np.random.default_rng(3).standard_normal((2, 3 * k, out[0] * out[1])).astype(np.float32)
    data = model("Col2Im", [("x", F), ("i", I), ("b", I)], F, 18, **attrs)
    feeds = {"x": x, "i": np.array(image), "b": np.array(block)}
    (got,) = onnx_light.RuntimeSession(data, intra_op_threads=threads).run(None, feeds)
    want = reference(x, image, block, strides, pads, dilations)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * k)


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
