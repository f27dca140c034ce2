"""Resize, Upsample (src/onnx_light/kernels/nn/resize.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, node_model, run_one
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import helper


def model24(op, inputs, outs=(("y", F),), opset=24, **attrs):
    return node_model(op, inputs, outs, opset, **attrs)


def test_upsample_opset7_nearest_and_opset9_linear():
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)
    (y,) = run_one("Upsample", [("x", F)], {"x": x}, opset=7, scales=[1.0, 1.0, 2.0, 2.0])
    np.testing.assert_array_equal(y, x.repeat(2, axis=2).repeat(2, axis=3))
    (y,) = run_one(
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
    m = model24(
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


def test_resize_linear_half_pixel_matches_onnxruntime():
    import onnxruntime as ort

    x = np.random.default_rng(4).standard_normal((1, 2, 4, 5)).astype(np.float32)
    for mode, coord in (
        ("linear", "half_pixel"),
        ("cubic", "align_corners"),
        ("nearest", "asymmetric"),
    ):
        node = helper.make_node(
            "Resize", ["x", "", "s"], ["y"], mode=mode, coordinate_transformation_mode=coord
        )
        graph = helper.make_graph(
            [node],
            "g",
            [
                helper.make_tensor_value_info("x", F, None),
                helper.make_tensor_value_info("s", F, None),
            ],
            [helper.make_tensor_value_info("y", F, None)],
        )
        data = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 17)]
        ).SerializeToString()
        feeds = {"x": x, "s": np.array([1, 1, 1.75, 0.6], np.float32)}
        (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
        (got,) = onnx_light.RuntimeSession(data).run(None, feeds)
        assert got.shape == want.shape, mode
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{mode}/{coord}")


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize(
    "shape, scales, mode",
    [
        ((1, 128, 20, 20), (1, 1, 2, 2), "nearest"),  # 2x: each value written twice
        ((2, 70, 13, 17), (1, 1, 2, 2), "nearest"),  # odd sizes, batch 2
        ((1, 64, 20, 24), (1, 1, 3, 1.5), "nearest"),  # not 2x: through the index table
        ((1, 48, 30, 20), (1, 1, 1.5, 2), "linear"),
    ],
)
def test_resize_planes_split_between_threads(shape, scales, mode, threads):
    # Enough planes and outputs (>= 32K) for the planes to split between the threads; the
    # values are the single-threaded ones, and nearest 2x is numpy's repeat exactly.
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], mode=mode)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", F, None), helper.make_tensor_value_info("s", F, None)],
        [helper.make_tensor_value_info("y", F, None)],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    feeds = {"x": x, "s": np.array(scales, np.float32)}
    (want,) = onnx_light.RuntimeSession(data, intra_op_threads=1).run(None, feeds)
    (got,) = onnx_light.RuntimeSession(data, intra_op_threads=threads).run(None, feeds)
    np.testing.assert_array_equal(got, want)
    if mode == "nearest" and scales == (1, 1, 2, 2):
        np.testing.assert_array_equal(got, x.repeat(2, axis=2).repeat(2, axis=3))
    if mode == "nearest" and scales[2] == 3:
        # The ONNX formula at opset 13's defaults (half_pixel, round_prefer_floor), rows of
        # column 0 (which maps to input column 0), independent of the kernel.
        hi = np.floor((np.arange(shape[2] * 3) + 0.5) / 3 - 0.5 + 0.5 - 1e-9).clip(0)
        assert got.shape == (1, 64, 60, 36)
        np.testing.assert_array_equal(got[0, :, :, 0], x[0][:, hi.astype(int), 0])


BAD_INPUTS = [
    (
        "Resize",
        [("x", F), ("r", F), ("s", F)],
        {},
        {"x": f32(1, 1, 2, 2), "r": np.zeros(0, np.float32), "s": f32(3)},
        "one value per resized axis",
    ),
    (
        "Resize",
        [("x", F), ("r", F), ("s", F)],
        {},
        {
            "x": f32(1, 1, 2, 2),
            "r": np.zeros(0, np.float32),
            "s": np.array([1, 1, 0, 2], np.float32),
        },
        "scales must be > 0",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
