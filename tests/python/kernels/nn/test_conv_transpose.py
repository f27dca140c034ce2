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


def reference(x, w, b, strides, pads_begin, dilations, out, group):
    """ConvTranspose by its definition, in double: x[n, c, p] * w[c, m, t] added at
    p * stride + t * dilation - pad_begin, for every spatial rank."""
    nd = x.ndim - 2
    cg, mg = x.shape[1] // group, w.shape[1]
    y = np.zeros((x.shape[0], mg * group, *out))
    y += np.asarray(b, np.float64).reshape((1, -1) + (1,) * nd)
    for c in range(x.shape[1]):
        g = c // cg
        for p in np.ndindex(*x.shape[2:]):
            for t in np.ndindex(*w.shape[2:]):
                o = [p[i] * strides[i] + t[i] * dilations[i] - pads_begin[i] for i in range(nd)]
                if all(0 <= o[i] < out[i] for i in range(nd)):
                    idx = (slice(None), slice(g * mg, (g + 1) * mg)) + tuple(o)
                    y[idx] += x[(slice(None), c) + p][:, None] * w[(c, slice(None)) + t]
    return y


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "xs,ks,attrs,pads_begin,out",
    [
        # 2-D: the columns added row by row (stride 1 as vectors, other strides one by one)
        ((1, 6, 9, 9), (4, 4), {"strides": [2, 2], "pads": [1, 1, 1, 1]}, [1, 1], [18, 18]),
        ((2, 4, 5, 7), (3, 3), {"pads": [1, 2, 0, 1]}, [1, 2], [6, 6]),
        ((1, 4, 6, 5), (3, 2), {"strides": [1, 3], "dilations": [2, 1]}, [0, 0], [10, 14]),
        # SAME_UPPER with output_shape larger than the full result: a negative begin pad
        (
            (1, 2, 4, 4),
            (3, 3),
            {"strides": [2, 2], "output_shape": [10, 10], "auto_pad": "SAME_UPPER"},
            [-1, -1],
            [10, 10],
        ),
        ((1, 4, 5, 5), (3, 3), {"strides": [2, 2], "group": 2}, [0, 0], [11, 11]),
        # 1-D and 3-D: through the table of targets
        ((2, 3, 11), (4,), {"strides": [2], "pads": [1, 1]}, [1], [22]),
        ((1, 2, 3, 4, 3), (2, 3, 2), {"strides": [2, 1, 2]}, [0, 0, 0], [6, 6, 6]),
    ],
)
def test_conv_transpose_matches_the_definition(xs, ks, attrs, pads_begin, out, threads):
    rng = np.random.default_rng(len(xs) + sum(ks))
    group = attrs.get("group", 1)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal((xs[1], 3) + ks).astype(np.float32)
    b = rng.standard_normal(3 * group).astype(np.float32)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], kernel_shape=list(ks), **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, F, None) for n in ("x", "w", "b")],
        [helper.make_tensor_value_info("y", F, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    feeds = {"x": x, "w": w, "b": b}
    (got,) = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, feeds)
    strides = attrs.get("strides", [1] * len(ks))
    dilations = attrs.get("dilations", [1] * len(ks))
    want = reference(x, w, b, strides, pads_begin, dilations, out, group)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
