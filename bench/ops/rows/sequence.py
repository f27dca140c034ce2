"""Sequence and optional values (kernels/sequence/): what splitting into, building and
joining a sequence of tensors costs (a tokenizer's or a detector's post-processing)."""

import numpy as np
from cases import In, OpCase, OptIn, SeqIn

from onnx_light.onnx import helper

FLOAT = 1
SEQ = helper.make_sequence_type_proto(helper.make_tensor_type_proto(FLOAT, None))
OPT = helper.make_optional_type_proto(helper.make_tensor_type_proto(FLOAT, None))
PARTS = [np.full((64, 1024), i, np.float32) for i in range(16)]

ROWS = [
    OpCase(
        "SequenceConstruct 3x[256,1024]",
        "SequenceConstruct",
        [In((256, 1024)) for _ in range(3)],
        opset=11,
        out_protos=[SEQ],
    ),
    OpCase(
        "SequenceAt 16x[64,1024] at 5", "SequenceAt", [SeqIn(PARTS), In((), np.int64, values=5)]
    ),
    OpCase(
        "SequenceEmpty float", "SequenceEmpty", [], {"dtype": FLOAT}, opset=11, out_protos=[SEQ]
    ),
    OpCase(
        "SequenceErase 16x[64,1024] at -1",
        "SequenceErase",
        [SeqIn(PARTS), In((), np.int64, values=-1)],
        opset=11,
        out_protos=[SEQ],
    ),
    OpCase(
        "SequenceInsert [64,1024] into 16",
        "SequenceInsert",
        [SeqIn(PARTS), In((64, 1024))],
        opset=11,
        out_protos=[SEQ],
    ),
    OpCase("SequenceLength of 16", "SequenceLength", [SeqIn(PARTS)], opset=11),
    OpCase(
        "SplitToSequence [1,64,56,56] in 64 on axis 1",
        "SplitToSequence",
        [In((1, 64, 56, 56))],
        {"axis": 1, "keepdims": 1},
        opset=11,
        out_protos=[SEQ],
    ),
    OpCase(
        "ConcatFromSequence 16x[64,1024] axis 0",
        "ConcatFromSequence",
        [SeqIn(PARTS)],
        {"axis": 0},
        opset=11,
    ),
    OpCase(
        "ConcatFromSequence 16x[64,1024] new axis 1",
        "ConcatFromSequence",
        [SeqIn(PARTS)],
        {"axis": 1, "new_axis": 1},
        opset=11,
    ),
    OpCase("Optional of [256,1024]", "Optional", [In((256, 1024))], opset=15, out_protos=[OPT]),
    OpCase(
        "OptionalHasElement [256,1024]",
        "OptionalHasElement",
        [OptIn(np.zeros((256, 1024), np.float32))],
        opset=18,
    ),
    OpCase(
        "OptionalGetElement [256,1024]",
        "OptionalGetElement",
        [OptIn(np.zeros((256, 1024), np.float32))],
        opset=18,
    ),
]
