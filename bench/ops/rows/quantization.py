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
