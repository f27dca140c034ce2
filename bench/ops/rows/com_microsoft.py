"""com.microsoft contrib ops, the ones ORT's optimizer, quantizers and saved graphs write
(kernels/com_microsoft/). Shapes of a BERT-base layer: 128 tokens, hidden 768, FFN 3072."""

import numpy as np
from cases import In, OpCase

MS = "com.microsoft"
FFN = (1, 128, 3072)
HIDDEN = (1, 128, 768)

ROWS = [
    OpCase("Gelu [1,128,3072]", "Gelu", [In(FFN)], domain=MS, opset=1, out_types=[1]),
    OpCase(
        "BiasGelu [1,128,3072]",
        "BiasGelu",
        [In(FFN), In((3072,), const=True)],
        domain=MS,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "FastGelu +bias [1,128,3072]",
        "FastGelu",
        [In(FFN), In((3072,), const=True)],
        domain=MS,
        opset=1,
        out_types=[1],
    ),
    OpCase("QuickGelu [1,128,3072]", "QuickGelu", [In(FFN)], domain=MS, opset=1, out_types=[1]),
    OpCase(
        "SkipLayerNormalization [1,128,768] +bias",
        "SkipLayerNormalization",
        [In(HIDDEN), In(HIDDEN)] + [In((768,), const=True) for _ in range(3)],
        {"epsilon": 1e-5},
        domain=MS,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "SkipSimplifiedLayerNormalization [1,128,768]",
        "SkipSimplifiedLayerNormalization",
        [In(HIDDEN), In(HIDDEN), In((768,), const=True)],
        {"epsilon": 1e-6},
        domain=MS,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "SimplifiedLayerNormalization [128,768]",
        "SimplifiedLayerNormalization",
        [In((128, 768)), In((768,), const=True)],
        {"epsilon": 1e-6},
        out_types=[1],
    ),
    OpCase(
        "FusedMatMul Q@K^T/8 [1,12,128,64]",
        "FusedMatMul",
        [In((1, 12, 128, 64)), In((1, 12, 128, 64))],
        {"alpha": 0.125, "transB": 1},
        domain=MS,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "FusedGemm Relu [128,768]x[768,768]",
        "FusedGemm",
        [In((128, 768)), In((768, 768), const=True), In((768,), const=True)],
        {"activation": "Relu"},
        domain=MS,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "FusedConv Relu 3x3 [1,64,56,56] -> 64",
        "FusedConv",
        [In((1, 64, 56, 56)), In((64, 64, 3, 3), const=True), In((64,), const=True)],
        {"pads": [1, 1, 1, 1], "activation": "Relu"},
        domain=MS,
        opset=1,
        out_types=[1],
    ),
    *[
        OpCase(
            f"MatMulNBits 4-bit [{m},2048]x[2048,2048] block 32"
            + (", accuracy_level 4 (int8 A)" if level == 4 else ""),
            "MatMulNBits",
            [
                In((m, 2048)),
                In((2048, 64, 16), np.uint8, const=True, lo=0, hi=256),
                In((2048 * 64,), const=True),
                In((2048 * 32,), np.uint8, const=True, lo=0, hi=256),
            ],
            {"K": 2048, "N": 2048, "bits": 4, "block_size": 32}
            | ({"accuracy_level": 4} if level == 4 else {}),
            domain=MS,
            opset=1,
            out_types=[1],
            # level 4: both round A to int8 per block (outputs ~200; float32 sums apart)
            tol=1e-1,
        )
        for level, m in ((0, 1), (0, 64), (4, 1), (4, 16), (4, 64), (4, 128))
    ],
    *[
        OpCase(
            f"GroupQueryAttention decode 32 heads/8 kv, past {past}",
            "GroupQueryAttention",
            [
                In((1, 1, 32 * 64)),
                In((1, 1, 8 * 64)),
                In((1, 1, 8 * 64)),
                In((1, 8, past, 64)),
                In((1, 8, past, 64)),
                In((1,), np.int32, values=[past]),
                In((), np.int32, values=past + 1),
            ],
            {"num_heads": 32, "kv_num_heads": 8},
            domain=MS,
            opset=1,
            outputs=3,
            out_types=[1, 1, 1],
        )
        for past in (16, 512)
    ],
    *[
        OpCase(
            f"DecoderMaskedMultiHeadAttention GPT-2 step, 4 {what}, past 512 of 1024",
            "DecoderMaskedMultiHeadAttention",
            [
                In((4, 1, 768)),
                In((4, 1, 768)),
                In((4, 1, 768)),
                In((4, 513), np.int32, lo=1, hi=2),
                None,
                In((4, 12, 1024, 64)),
                In((4, 12, 1024, 64)),
                In((1,), np.int32, values=[512]),
            ]
            + (
                [In((1,), np.int32, values=[4]), In((1, 4, 1024), np.int32, lo=0, hi=4)]
                if what == "beams"
                else []
            ),
            {"num_heads": 12, "past_present_share_buffer": 1},
            domain=MS,
            opset=1,
            outputs=3,
            out_types=[1, 1, 1],
        )
        for what in ("sequences", "beams")
    ],
]

QROWS = []

U8 = np.uint8


def _q(v, dtype=np.float32):
    """A constant scale or zero point."""
    return In((), dtype, const=True, values=v)


def _quantized(name, op, inputs, attrs=None, out_type=2, tol=1):
    """A com.microsoft row with one output of ONNX element type `out_type` (2: uint8),
    compared within `tol` (one output code by default)."""
    return OpCase(name, op, inputs, attrs or {}, domain=MS, opset=1, out_types=[out_type], tol=tol)


IMG = (1, 64, 56, 56)
QROWS += [
    _quantized(
        "QLinearAdd u8 [1,64,56,56]",
        "QLinearAdd",
        [
            In(IMG, U8, lo=0, hi=256),
            _q(0.05),
            _q(128, U8),
            In(IMG, U8, lo=0, hi=256),
            _q(0.04),
            _q(120, U8),
            _q(0.08),
            _q(125, U8),
        ],
    ),
    _quantized(
        "QLinearMul u8 [1,64,56,56]",
        "QLinearMul",
        [
            In(IMG, U8, lo=0, hi=256),
            _q(0.05),
            _q(128, U8),
            In(IMG, U8, lo=0, hi=256),
            _q(0.04),
            _q(120, U8),
            _q(0.3),
            _q(125, U8),
        ],
    ),
    _quantized(
        "QLinearSigmoid u8 [1,64,56,56]",
        "QLinearSigmoid",
        [In(IMG, U8, lo=0, hi=256), _q(0.05), _q(128, U8), _q(1 / 256), _q(0, U8)],
    ),
    _quantized(
        "QLinearLeakyRelu u8 [1,64,56,56]",
        "QLinearLeakyRelu",
        [In(IMG, U8, lo=0, hi=256), _q(0.05), _q(128, U8), _q(0.04), _q(100, U8)],
        {"alpha": 0.1},
    ),
    _quantized(
        "QLinearSoftmax u8 [128,1000]",
        "QLinearSoftmax",
        [In((128, 1000), U8, lo=0, hi=256), _q(0.1), _q(128, U8), _q(1 / 256), _q(0, U8)],
        {"axis": -1, "opset": 13},
    ),
    _quantized(
        "QLinearGlobalAveragePool u8 [1,256,14,14]",
        "QLinearGlobalAveragePool",
        [In((1, 256, 14, 14), U8, lo=0, hi=256), _q(0.05), _q(128, U8), _q(0.05), _q(128, U8)],
    ),
    _quantized(
        "QLinearAveragePool 3x3 u8 [1,64,56,56]",
        "QLinearAveragePool",
        [In(IMG, U8, lo=0, hi=256), _q(0.05), _q(128, U8), _q(0.05), _q(128, U8)],
        {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
    ),
    _quantized(
        "QLinearConcat u8 2x[1,64,56,56]",
        "QLinearConcat",
        [
            _q(0.05),
            _q(128, U8),
            In(IMG, U8, lo=0, hi=256),
            _q(0.04),
            _q(120, U8),
            In(IMG, U8, lo=0, hi=256),
            _q(0.05),
            _q(128, U8),
        ],
        {"axis": 1},
    ),
    _quantized(
        "QGemm u8s8 [128,768]x[768,768] -> u8",
        "QGemm",
        [
            In((128, 768), U8, lo=0, hi=256),
            _q(0.02),
            _q(128, U8),
            In((768, 768), np.int8, const=True, lo=-63, hi=64),
            _q(0.01),
            _q(0, np.int8),
            None,
            _q(0.5),
            _q(128, U8),
        ],
    ),
    _quantized(
        "DynamicQuantizeMatMul [128,768]x[768,768]",
        "DynamicQuantizeMatMul",
        [In((128, 768)), In((768, 768), np.int8, const=True, lo=-63, hi=64), _q(0.01)],
        out_type=1,
        tol=0.1,
    ),
    _quantized(
        "QLinearConv NHWC 3x3 u8 [1,56,56,64] -> 64",
        "QLinearConv",
        [
            In((1, 56, 56, 64), U8, lo=0, hi=256),
            _q(0.05),
            _q(128, U8),
            In((64, 64, 3, 3), np.int8, const=True, lo=-63, hi=64),
            _q(0.01),
            _q(0, np.int8),
            _q(0.5),
            _q(128, U8),
        ],
        {"pads": [1, 1, 1, 1], "channels_last": 1},
    ),
    _quantized(
        "NhwcMaxPool 3x3 s2 u8 [1,112,112,64]",
        "NhwcMaxPool",
        [In((1, 112, 112, 64), U8, lo=0, hi=256)],
        {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
        tol=0,
    ),
    OpCase(
        "RotaryEmbedding [1,128,32*64]",
        "RotaryEmbedding",
        [
            In((1, 128, 2048)),
            In((1,), np.int64, values=[0]),
            In((256, 32), const=True),
            In((256, 32), const=True),
        ],
        {"num_heads": 32},
        domain=MS,
        opset=1,
        out_types=[1],
    ),
]

# DynamicQuantizeLSTM: the LSTM row of rnn.py with int8 weights (transposed, zero points 0,
# as ORT's quantizer writes them and ORT accepts). ORT also quantizes X and the hidden
# state, so the outputs agree to 0.05.
QROWS.append(
    _quantized(
        "DynamicQuantizeLSTM T=32 B=1 I=64 H=128",
        "DynamicQuantizeLSTM",
        [
            In((32, 1, 64)),
            In((1, 64, 512), np.int8, const=True, lo=-63, hi=64),
            In((1, 128, 512), np.int8, const=True, lo=-63, hi=64),
            In((1, 1024), const=True),
            None,
            None,
            None,
            None,
            In((1,), const=True, values=np.array([0.01], np.float32)),
            In((1,), np.int8, const=True, values=np.array([0], np.int8)),
            In((1,), const=True, values=np.array([0.01], np.float32)),
            In((1,), np.int8, const=True, values=np.array([0], np.int8)),
        ],
        {"hidden_size": 128},
        out_type=1,
        tol=0.05,
    )
)

ROWS += QROWS

# The transformer contrib ops ORT's optimizer and quantizer write (BERT-base layer), the
# GenAI builder's 4-bit embedding gather, and the remaining quantized kernels.
S8 = np.int8
EMB = [In((768,), const=True), In((768,), const=True)]
ROWS += [
    OpCase(
        "Attention packed QKV [1,128,768] 12 heads",
        "Attention",
        [In(HIDDEN), In((768, 2304), const=True, values=None), In((2304,), const=True)],
        {"num_heads": 12},
        domain=MS,
        opset=1,
        out_types=[1],
        tol=1e-4,
    ),
    OpCase(
        "MultiHeadAttention [1,128,768] 12 heads",
        "MultiHeadAttention",
        [In(HIDDEN), In(HIDDEN), In(HIDDEN)],
        {"num_heads": 12},
        domain=MS,
        opset=1,
        out_types=[1],
        tol=1e-4,
    ),
    _quantized(
        "QAttention u8s8 [1,128,768] 12 heads",
        "QAttention",
        [
            In(HIDDEN, U8, lo=120, hi=136),
            In((768, 2304), S8, const=True, lo=-8, hi=8),
            In((2304,), const=True),
            _q(0.05),
            _q(0.01),
            None,
            _q(128, U8),
            _q(0, S8),
        ],
        {"num_heads": 12},
        out_type=1,
        tol=1e-3,
    ),
    OpCase(
        "EmbedLayerNormalization [1,128] ids, vocab 8000",
        "EmbedLayerNormalization",
        [
            In((1, 128), np.int32, lo=0, hi=8000),
            In((1, 128), np.int32, lo=0, hi=2),
            In((8000, 768), const=True),
            In((512, 768), const=True),
            In((2, 768), const=True),
        ]
        + EMB,
        {"epsilon": 1e-12},
        domain=MS,
        opset=1,
        outputs=2,
        out_types=[1, 6],
        tol=1e-4,
    ),
    OpCase(
        "QEmbedLayerNormalization [1,128] ids, vocab 8000",
        "QEmbedLayerNormalization",
        [
            In((1, 128), np.int32, lo=0, hi=8000),
            In((1, 128), np.int32, lo=0, hi=2),
            In((8000, 768), U8, const=True, lo=0, hi=256),
            In((512, 768), U8, const=True, lo=0, hi=256),
            In((2, 768), U8, const=True, lo=0, hi=256),
            In((768,), U8, const=True, lo=0, hi=256),
            In((768,), U8, const=True, lo=0, hi=256),
            None,
        ]
        + [_q(0.01) for _ in range(5)]
        + [_q(128, U8) for _ in range(5)],
        {"epsilon": 1e-12},
        domain=MS,
        opset=1,
        outputs=2,
        out_types=[1, 6],
        tol=1e-4,
    ),
    OpCase(
        "GatherBlockQuantized int4 [8000,2048] by [1,128] (GenAI embedding)",
        "GatherBlockQuantized",
        [
            In((8000, 1024), U8, const=True, lo=0, hi=256),
            In((1, 128), np.int64, lo=0, hi=8000),
            In((8000, 64), const=True),
        ],
        {"bits": 4, "block_size": 32, "gather_axis": 0, "quantize_axis": 1},
        domain=MS,
        opset=1,
        out_types=[1],
        tol=1e-5,
    ),
    OpCase(
        "MatMulIntegerToFloat u8s8 [128,768] x W[768,768] + bias",
        "MatMulIntegerToFloat",
        [
            In((128, 768), U8, lo=120, hi=136),
            In((768, 768), S8, const=True, lo=-63, hi=64),
            _q(0.02),
            In((1,), const=True, values=[0.01]),
            _q(128, U8),
            In((1,), S8, const=True, values=[0]),
            In((768,), const=True),
        ],
        domain=MS,
        opset=1,
        out_types=[1],
        tol=1e-3,
    ),
    _quantized(
        "QLinearWhere u8 [1024,1024]",
        "QLinearWhere",
        [
            In((1024, 1024), np.bool_),
            In((1024, 1024), U8, lo=0, hi=256),
            _q(0.05),
            _q(128, U8),
            In((1024,), U8, lo=0, hi=256),
            _q(0.04),
            _q(120, U8),
            _q(0.05),
            _q(128, U8),
        ],
    ),
    _quantized(
        "QuantizeLinear (ms) [1,64,56,56] -> uint16",
        "QuantizeLinear",
        [In(IMG), _q(0.001), _q(32768, np.uint16)],
        out_type=4,
    ),
    _quantized(
        "DequantizeLinear (ms) int8 [1,64,56,56]",
        "DequantizeLinear",
        [In(IMG, S8, lo=-128, hi=128), _q(0.01), _q(3, S8)],
        out_type=1,
        tol=1e-6,
    ),
    OpCase(
        "TransposeMatMul A^T [768,128] x W[768,768]",
        "TransposeMatMul",
        [In((768, 128)), In((768, 768), const=True)],
        {"transA": 1},
        domain=MS,
        opset=1,
        out_types=[1],
        tol=1e-3,
    ),
]
