"""Reductions and arg-reductions (kernels/reduction/)."""

import numpy as np
from cases import In, OpCase

ROWS = [
    OpCase(
        "ReduceMean [1,512,7,7] axes 2,3",
        "ReduceMean",
        [In((1, 512, 7, 7))],
        {"axes": [2, 3]},
        opset=13,
    ),
    OpCase(
        "ReduceSum [256,1024] last axis",
        "ReduceSum",
        [In((256, 1024)), In((1,), np.int64, const=True, values=[-1])],
        opset=13,
    ),
    OpCase(
        "ReduceMax [256,1024] last axis", "ReduceMax", [In((256, 1024))], {"axes": [-1]}, opset=13
    ),
    OpCase(
        "ReduceSumSquare [64,64,64] axis 1",
        "ReduceSumSquare",
        [In((64, 64, 64))],
        {"axes": [1]},
        opset=13,
    ),
    OpCase(
        "ReduceMax [1,64,56,56] axis 1 (channels)",
        "ReduceMax",
        [In((1, 64, 56, 56))],
        {"axes": [1]},
        opset=13,
    ),
    OpCase("ReduceMin [128,1000] axes 0", "ReduceMin", [In((128, 1000))], {"axes": [0]}, opset=13),
    OpCase(
        "ReduceMean [16,128,768] last axis (LayerNorm by hand)",
        "ReduceMean",
        [In((16, 128, 768))],
        {"axes": [-1]},
        opset=13,
    ),
    OpCase(
        "ReduceLogSumExp [64,1000] last axis",
        "ReduceLogSumExp",
        [In((64, 1000))],
        {"axes": [-1]},
        opset=13,
    ),
    OpCase(
        "ReduceMax int64 [256,1024] last axis",
        "ReduceMax",
        [In((256, 1024), np.int64)],
        {"axes": [-1]},
        opset=13,
    ),
    OpCase("ArgMax [256,1024] axis 1", "ArgMax", [In((256, 1024))], {"axis": 1}, opset=13),
    # (a sweep: the other reductions)
    OpCase(
        "ReduceL2 [256,1024] last axis", "ReduceL2", [In((256, 1024))], {"axes": [-1]}, opset=13
    ),
    OpCase(
        "ReduceProd [256,1024] last axis", "ReduceProd", [In((256, 1024))], {"axes": [-1]}, opset=13
    ),
    OpCase(
        "ReduceMean [1,64,56,56] axis 1 (channels)",
        "ReduceMean",
        [In((1, 64, 56, 56))],
        {"axes": [1]},
        opset=13,
    ),
    OpCase("ArgMin [256,1024] axis 1", "ArgMin", [In((256, 1024))], {"axis": 1}, opset=13),
]

ROWS += [
    OpCase(
        "ReduceL1 [256,1024] last axis", "ReduceL1", [In((256, 1024))], {"axes": [-1]}, opset=13
    ),
    OpCase(
        "ReduceLogSum [64,64,64] axis 1",
        "ReduceLogSum",
        [In((64, 64, 64), values=np.linspace(0.1, 2, 64**3).reshape(64, 64, 64))],
        {"axes": [1]},
        opset=13,
    ),
]
