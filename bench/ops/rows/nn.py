"""Convolutions, pooling, normalization layers and resizing (kernels/nn/)."""

import numpy as np
from cases import In, OpCase

IMAGE = (1, 64, 56, 56)

ROWS = [
    OpCase(
        "Conv 3x3 [1,64,56,56] -> 64",
        "Conv",
        [In(IMAGE), In((64, 64, 3, 3), const=True), In((64,), const=True)],
        {"pads": [1, 1, 1, 1]},
    ),
    OpCase(
        "Conv 1x1 [1,256,28,28] -> 64",
        "Conv",
        [In((1, 256, 28, 28)), In((64, 256, 1, 1), const=True), In((64,), const=True)],
    ),
    # Small images: a ResNet's last 3x3 stage, and a Keras Conv1D over 400 short windows
    # (DeepCut: 14 positions each into 200 filters).
    OpCase(
        "Conv 3x3 [1,512,7,7] -> 512",
        "Conv",
        [In((1, 512, 7, 7)), In((512, 512, 3, 3), const=True), In((512,), const=True)],
        {"pads": [1, 1, 1, 1]},
    ),
    OpCase(
        "Conv 1x8 [400,32,1,21] -> 200",
        "Conv",
        [In((400, 32, 1, 21)), In((200, 32, 1, 8), const=True), In((200,), const=True)],
    ),
    # A classifier head on a pooled 1x1 image (MobileNetV3: 512 -> 1280): a product with
    # one vector, bound by reading the weights.
    OpCase(
        "Conv 1x1 [1,512,1,1] -> 1280",
        "Conv",
        [In((1, 512, 1, 1)), In((1280, 512, 1, 1), const=True), In((1280,), const=True)],
    ),
    OpCase(
        "Conv depthwise 3x3 [1,128,56,56]",
        "Conv",
        [In((1, 128, 56, 56)), In((128, 1, 3, 3), const=True), In((128,), const=True)],
        {"pads": [1, 1, 1, 1], "group": 128},
    ),
    # The small planes of MobileNet-family classifiers (PP-LCNet, MobileNetV3): rows
    # narrower than a vector, 3x3 and 5x5, stride 1 and 2.
    OpCase(
        "Conv depthwise 3x3 [1,256,14,14]",
        "Conv",
        [In((1, 256, 14, 14)), In((256, 1, 3, 3), const=True), In((256,), const=True)],
        {"pads": [1, 1, 1, 1], "group": 256},
    ),
    OpCase(
        "Conv depthwise 5x5 [1,512,7,7]",
        "Conv",
        [In((1, 512, 7, 7)), In((512, 1, 5, 5), const=True), In((512,), const=True)],
        {"pads": [2, 2, 2, 2], "group": 512},
    ),
    OpCase(
        "Conv depthwise 3x3 s2 [1,128,28,28]",
        "Conv",
        [In((1, 128, 28, 28)), In((128, 1, 3, 3), const=True), In((128,), const=True)],
        {"pads": [1, 1, 1, 1], "group": 128, "strides": [2, 2]},
    ),
    OpCase(
        "Conv 3x3 s2 [1,3,224,224] -> 32",
        "Conv",
        [In((1, 3, 224, 224)), In((32, 3, 3, 3), const=True), In((32,), const=True)],
        {"pads": [1, 1, 1, 1], "strides": [2, 2]},
    ),
    OpCase(
        "ConvTranspose 4x4 s2 [1,64,28,28] -> 32",
        "ConvTranspose",
        [In((1, 64, 28, 28)), In((64, 32, 4, 4), const=True)],
        {"pads": [1, 1, 1, 1], "strides": [2, 2]},
    ),
    OpCase(
        "MaxPool 3x3 s2 [1,64,112,112]",
        "MaxPool",
        [In((1, 64, 112, 112))],
        {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
    ),
    OpCase(
        "MaxPool 2x2 s2 [1000,10,10,10]",
        "MaxPool",
        [In((1000, 10, 10, 10))],
        {"kernel_shape": [2, 2], "strides": [2, 2]},
    ),
    OpCase(
        "MaxPool 2x2 s2 [1,64,112,112]",
        "MaxPool",
        [In((1, 64, 112, 112))],
        {"kernel_shape": [2, 2], "strides": [2, 2]},
    ),
    OpCase(
        "MaxPool 13x13 s1 [1,192,13,13] (SPP)",
        "MaxPool",
        [In((1, 192, 13, 13))],
        {"kernel_shape": [13, 13], "pads": [6, 6, 6, 6]},
    ),
    OpCase(
        "AveragePool 2x2 [1,64,56,56]",
        "AveragePool",
        [In(IMAGE)],
        {"kernel_shape": [2, 2], "strides": [2, 2]},
    ),
    # Inception's pooling branch (count_include_pad off: ONNX's default) and an audio
    # model's 1-D pool.
    OpCase(
        "AveragePool 3x3 s1 pad1 [1,192,35,35]",
        "AveragePool",
        [In((1, 192, 35, 35))],
        {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
    ),
    OpCase(
        "MaxPool 1-D k3 s2 [4,128,1000]",
        "MaxPool",
        [In((4, 128, 1000))],
        {"kernel_shape": [3], "strides": [2], "pads": [1, 1]},
    ),
    OpCase("GlobalAveragePool [1,512,7,7]", "GlobalAveragePool", [In((1, 512, 7, 7))]),
    OpCase(
        "BatchNormalization [1,64,56,56]",
        "BatchNormalization",
        [In(IMAGE)]
        + [In((64,), const=True) for _ in range(3)]
        + [In((64,), const=True, values=np.full(64, 0.5))],
        opset=15,
    ),
    OpCase(
        "LayerNormalization [128,768]",
        "LayerNormalization",
        [In((128, 768)), In((768,), const=True), In((768,), const=True)],
        {"axis": -1},
    ),
    OpCase(
        "InstanceNormalization [1,64,56,56]",
        "InstanceNormalization",
        [In(IMAGE), In((64,), const=True), In((64,), const=True)],
    ),
    OpCase(
        "Resize linear x2 [1,64,56,56]",
        "Resize",
        [In(IMAGE), None, In((4,), const=True, values=[1, 1, 2, 2])],
        {"mode": "linear"},
        opset=13,
    ),
    OpCase(
        "Resize nearest x2 [1,64,56,56]",
        "Resize",
        [In(IMAGE), None, In((4,), const=True, values=[1, 1, 2, 2])],
        {"mode": "nearest"},
        opset=13,
    ),
    # Shapes from models nobody here tuned for: a SegFormer/DPT-style decoder upsample by
    # sizes, a bicubic ViT position-embedding interpolation, and an NHWC (tf2onnx) resize.
    OpCase(
        "Resize linear sizes [1,256,32,32] -> 128x128",
        "Resize",
        [
            In((1, 256, 32, 32)),
            None,
            None,
            In((4,), np.int64, const=True, values=[1, 256, 128, 128]),
        ],
        {"mode": "linear"},
        opset=13,
    ),
    OpCase(
        "Resize cubic [1,768,14,14] -> 24x24",
        "Resize",
        [In((1, 768, 14, 14)), None, None, In((4,), np.int64, const=True, values=[1, 768, 24, 24])],
        {"mode": "cubic", "cubic_coeff_a": -0.75},
        opset=13,
    ),
    OpCase(
        "Resize linear NHWC x2 [1,56,56,64]",
        "Resize",
        [In((1, 56, 56, 64)), None, In((4,), const=True, values=[1, 2, 2, 1])],
        {"mode": "linear"},
        opset=13,
    ),
    # (a sweep: the other normalizations, sampling and detection ops)
    OpCase(
        "GroupNormalization 32 groups [1,256,32,32] (diffusion UNet)",
        "GroupNormalization",
        [In((1, 256, 32, 32)), In((256,), const=True), In((256,), const=True)],
        {"num_groups": 32},
        opset=21,
        out_types=[1],
    ),
    OpCase("LRN size 5 [1,96,55,55] (AlexNet)", "LRN", [In((1, 96, 55, 55))], {"size": 5}),
    OpCase(
        "LpNormalization p2 [256,1024]", "LpNormalization", [In((256, 1024))], {"axis": -1, "p": 2}
    ),
    OpCase("MeanVarianceNormalization [1,64,56,56]", "MeanVarianceNormalization", [In(IMAGE)]),
    OpCase(
        "GridSample bilinear [1,64,56,56] by [1,56,56,2]",
        "GridSample",
        [In(IMAGE), In((1, 56, 56, 2))],
        {"mode": "linear"},
        opset=20,
    ),
    OpCase("GlobalMaxPool [1,512,7,7]", "GlobalMaxPool", [In((1, 512, 7, 7))]),
    OpCase(
        "Dropout [256,1024] (inference)",
        "Dropout",
        [In((256, 1024))],
        opset=13,
    ),
]
_NMS_BOXES = np.random.default_rng(1).uniform(0, 1, (1, 2000, 4)).astype(np.float32)
_NMS_BOXES[..., 2:] = _NMS_BOXES[..., :2] + 0.1
ROWS.append(
    OpCase(
        "NonMaxSuppression 2000 boxes x 80 classes",
        "NonMaxSuppression",
        [
            In((1, 2000, 4), values=_NMS_BOXES),
            In((1, 80, 2000)),
            In((1,), np.int64, const=True, values=[100]),
            In((1,), const=True, values=[0.5]),
            In((1,), const=True, values=[0.0]),
        ],
    )
)

# The remaining nn kernels: Lp pooling, unpooling, the image <-> column pair and the
# sampling grid of spatial transformers.
ROWS += [
    OpCase(
        "LpPool p=2 3x3 s2 [1,64,56,56]",
        "LpPool",
        [In(IMAGE)],
        {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "p": 2},
        opset=18,
    ),
    OpCase(
        "MaxUnpool 2x2 s2 [1,64,28,28] -> 56x56",
        "MaxUnpool",
        [
            In((1, 64, 28, 28)),
            In(
                (1, 64, 28, 28),
                np.int64,
                values=(
                    np.arange(64)[:, None, None] * 56 * 56
                    + (2 * np.arange(28))[:, None] * 56
                    + 2 * np.arange(28)[None, :]
                ).reshape(1, 64, 28, 28),
            ),
        ],
        {"kernel_shape": [2, 2], "strides": [2, 2]},
        opset=11,
    ),
    OpCase(
        "Col2Im 3x3 [1,576,3136] -> [1,64,56,56]",
        "Col2Im",
        [
            In((1, 64 * 9, 56 * 56)),
            In((2,), np.int64, const=True, values=[56, 56]),
            In((2,), np.int64, const=True, values=[3, 3]),
        ],
        {"pads": [1, 1, 1, 1]},
        opset=18,
        tol=1e-5,
    ),
    OpCase(
        "AffineGrid [8,2,3] -> [8,128,128,2]",
        "AffineGrid",
        [In((8, 2, 3)), In((4,), np.int64, const=True, values=[8, 3, 128, 128])],
        {"align_corners": 0},
        opset=20,
        tol=1e-5,
    ),
]
