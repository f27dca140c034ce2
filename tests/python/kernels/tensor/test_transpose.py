"""Transpose of fixed-size elements runs a typed row at a time; strings and 4-bit types
keep the element-wise path. Every permutation of a rank-4 tensor, each element size and
kind, exactly against numpy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _graphs import F, node_model, run_node
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import TensorProto

TYPES = [
    (np.uint8, TensorProto.UINT8),
    (np.bool_, TensorProto.BOOL),
    (np.float16, TensorProto.FLOAT16),
    (np.float32, TensorProto.FLOAT),
    (np.int64, TensorProto.INT64),
    (np.object_, TensorProto.STRING),
]


@pytest.mark.parametrize("dtype,elem", TYPES, ids=[t[0].__name__ for t in TYPES])
def test_every_permutation(dtype, elem):
    rng = np.random.default_rng(2)
    shape = (2, 3, 4, 5)
    if dtype is np.object_:
        x = np.array([f"s{v}" for v in range(120)], dtype=object).reshape(shape)
    else:
        x = (rng.standard_normal(shape) * 50).astype(dtype)
    for perm in itertools.permutations(range(4)):
        got = run_node("Transpose", [("x", elem)], {"x": x}, [("y", elem)], 13, perm=list(perm))
        np.testing.assert_array_equal(got[0], np.transpose(x, perm), err_msg=str(perm))


# Shapes with unit axes and axes that stay neighbours: after simplification these become
# batched 2-D transposes (blocked), plain 2-D ones, contiguous copies or general gathers;
# sizes past and off the 16 x 16 block.
SHAPES = [
    ((1, 512, 256, 1), (0, 3, 2, 1)),  # magika: a 512 x 256 transpose
    ((2, 3, 37, 19), (0, 2, 3, 1)),  # NCHW -> NHWC: a batch of [C, HW] transposes
    ((2, 37, 19, 3), (0, 3, 1, 2)),  # NHWC -> NCHW
    ((33, 17), (1, 0)),
    ((1, 1, 1), (2, 0, 1)),  # one element
    ((4, 1, 5, 1, 6), (4, 2, 0, 3, 1)),
    ((3, 4, 5, 6), (2, 3, 0, 1)),  # two merged pairs swapped
    ((16, 16, 2), (1, 0, 2)),  # the last axis stays: row copies
]


@pytest.mark.parametrize("shape, perm", SHAPES)
@pytest.mark.parametrize("dtype,elem", TYPES[:5], ids=[t[0].__name__ for t in TYPES[:5]])
def test_simplified_permutations(shape, perm, dtype, elem):
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    got = run_node("Transpose", [("x", elem)], {"x": x}, [("y", elem)], 13, perm=list(perm))
    np.testing.assert_array_equal(got[0], np.transpose(x, perm))


BAD_INPUTS = [
    ("Transpose", [("a", F)], {"perm": [0, 0]}, {"a": f32(2, 3)}, "invalid perm"),
    ("Transpose", [("a", F)], {"perm": [0]}, {"a": f32(2, 3)}, "perm has the wrong length"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "shape,perm",
    [
        ((1, 3, 224, 224), (0, 2, 3, 1)),  # an image NCHW -> NHWC: few columns, 256-row bands
        ((2, 64, 40, 40), (0, 2, 3, 1)),  # feature maps: 16 x 16 blocks, two batches
        ((2, 40, 40, 64), (0, 3, 1, 2)),  # and back
        ((300, 200), (1, 0)),
        ((8, 128, 12, 64), (0, 2, 1, 3)),  # a head split: row copies, bands of 1,024 rows
        ((3, 70, 5, 300), (2, 0, 1, 3)),  # row copies in uneven bands
    ],
)
def test_large_transposes_split_across_threads(threads, shape, perm):
    # From 32k elements the bands of a blocked transpose are split across the pool.
    x = np.random.default_rng(4).integers(0, 256, shape, dtype=np.uint8)
    s = onnx_light.RuntimeSession(
        node_model(
            "Transpose", [("x", TensorProto.UINT8)], [("y", TensorProto.UINT8)], 13, perm=list(perm)
        ),
        intra_op_threads=threads,
    )
    (y,) = s.run(None, {"x": x})
    np.testing.assert_array_equal(y, np.transpose(x, perm))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "dtype,elem", [(np.float32, TensorProto.FLOAT), (np.int32, TensorProto.INT32)]
)
@pytest.mark.parametrize(
    "shape,perm",
    [
        ((1, 64, 56, 56), (0, 2, 3, 1)),  # NCHW -> NHWC: 4 x 4 vector blocks throughout
        ((2, 7, 13, 5), (0, 2, 3, 1)),  # no side a multiple of 4: the edges
        ((3, 37, 29), (0, 2, 1)),
        ((2, 9, 18, 6), (0, 3, 1, 2)),  # NHWC -> NCHW
        ((130, 67), (1, 0)),
    ],
)
def test_four_byte_transposes_in_vector_blocks(threads, shape, perm, dtype, elem):
    # 4-byte items go through 4 x 4 blocks in 128-bit registers (simd/transpose_simd.cc),
    # the last rows and columns element by element: exact for every position.
    x = np.arange(np.prod(shape), dtype=np.int64).reshape(shape).astype(dtype)
    s = onnx_light.RuntimeSession(
        node_model("Transpose", [("x", elem)], [("y", elem)], 13, perm=list(perm)),
        intra_op_threads=threads,
    )
    (y,) = s.run(None, {"x": x})
    np.testing.assert_array_equal(y, np.transpose(x, perm))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype,elem", TYPES[:5], ids=[t[0].__name__ for t in TYPES[:5]])
@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("columns", [5, 37, 9001])
def test_interleaved_streams_split_apart(threads, dtype, elem, k, columns):
    # [batch, columns, k] -> [batch, k, columns] (NHWC -> NCHW with k channels): the k
    # interleaved streams split in vector code (simd/transpose_simd.cc DeinterleaveStreams):
    # whole vectors, 128-bit ones, then item by item; more than 4096 columns are split into
    # spans, the tasks of the pool. Exact at every position.
    shape = (2, columns, k)
    x = (np.arange(np.prod(shape), dtype=np.int64).reshape(shape) % 251).astype(dtype)
    s = onnx_light.RuntimeSession(
        node_model("Transpose", [("x", elem)], [("y", elem)], 13, perm=[0, 2, 1]),
        intra_op_threads=threads,
    )
    (y,) = s.run(None, {"x": x})
    np.testing.assert_array_equal(y, np.transpose(x, (0, 2, 1)))
