"""Quantize, dequantize and integer products (kernels/quantization/). Integer inputs stay
small, so that no 8-bit product pair saturates ORT's int16 path on AVX2 and the two
runtimes' outputs can be compared exactly."""

import numpy as np
from cases import In, OpCase

IMAGE = (1, 64, 56, 56)

ROWS = [
    OpCase(
        "QuantizeLinear [1,64,56,56] -> uint8",
        "QuantizeLinear",
        [In(IMAGE), In((), const=True, values=0.01), In((), np.uint8, const=True, values=128)],
        opset=13,
        tol=1,
    ),
    OpCase(
        "DequantizeLinear uint8 [1,64,56,56]",
        "DequantizeLinear",
        [
            In(IMAGE, np.uint8, lo=0, hi=255),
            In((), const=True, values=0.01),
            In((), np.uint8, const=True, values=128),
        ],
        opset=13,
    ),
    OpCase(
        "DynamicQuantizeLinear [128,768]",
        "DynamicQuantizeLinear",
        [In((128, 768))],
        opset=11,
        outputs=3,
        tol=1,
    ),
    OpCase(
        "MatMulInteger u8 [128,768] x s8 W[768,768]",
        "MatMulInteger",
        [In((128, 768), np.uint8, lo=0, hi=16), In((768, 768), np.int8, const=True)],
        opset=10,
        tol=0,
    ),
]

# QOperator-format products (a QOperator CNN's and a quantized transformer's), with the
# same small integers; ConvInteger as a dynamically quantized net writes it.
ROWS += [
    OpCase(
        "QLinearConv 3x3 u8 [1,64,56,56] -> 64",
        "QLinearConv",
        [
            In(IMAGE, np.uint8, lo=120, hi=136),
            In((), const=True, values=0.02),
            In((), np.uint8, const=True, values=128),
            In((64, 64, 3, 3), np.int8, const=True),
            In((), const=True, values=0.01),
            In((), np.int8, const=True, values=0),
            In((), const=True, values=0.05),
            In((), np.uint8, const=True, values=128),
            In((64,), np.int32, const=True, lo=-100, hi=100),
        ],
        {"pads": [1, 1, 1, 1]},
        opset=10,
        tol=1,
    ),
    OpCase(
        "QLinearMatMul u8 [128,768] x s8 W[768,768]",
        "QLinearMatMul",
        [
            In((128, 768), np.uint8, lo=120, hi=136),
            In((), const=True, values=0.02),
            In((), np.uint8, const=True, values=128),
            In((768, 768), np.int8, const=True),
            In((), const=True, values=0.01),
            In((), np.int8, const=True, values=0),
            In((), const=True, values=0.05),
            In((), np.uint8, const=True, values=128),
        ],
        opset=10,
        tol=1,
    ),
    OpCase(
        "ConvInteger 3x3 u8 [1,64,56,56] -> 64",
        "ConvInteger",
        [
            In(IMAGE, np.uint8, lo=0, hi=16),
            In((64, 64, 3, 3), np.uint8, const=True, lo=0, hi=16),
            In((), np.uint8, const=True, values=3),
        ],
        {"pads": [1, 1, 1, 1]},
        opset=10,
        tol=0,
    ),
]
