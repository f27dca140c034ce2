"""Data movement and shape ops (kernels/tensor/)."""

import numpy as np
from cases import In, OpCase

IMAGE = (1, 64, 56, 56)

ROWS = [
    OpCase("Transpose NCHW->NHWC [1,64,56,56]", "Transpose", [In(IMAGE)], {"perm": [0, 2, 3, 1]}),
    OpCase(
        "Transpose [8,128,12,64] 0213", "Transpose", [In((8, 128, 12, 64))], {"perm": [0, 2, 1, 3]}
    ),
    OpCase("Concat 2x[1,64,56,56] axis 1", "Concat", [In(IMAGE), In(IMAGE)], {"axis": 1}),
    OpCase(
        "Gather W[30522,768] by [1,128]",
        "Gather",
        [In((30522, 768), const=True), In((1, 128), np.int64, lo=0, hi=30522)],
    ),
    OpCase(
        "Slice [1,64,56,56] -> [:,:,1:55,1:55]",
        "Slice",
        [
            In(IMAGE),
            In((2,), np.int64, const=True, values=[1, 1]),
            In((2,), np.int64, const=True, values=[55, 55]),
            In((2,), np.int64, const=True, values=[2, 3]),
        ],
        opset=13,
    ),
    OpCase(
        "Reshape [1,64,56,56] -> [1,64,3136]",
        "Reshape",
        [In(IMAGE), In((3,), np.int64, const=True, values=[1, 64, 3136])],
        opset=14,
    ),
    OpCase("Cast float->float16 [1024,1024]", "Cast", [In((1024, 1024))], {"to": 10}, opset=13),
    OpCase(
        "Cast float16->float [1024,1024]",
        "Cast",
        [In((1024, 1024), np.float16)],
        {"to": 1},
        opset=13,
    ),
    OpCase(
        "Pad 1 constant [1,64,56,56]",
        "Pad",
        [In(IMAGE), In((8,), np.int64, const=True, values=[0, 0, 1, 1, 0, 0, 1, 1])],
        opset=13,
    ),
    OpCase(
        "Expand [1,1,56,56] -> [1,64,56,56]",
        "Expand",
        [In((1, 1, 56, 56)), In((4,), np.int64, const=True, values=list(IMAGE))],
        opset=13,
    ),
    OpCase(
        "Split [1,128,56,56] in 2 on axis 1",
        "Split",
        [In((1, 128, 56, 56))],
        {"axis": 1},
        opset=13,
        outputs=2,
    ),
    OpCase(
        "Trilu upper k=1 [8,256,256]",
        "Trilu",
        [In((8, 256, 256)), In((), np.int64, values=1)],
        opset=14,
    ),
]
