"""Linear Resize on float32 is ONNX Runtime's, bit for bit (src/onnx_light/kernels/nn/
resize_linear.cc): the shapes ORT's CPU kernel takes (bilinear [H, W], [N, C, H, W],
[N, H, W, C]; trilinear [D, H, W], [N, C, D, H, W]), every coordinate_transformation_mode,
scales and sizes, crop extrapolation, at 1 and 2 threads. ORT's linear Resize is scalar C++
compiled for the x86-64 baseline (no FMA): its answer does not depend on the CPU, so it is
an exact oracle here. Equality is checked on the bit patterns (signed zeros, infinities and
NaNs included)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, node_model

import onnx_light

COORDS = [
    "half_pixel",
    "asymmetric",
    "align_corners",
    "pytorch_half_pixel",
    "tf_half_pixel_for_nn",
    "half_pixel_symmetric",
]


def run_both(x, scales=None, sizes=None, roi=None, threads=1, **attrs):
    import onnxruntime as ort

    inputs = [("x", F), ("roi", F) if roi is not None else ("", F)]
    feeds = {"x": x}
    if roi is not None:
        feeds["roi"] = np.asarray(roi, np.float32)
    if scales is not None:
        inputs.append(("s", F))
        feeds["s"] = np.asarray(scales, np.float32)
    else:
        inputs += [("", F), ("z", I)]
        feeds["z"] = np.asarray(sizes, np.int64)
    data = node_model("Resize", inputs, [("y", F)], 19, mode="linear", **attrs).SerializeToString()
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    (want,) = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"]).run(None, feeds)
    (got,) = onnx_light.RuntimeSession(data, intra_op_threads=threads).run(None, feeds)
    return got, want


def spec_corners(shape, scales, coord):
    """align_corners by scales whose product with the input is no integer: onnx-light
    follows the spec there, not ORT."""
    return coord == "align_corners" and any(
        (float(np.float32(s)) * n) % 1 != 0 for s, n in zip(scales, shape)
    )


def assert_bits_equal(got, want):
    assert got.shape == want.shape
    diff = got.view(np.uint32) != want.view(np.uint32)
    assert not diff.any(), (
        f"{int(diff.sum())} of {diff.size} elements differ; first at "
        f"{np.argwhere(diff)[0].tolist()}: {got[diff][0]!r} vs ORT {want[diff][0]!r}"
    )


@pytest.mark.parametrize("coord", COORDS)
@pytest.mark.parametrize(
    "shape, scales",
    [
        ((1, 3, 7, 9), (1, 1, 2, 2)),  # the 2x upsampling of feature pyramids
        ((2, 3, 13, 17), (1, 1, 0.5, 0.6)),  # downsampling
        ((1, 2, 5, 6), (1, 1, 1.7, 3.1)),  # scales that do not divide
        ((1, 1, 1, 8), (1, 1, 3, 1.5)),  # a one-row input
    ],
)
def test_bilinear_nchw_scales_bit_equal(shape, scales, coord):
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32) * 7
    if spec_corners(shape, scales, coord):
        return  # the spec's rule, not ORT's: test_align_corners_by_scales_follows_the_spec
    assert_bits_equal(*run_both(x, scales=scales, coordinate_transformation_mode=coord))


def test_align_corners_by_scales_follows_the_spec():
    # align_corners with scales whose product with the input is not an integer: the ONNX
    # spec (and its conformance case resize_downsample_scales_linear_align_corners) maps
    # with the unrounded in * scale, ONNX Runtime with the rounded output size; onnx-light
    # keeps the spec (docs/runtime.md lists the difference).
    x = np.arange(1, 9, dtype=np.float32).reshape(1, 1, 2, 4)
    got, theirs = run_both(
        x, scales=(1, 1, 0.6, 0.6), coordinate_transformation_mode="align_corners"
    )
    np.testing.assert_allclose(got, [[[[1.0, 3.142857]]]], rtol=1e-6)
    np.testing.assert_array_equal(theirs, [[[[1.0, 4.0]]]])


@pytest.mark.parametrize("coord", COORDS)
@pytest.mark.parametrize(
    "shape, sizes", [((1, 4, 20, 30), (1, 4, 33, 47)), ((1, 2, 64, 64), (1, 2, 21, 100))]
)
def test_bilinear_sizes_bit_equal(shape, sizes, coord):
    # Scales out of sizes: ORT divides the two sizes in float.
    x = np.random.default_rng(3).uniform(-100, 100, shape).astype(np.float32)
    assert_bits_equal(*run_both(x, sizes=sizes, coordinate_transformation_mode=coord))


@pytest.mark.parametrize(
    "shape, scales",
    [
        ((1, 7, 9, 3), (1, 2, 2, 1)),  # channels last
        ((2, 5, 4, 19), (1, 1.5, 0.75, 1)),
        ((9, 11), (2.5, 0.8)),  # a matrix
        ((3, 5, 9), (1, 1, 2)),  # rank 3 is trilinear in ORT
        ((2, 4, 6), (2, 1.5, 0.5)),
        ((1, 2, 3, 4, 5), (1, 1, 2, 1.5, 2)),  # volumes
    ],
)
@pytest.mark.parametrize("coord", ["half_pixel", "align_corners", "asymmetric"])
def test_other_layouts_bit_equal(shape, scales, coord):
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    if spec_corners(shape, scales, coord):
        return  # the spec's rule, not ORT's: test_align_corners_by_scales_follows_the_spec
    assert_bits_equal(*run_both(x, scales=scales, coordinate_transformation_mode=coord))


@pytest.mark.parametrize(
    "shape, scales, sizes, roi",
    [
        # Rois one unit long: the ONNX output size (in * roi extent * scale, which onnx-light
        # follows) is ORT's (in * scale) there.
        ((1, 2, 8, 10), (1, 1, 1.5, 2), None, (0, 0, 0.25, -0.25, 1, 1, 1.25, 0.75)),
        ((1, 6, 7, 2), (1, 2, 1.5, 1), None, (0, -0.125, 0.5, 0, 1, 0.875, 1.5, 1)),
        ((4, 6, 8), (1.5, 1, 2), None, (-0.5, 0, 0.25, 0.5, 1, 1.25)),
        ((1, 2, 8, 10), None, (1, 2, 11, 7), (0, 0, 0.2, -0.3, 1, 1, 1.3, 0.9)),
    ],
)
def test_crop_and_resize_extrapolation_bit_equal(shape, scales, sizes, roi):
    x = np.random.default_rng(9).standard_normal(shape).astype(np.float32)
    got, want = run_both(
        x,
        scales=scales,
        sizes=sizes,
        roi=roi,
        coordinate_transformation_mode="tf_crop_and_resize",
        extrapolation_value=-3.5,
    )
    assert (want == -3.5).any()  # some outputs do fall outside
    assert_bits_equal(got, want)


@pytest.mark.parametrize("threads", [1, 2])
def test_large_planes_and_special_values_bit_equal(threads):
    # Enough rows to split between threads; infinities and NaNs go through the same
    # products (an infinity times a zero distance is NaN in ORT, and here).
    x = np.random.default_rng(11).standard_normal((1, 64, 56, 56)).astype(np.float32)
    x[0, 0, 3, 4] = np.inf
    x[0, 1, 10, 10] = -np.inf
    x[0, 2, 20, 21] = np.nan
    x[0, 3, 5, 5] = -0.0
    got, want = run_both(x, scales=(1, 1, 2, 2), threads=threads)
    assert np.isnan(want).any()
    assert_bits_equal(got, want)
