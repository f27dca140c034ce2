"""Concat (src/onnx_light/kernels/tensor/concat.cc): bad inputs refused with a
ValueError that names the node; large outputs (256 KiB and more) copied in blocks across
the pool, equal to numpy's concatenate at 1 and 2 threads."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I8, F
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import helper

BAD_INPUTS = [
    (
        "Concat",
        [("a", F), ("b", F)],
        {"axis": 0},
        {"a": f32(2, 3), "b": f32(2, 4)},
        "input 1 has shape \\[2, 4\\]",
    ),
    (
        "Concat",
        [("a", F), ("b", F)],
        {"axis": 5},
        {"a": f32(2, 3), "b": f32(2, 3)},
        "axis 5 is out of range for rank 2",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


def concat_model(names, elem, axis):
    graph = helper.make_graph(
        [helper.make_node("Concat", names, ["y"], axis=axis)],
        "g",
        [helper.make_tensor_value_info(n, elem, None) for n in names],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize(
    "shapes,axis,dtype",
    [
        ([(1, 4, 512, 64), (1, 4, 1, 64)], 2, np.float32),  # a decoder's KV cache step
        ([(3, 300, 100), (3, 1, 100), (3, 7, 100)], 1, np.float32),
        ([(600, 500), (600, 3)], 1, np.int8),
        ([(2, 70000), (5, 70000)], 0, np.float32),  # one block per input
    ],
)
def test_large_concat_split_across_threads_is_exact(shapes, axis, dtype):
    rng = np.random.default_rng(3)
    arrays = [(rng.standard_normal(s) * 50).astype(dtype) for s in shapes]
    elem = F if dtype == np.float32 else I8
    names = [f"x{i}" for i in range(len(arrays))]
    want = np.concatenate(arrays, axis=axis)
    assert want.nbytes >= 1 << 18  # the parallel path's threshold
    model = concat_model(names, elem, axis)
    for threads in (1, 2):
        s = onnx_light.RuntimeSession(model.SerializeToString(), intra_op_threads=threads)
        (got,) = s.run(None, dict(zip(names, arrays)))
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "shapes,axis,dtype",
    [
        ([(1, 400, 64, 1)] * 3, 3, np.float32),  # maps stacked on a new last axis
        ([(500, 2), (500, 1), (500, 3)], 1, np.int64),
        ([(40, 3, 1), (40, 1, 1)], 1, np.float16),
        ([(7, 5), (7, 0), (7, 2)], 1, np.uint8),  # an empty input among them
        ([(300, 2)], 1, np.bool_),
    ],
)
def test_small_blocks_interleaved_by_type_are_exact(shapes, axis, dtype, threads):
    # blocks of at most 256 bytes per outer index: the typed interleaving path
    rng = np.random.default_rng(4)
    arrays = [(rng.standard_normal(s) * 50).astype(dtype) for s in shapes]
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    names = [f"x{i}" for i in range(len(arrays))]
    model = concat_model(names, elem, axis)
    s = onnx_light.RuntimeSession(model.SerializeToString(), intra_op_threads=threads)
    got = s.run(None, dict(zip(names, arrays)))[0]
    np.testing.assert_array_equal(got, np.concatenate(arrays, axis=axis))
