"""Data movement and shape ops (kernels/tensor/)."""

import numpy as np
from cases import In, OpCase

IMAGE = (1, 64, 56, 56)

ROWS = [
    OpCase("Transpose NCHW->NHWC [1,64,56,56]", "Transpose", [In(IMAGE)], {"perm": [0, 2, 3, 1]}),
    OpCase(
        "Transpose [8,128,12,64] 0213", "Transpose", [In((8, 128, 12, 64))], {"perm": [0, 2, 1, 3]}
    ),
    # An image model fed NHWC (Keras, tf2onnx): its first node moves 3 channels to the front.
    OpCase(
        "Transpose NHWC->NCHW [1,224,224,3]",
        "Transpose",
        [In((1, 224, 224, 3))],
        {"perm": [0, 3, 1, 2]},
    ),
    OpCase(
        "Transpose NHWC->NCHW u8 [1,224,224,3]",
        "Transpose",
        [In((1, 224, 224, 3), np.uint8, lo=0, hi=255)],
        {"perm": [0, 3, 1, 2]},
    ),
    OpCase(
        "Transpose NCHW->NHWC [1,3,224,224]",
        "Transpose",
        [In((1, 3, 224, 224))],
        {"perm": [0, 2, 3, 1]},
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
    # Indexing and layout ops of detectors, segmenters and graph nets (a sweep for slow
    # generic paths).
    OpCase(
        "GatherElements axis 1 [64,1000] -> [64,100]",
        "GatherElements",
        [In((64, 1000)), In((64, 100), np.int64, lo=0, hi=1000)],
        {"axis": 1},
    ),
    OpCase(
        "GatherND [1,1000,256] by 500 rows",
        "GatherND",
        [In((1, 1000, 256)), In((1, 500, 1), np.int64, lo=0, hi=1000)],
        {"batch_dims": 1},
    ),
    OpCase(
        "ScatterND 500 rows into [1000,256]",
        "ScatterND",
        [
            In((1000, 256)),
            In((500, 1), np.int64, values=np.arange(0, 1000, 2).reshape(500, 1)),
            In((500, 256)),
        ],
    ),
    OpCase(
        "ScatterElements axis 0 [10000,64] (GNN)",
        "ScatterElements",
        [In((10000, 64)), In((5000, 64), np.int64, lo=0, hi=10000), In((5000, 64))],
        {"axis": 0, "reduction": "add"},
        opset=18,
    ),
    OpCase(
        "Tile [1,64,28,28] x [1,1,2,2]",
        "Tile",
        [In((1, 64, 28, 28)), In((4,), np.int64, const=True, values=[1, 1, 2, 2])],
    ),
    OpCase(
        "DepthToSpace 2 [1,256,28,28]",
        "DepthToSpace",
        [In((1, 256, 28, 28))],
        {"blocksize": 2, "mode": "CRD"},
    ),
    OpCase("SpaceToDepth 2 [1,64,56,56]", "SpaceToDepth", [In(IMAGE)], {"blocksize": 2}),
    OpCase(
        "OneHot 512 ids of 1000",
        "OneHot",
        [
            In((512,), np.int64, lo=0, hi=1000),
            In((), np.int64, const=True, values=1000),
            In((2,), const=True, values=[0.0, 1.0]),
        ],
    ),
    OpCase("NonZero [256,1024] bool", "NonZero", [In((256, 1024), np.bool_)]),
    OpCase(
        "Compress [10000,16] by a mask",
        "Compress",
        [In((10000, 16)), In((10000,), np.bool_)],
        {"axis": 0},
    ),
    OpCase(
        "Range 0..100000",
        "Range",
        [
            In((), values=np.float32(0)),
            In((), values=np.float32(100000)),
            In((), values=np.float32(1)),
        ],
    ),
    OpCase("Cast float -> int64 [256,1024]", "Cast", [In((256, 1024))], {"to": 7}),
    OpCase("Cast int64 -> float [256,1024]", "Cast", [In((256, 1024), np.int64)], {"to": 1}),
]

# The remaining movement and shape kernels: views and shape queries (a copy or nothing),
# constants made from shapes, the crop/reverse/scatter/unique family and Upsample.
ROWS += [
    OpCase("Identity [1,64,56,56]", "Identity", [In(IMAGE)]),
    OpCase("Flatten [1,64,56,56] axis 1", "Flatten", [In(IMAGE)], {"axis": 1}),
    OpCase(
        "Squeeze [1,64,56,56] axis 0",
        "Squeeze",
        [In(IMAGE), In((1,), np.int64, const=True, values=[0])],
        opset=13,
    ),
    OpCase(
        "Unsqueeze [64,56,56] axis 0",
        "Unsqueeze",
        [In((64, 56, 56)), In((1,), np.int64, const=True, values=[0])],
        opset=13,
    ),
    OpCase("Shape [1,64,56,56]", "Shape", [In(IMAGE)], opset=15),
    OpCase("Size [1,64,56,56]", "Size", [In(IMAGE)]),
    OpCase(
        "ConstantOfShape [1,64,56,56]",
        "ConstantOfShape",
        [In((4,), np.int64, values=list(IMAGE))],
        opset=9,
    ),
    OpCase("EyeLike [1024,1024]", "EyeLike", [In((1024, 1024))], {"k": 1}),
    OpCase("BitCast float->int32 [256,1024]", "BitCast", [In((256, 1024))], {"to": 6}, opset=26),
    OpCase(
        "CenterCropPad [1,64,56,56] -> 48x64",
        "CenterCropPad",
        [In(IMAGE), In((2,), np.int64, const=True, values=[48, 64])],
        {"axes": [2, 3]},
        opset=18,
    ),
    OpCase(
        "ReverseSequence [200,16,256] time-major",
        "ReverseSequence",
        [In((200, 16, 256)), In((16,), np.int64, lo=1, hi=200)],
        {"batch_axis": 1, "time_axis": 0},
    ),
    OpCase(
        "Scatter axis 0 [1000,256] (opset 9)",
        "Scatter",
        [
            In((1000, 256)),
            In((500, 256), np.int64, values=np.tile(np.arange(0, 1000, 2)[:, None], (1, 256))),
            In((500, 256)),
        ],
        opset=9,
    ),
    OpCase(
        "Unique sorted int64 [100000] of 1000",
        "Unique",
        [In((100000,), np.int64, lo=0, hi=1000)],
        {"sorted": 1},
        opset=11,
        outputs=4,
    ),
    OpCase(
        "Unique float [4096] axis 0 rows of [4096,8]",
        "Unique",
        [In((4096, 8), values=np.repeat(np.arange(1024 * 8).reshape(1024, 8), 4, 0) % 97)],
        {"sorted": 1, "axis": 0},
        opset=11,
        outputs=4,
    ),
    OpCase(
        "Upsample nearest x2 [1,64,56,56] (opset 9)",
        "Upsample",
        [In(IMAGE), In((4,), const=True, values=[1, 1, 2, 2])],
        {"mode": "nearest"},
        opset=9,
    ),
    OpCase(
        "Upsample linear x2 [1,64,56,56] (opset 9)",
        "Upsample",
        [In(IMAGE), In((4,), const=True, values=[1, 1, 2, 2])],
        {"mode": "linear"},
        opset=9,
    ),
]
