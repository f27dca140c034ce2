"""BitCast, CenterCropPad, Det, MeanVarianceNormalization, MaxUnpool, Swish, Upsample,
Resize with antialias / keep_aspect_ratio_policy, bool ReduceMax/ReduceMin and 16-bit
Range against numpy (or ORT for Resize), with their errors. Tolerances: float32 rtol
1e-5; Det float64 rtol 1e-10; moves and bit casts exact."""

from __future__ import annotations

import ml_dtypes as md
import numpy as np
import pytest
from _graphs import node_model, run_node

import onnx_light
from onnx_light.onnx import TensorProto

F, D, I, B = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64, TensorProto.BOOL


def model(op, inputs, outs=(("y", F),), opset=24, **attrs):
    return node_model(op, inputs, outs, opset, **attrs)


def run(op, inputs, feeds, outs=(("y", F),), opset=24, **attrs):
    return run_node(op, inputs, feeds, outs, opset, **attrs)


def test_bitcast_float_to_int32_and_width_mismatch():
    x = np.array([1.0, -0.0, np.inf], np.float32)
    (y,) = run(
        "BitCast",
        [("x", F)],
        {"x": x},
        outs=[("y", TensorProto.INT32)],
        opset=26,
        to=TensorProto.INT32,
    )
    np.testing.assert_array_equal(y, x.view(np.int32))
    with pytest.raises(ValueError, match="equal bit widths"):
        run("BitCast", [("x", F)], {"x": x}, outs=[("y", I)], opset=26, to=I)


@pytest.mark.parametrize("shape", [[3, 7], [6, 2], [5, 5]])
def test_center_crop_pad_odd_and_even(shape):
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    (y,) = run("CenterCropPad", [("x", F), ("s", I)], {"x": x, "s": np.array(shape)}, opset=18)
    want = np.zeros(shape, np.float32)
    src, dst = [], []
    for dim, sh in zip(x.shape, shape):
        n = min(dim, sh)
        s0 = (dim - sh) // 2 if dim > sh else 0
        d0 = (sh - dim) // 2 if sh > dim else 0
        src.append(slice(s0, s0 + n))
        dst.append(slice(d0, d0 + n))
    want[tuple(dst)] = x[tuple(src)]
    np.testing.assert_array_equal(y, want)
    with pytest.raises(ValueError, match="shape has 1 entries for 2 axes"):
        run("CenterCropPad", [("x", F), ("s", I)], {"x": x, "s": np.array([3])}, opset=18)


def test_det_matches_numpy_including_singular():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((3, 4, 4))
    x[1, 2] = x[1, 0] * 2  # singular
    (y,) = run("Det", [("x", D)], {"x": x}, outs=[("y", D)], opset=11)
    np.testing.assert_allclose(y, np.linalg.det(x), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="must be \\[..., M, M\\]"):
        run("Det", [("x", D)], {"x": np.ones((2, 3))}, outs=[("y", D)], opset=11)


def test_mean_variance_normalization_custom_axes():
    x = np.random.default_rng(13).standard_normal((2, 3, 4)).astype(np.float32)
    (y,) = run("MeanVarianceNormalization", [("x", F)], {"x": x}, opset=13, axes=[0, 2])
    xd = x.astype(np.float64)
    mean = xd.mean(axis=(0, 2), keepdims=True)
    want = (xd - mean) / (np.sqrt(((xd - mean) ** 2).mean(axis=(0, 2), keepdims=True)) + 1e-9)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


def test_maxunpool_inverts_maxpool_indices():
    x = np.random.default_rng(14).standard_normal((1, 2, 4, 4)).astype(np.float32)
    pooled, ind = run(
        "MaxPool",
        [("x", F)],
        {"x": x},
        outs=[("y", F), ("i", I)],
        opset=12,
        kernel_shape=[2, 2],
        strides=[2, 2],
    )
    (y,) = run(
        "MaxUnpool",
        [("p", F), ("i", I)],
        {"p": pooled, "i": ind},
        opset=11,
        kernel_shape=[2, 2],
        strides=[2, 2],
    )
    want = np.zeros_like(x).ravel()
    want[ind.ravel()] = pooled.ravel()
    np.testing.assert_array_equal(y, want.reshape(x.shape))
    with pytest.raises(ValueError, match="index 99 is outside"):
        run(
            "MaxUnpool",
            [("p", F), ("i", I)],
            {"p": pooled, "i": np.full(ind.shape, 99)},
            opset=11,
            kernel_shape=[2, 2],
            strides=[2, 2],
        )


def test_swish():
    x = np.linspace(-6, 6, 25).astype(np.float32)
    (y,) = run("Swish", [("x", F)], {"x": x}, alpha=0.5)
    np.testing.assert_allclose(y, x / (1 + np.exp(-0.5 * x)), rtol=1e-5, atol=1e-7)


def test_upsample_opset7_nearest_and_opset9_linear():
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)
    (y,) = run("Upsample", [("x", F)], {"x": x}, opset=7, scales=[1.0, 1.0, 2.0, 2.0])
    np.testing.assert_array_equal(y, x.repeat(2, axis=2).repeat(2, axis=3))
    (y,) = run(
        "Upsample",
        [("x", F), ("s", F)],
        {"x": x, "s": np.array([1, 1, 1, 2], np.float32)},
        opset=9,
        mode="linear",
    )
    row = np.array([0, 0.5, 1, 1.5, 2, 2], np.float32)  # asymmetric, edge-clamped
    np.testing.assert_allclose(y[0, 0], np.stack([row, row + 3]), rtol=1e-6)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
@pytest.mark.parametrize(
    "sizes, policy", [([5, 3], "stretch"), ([4, 4], "not_larger"), ([4, 4], "not_smaller")]
)
def test_resize_antialias_and_aspect_policy_match_onnxruntime(mode, sizes, policy):
    import onnxruntime as ort

    x = np.random.default_rng(15).standard_normal((1, 1, 11, 9)).astype(np.float32)
    m = model(
        "Resize",
        [("x", F), ("", F), ("", F), ("s", I)],
        opset=18,
        mode=mode,
        antialias=1,
        keep_aspect_ratio_policy=policy,
        axes=[2, 3],
    )
    feeds = {"x": x, "s": np.array(sizes, np.int64)}
    data = m.SerializeToString()
    (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    (got,) = onnx_light.RuntimeSession(data).run(None, feeds)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_bool_reduce_max_min_are_any_and_all():
    x = np.array([[True, False], [False, False]])
    (y,) = run("ReduceMax", [("x", B)], {"x": x}, outs=[("y", B)], opset=20, keepdims=0)
    np.testing.assert_array_equal(y, x.any(axis=(0, 1)))
    (y,) = run(
        "ReduceMin",
        [("x", B), ("a", I)],
        {"x": x, "a": np.array([1])},
        outs=[("y", B)],
        opset=20,
        keepdims=0,
    )
    np.testing.assert_array_equal(y, x.all(axis=1))


def test_range_bfloat16_accumulates_in_the_type():
    bf = md.bfloat16
    feeds = {"a": np.array(1, bf), "b": np.array(4, bf), "c": np.array(0.3, bf)}
    (y,) = run(
        "Range",
        [(k, TensorProto.BFLOAT16) for k in "abc"],
        feeds,
        outs=[("y", TensorProto.BFLOAT16)],
        opset=27,  # 16-bit types since Range-27
    )
    want, v = [], np.array(1, bf)
    for _ in range(int(np.ceil((4 - 1) / float(np.array(0.3, bf))))):
        want.append(v)
        v = np.array(np.float32(v) + np.float32(np.array(0.3, bf)), bf)
    np.testing.assert_array_equal(y.astype(np.float32), np.array(want, np.float32))
