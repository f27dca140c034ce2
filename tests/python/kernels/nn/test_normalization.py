"""BatchNormalization, GroupNormalization, InstanceNormalization, LRN, LayerNormalization, LpNormalization, MeanVarianceNormalization, RMSNormalization (src/onnx_light/kernels/nn/normalization.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, run_one
from _one_node import check_bad_input, f32


def test_mean_variance_normalization_custom_axes():
    x = np.random.default_rng(13).standard_normal((2, 3, 4)).astype(np.float32)
    (y,) = run_one("MeanVarianceNormalization", [("x", F)], {"x": x}, opset=13, axes=[0, 2])
    xd = x.astype(np.float64)
    mean = xd.mean(axis=(0, 2), keepdims=True)
    want = (xd - mean) / (np.sqrt(((xd - mean) ** 2).mean(axis=(0, 2), keepdims=True)) + 1e-9)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "shape,axes",
    [
        ((1, 64, 56, 56), None),  # the default N, H, W: per channel
        ((3, 5, 7, 9), None),  # N > 1: a channel's planes in every sample
        ((2, 4, 6, 6), [2, 3]),
        ((2, 4, 6, 6), [1, 2, 3]),
        ((2, 4, 32), [0, 2]),
        ((4, 40), [0]),  # the last axis kept: the general path
        ((2, 3, 4, 5), [0, 1]),
    ],
)
def test_mean_variance_normalization_layouts(shape, axes):
    # float32 segments (SIMD double sums, then a float subtract and divide) and the
    # general path against the formula in float64 (rtol 1e-5: the mean and std rounded
    # to float before the last two roundings)
    x = (np.random.default_rng(len(shape)).standard_normal(shape) * 3 + 1).astype(np.float32)
    attrs = {} if axes is None else {"axes": axes}
    (y,) = run_one("MeanVarianceNormalization", [("x", F)], {"x": x}, opset=13, **attrs)
    ax = tuple(axes or (0, 2, 3))
    xd = x.astype(np.float64)
    mean = xd.mean(axis=ax, keepdims=True)
    want = (xd - mean) / (np.sqrt(((xd - mean) ** 2).mean(axis=ax, keepdims=True)) + 1e-9)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape,axis", [((300, 37), -1), ((3, 1025), 1), ((4, 5, 6), 1)])
def test_lp2_normalization_rows_match_numpy(shape, axis, threads):
    # Float rows along the last axis: the squares summed in double in vector code, the
    # division in double; other axes element by element. Within float rounding of float64.
    from _graphs import node_model

    import onnx_light

    x = np.random.default_rng(12).standard_normal(shape).astype(np.float32) * 30
    x[0] = 0.0  # a zero row (or plane) gives zeros
    model = node_model("LpNormalization", [("x", F)], [("y", F)], 1, axis=axis, p=2)
    (y,) = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})
    xd = x.astype(np.float64)
    norm = np.sqrt((xd * xd).sum(axis=axis, keepdims=True))
    want = np.divide(xd, norm, out=np.zeros_like(xd), where=norm != 0)
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-7)
    assert not y[0].any()


@pytest.mark.parametrize("p", [1, 2])
def test_lp_normalization_with_zero_rows(p):
    x = np.array([[3.0, -4.0, 0.0], [0.0, 0.0, 0.0]], np.float32)
    (y,) = run_one("LpNormalization", [("x", F)], {"x": x}, opset=1, axis=1, p=p)
    norm = np.linalg.norm(x, ord=p, axis=1, keepdims=True)
    want = np.divide(x, norm, out=np.zeros_like(x), where=norm != 0)
    np.testing.assert_allclose(y, want, rtol=1e-6)
    with pytest.raises(ValueError, match="p must be 1 or 2"):
        run_one("LpNormalization", [("x", F)], {"x": x}, opset=1, p=3)


@pytest.mark.parametrize("opset", [18, 21])
def test_group_normalization_matches_numpy(opset):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 6, 3, 2)).astype(np.float32)
    groups = 3
    nparams = groups if opset < 21 else 6
    scale = rng.standard_normal(nparams).astype(np.float32)
    bias = rng.standard_normal(nparams).astype(np.float32)
    (y,) = run_one(
        "GroupNormalization",
        [("x", F), ("s", F), ("b", F)],
        {"x": x, "s": scale, "b": bias},
        opset=opset,
        num_groups=groups,
        epsilon=1e-3,
    )
    xg = x.reshape(2, groups, -1).astype(np.float64)
    norm = (xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + 1e-3)
    norm = norm.reshape(x.shape)
    per_channel = np.repeat(scale, 2) if opset < 21 else scale
    per_bias = np.repeat(bias, 2) if opset < 21 else bias
    want = norm * per_channel[None, :, None, None] + per_bias[None, :, None, None]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="num_groups 4 must divide the 6 channels"):
        run_one(
            "GroupNormalization",
            [("x", F), ("s", F), ("b", F)],
            {"x": x, "s": scale, "b": bias},
            opset=opset,
            num_groups=4,
        )


BAD_INPUTS = [
    (
        "BatchNormalization",
        [("x", F), ("s", F), ("b", F), ("m", F), ("v", F)],
        {},
        {"x": f32(2, 3), "s": f32(3), "b": f32(3), "m": f32(2), "v": f32(3)},
        "mean must be \\[3\\]",
    ),
    (
        "LayerNormalization",
        [("x", F), ("s", F)],
        {},
        {"x": f32(2, 3), "s": f32(4)},
        "cannot be broadcast",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


def _per_channel_model(op, elem, **attrs):
    from onnx_light.onnx import helper

    names = ["x", "s", "b", "m", "v"] if op == "BatchNormalization" else ["x", "s", "b"]
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, elem, None) for n in names],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)]).SerializeToString()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "np_type,elem,tol",
    [(np.float32, 1, 1e-5), (np.float64, 11, 1e-12), (np.float16, 10, 4e-3)],
    ids=["float", "double", "float16"],
)
@pytest.mark.parametrize("shape", [(2, 5, 7, 9), (1, 64, 56, 56), (3, 4, 1000), (2, 3)])
@pytest.mark.parametrize("op", ["BatchNormalization", "InstanceNormalization"])
def test_per_channel_normalizations_match_float64_numpy(op, shape, np_type, elem, tol, threads):
    """float: a * x + d per plane in float (a, d rounded once), statistics in double: within
    1e-5 absolute and relative of float64 numpy; double within 1e-12; float16 within 4e-3
    (the output's rounding, 4.9e-4 relative, on values up to ~4)."""
    import onnx_light

    if op == "InstanceNormalization" and len(shape) < 3:
        shape = shape + (1,)
    rng = np.random.default_rng(len(shape) + shape[1])
    c = shape[1]
    x = (rng.standard_normal(shape) * 3 + 1).astype(np_type)
    feeds = {
        "x": x,
        "s": rng.uniform(0.5, 1.5, c).astype(np_type),
        "b": rng.uniform(-1, 1, c).astype(np_type),
    }
    x64 = x.astype(np.float64)
    axes = tuple(range(2, x.ndim))
    bshape = (1, c) + (1,) * (x.ndim - 2)
    s64, b64 = (feeds[k].astype(np.float64).reshape(bshape) for k in ("s", "b"))
    if op == "BatchNormalization":
        feeds["m"] = rng.uniform(-1, 2, c).astype(np_type)
        feeds["v"] = rng.uniform(0.5, 9, c).astype(np_type)
        m64, v64 = (feeds[k].astype(np.float64).reshape(bshape) for k in ("m", "v"))
        want = (x64 - m64) / np.sqrt(v64 + 1e-5) * s64 + b64
    else:
        mean = x64.mean(axis=axes, keepdims=True)
        var = x64.var(axis=axes, keepdims=True)
        want = (x64 - mean) / np.sqrt(var + 1e-5) * s64 + b64
    session = onnx_light.RuntimeSession(_per_channel_model(op, elem), intra_op_threads=threads)
    (y,) = session.run(None, feeds)
    assert y.dtype == np_type and y.shape == x.shape
    np.testing.assert_allclose(y.astype(np.float64), want, atol=tol, rtol=tol)


def lrn_reference(x, size, alpha=1e-4, beta=0.75, bias=1.0):
    xd = x.astype(np.float64)
    c = x.shape[1]
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    sq = np.zeros_like(xd)
    for ch in range(c):
        sq[:, ch] = (xd[:, max(0, ch - lo) : min(c, ch + hi + 1)] ** 2).sum(axis=1)
    return xd / (bias + alpha / size * sq) ** beta


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("size", [1, 4, 5])
@pytest.mark.parametrize("dtype,elem", [(np.float32, F), (np.float64, 11)])
def test_lrn_planes_split_between_threads(threads, size, dtype, elem):
    # Planes (batch x channel) split between the threads: the float64 reference at 1 and 2
    # threads, windows cut by the first and last channels, an even size (more above).
    import onnx_light
    from onnx_light.onnx import helper

    x = (np.random.default_rng(size).standard_normal((2, 7, 30, 31)) * 3).astype(dtype)
    node = helper.make_node("LRN", ["x"], ["y"], size=size, alpha=0.01, beta=0.6, bias=1.5)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", elem, None)],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    s = onnx_light.RuntimeSession(model.SerializeToString(), intra_op_threads=threads)
    (y,) = s.run(None, {"x": x})
    # (the attributes are float32: the same values in the reference)
    a, b, c = (float(np.float32(v)) for v in (0.01, 0.6, 1.5))
    want = lrn_reference(x, size, alpha=a, beta=b, bias=c)
    np.testing.assert_allclose(y, want, rtol=1e-6 if dtype == np.float32 else 1e-12)
