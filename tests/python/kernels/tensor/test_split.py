"""Split (src/onnx_light/kernels/tensor/split.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    (
        "Split",
        [("a", F), ("s", I)],
        {},
        {"a": f32(5), "s": np.array([2, 2])},
        "split sizes do not match",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "shape,dtype,split,axis",
    [
        ((1, 128, 56, 56), np.float32, [64, 64], 1),  # one 784 KiB run an output
        ((2, 96, 40, 40), np.float32, [50, 30, 16], 1),  # two runs an output, unequal
        ((3, 512, 700), np.int8, [300, 400], 2),  # bytes: 1,536 runs of 300 and of 400
        ((4, 1000, 100), np.float64, [999, 1], 1),  # a one-row piece
    ],
)
def test_large_pieces_split_between_threads_equal_numpy(shape, dtype, split, axis, threads):
    """Copies of 256 KiB and more, in runs of 256 bytes or more, are split between the
    pool's threads by element ranges that cut runs anywhere: every piece equals numpy's."""
    from onnx_light.onnx import TensorProto, helper

    elem = {
        np.float32: TensorProto.FLOAT,
        np.int8: TensorProto.INT8,
        np.float64: TensorProto.DOUBLE,
    }
    outs = [f"y{i}" for i in range(len(split))]
    node = helper.make_node("Split", ["x", "s"], outs, axis=axis)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", elem[dtype], None),
            helper.make_tensor_value_info("s", TensorProto.INT64, None),
        ],
        [helper.make_tensor_value_info(o, elem[dtype], None) for o in outs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    import onnx_light

    x = (np.arange(np.prod(shape)) % 251 - 125).astype(dtype).reshape(shape)
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(
        None, {"x": x, "s": np.array(split, np.int64)}
    )
    for g, w in zip(got, np.split(x, np.cumsum(split)[:-1], axis=axis)):
        np.testing.assert_array_equal(g, w)
