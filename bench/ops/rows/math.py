"""Element-wise, matrix-product and normalization-along-an-axis ops (kernels/math/)."""

import numpy as np
from cases import In, OpCase

IMAGE = (1, 64, 56, 56)

ROWS = [
    OpCase("Add [1,64,56,56] + [1,64,1,1]", "Add", [In(IMAGE), In((1, 64, 1, 1), const=True)]),
    OpCase("Mul [1,64,56,56] * same", "Mul", [In(IMAGE), In(IMAGE)]),
    OpCase("Div [256,1024] / scalar", "Div", [In((256, 1024)), In((), values=np.float32(3))]),
    OpCase("Relu [1,64,56,56]", "Relu", [In(IMAGE)]),
    OpCase(
        "PRelu per channel [1000,10,10,10]",
        "PRelu",
        [In((1000, 10, 10, 10)), In((1, 10, 1, 1), const=True)],
    ),
    OpCase("PRelu per channel [1000,32]", "PRelu", [In((1000, 32)), In((32,), const=True)]),
    OpCase("Sigmoid [1,64,56,56]", "Sigmoid", [In(IMAGE)]),
    OpCase("Tanh [256,1024]", "Tanh", [In((256, 1024))]),
    OpCase("Erf [256,1024]", "Erf", [In((256, 1024))]),
    OpCase("Gelu [128,3072]", "Gelu", [In((128, 3072))], opset=20),
    OpCase("Sqrt [256,1024]", "Sqrt", [In((256, 1024), values=np.full((256, 1024), 2.0))]),
    OpCase("Elu [1,128,1,4000] (a dilated TCN's)", "Elu", [In((1, 128, 1, 4000))], {"alpha": 1.0}),
    OpCase("Softplus [256,1024]", "Softplus", [In((256, 1024))]),
    OpCase("Floor [256,1024]", "Floor", [In((256, 1024))]),
    OpCase("Reciprocal [256,1024]", "Reciprocal", [In((256, 1024))]),
    OpCase("Abs [1,64,56,56] float16", "Abs", [In(IMAGE, np.float16)]),
    OpCase("Sigmoid [1,64,56,56] float16", "Sigmoid", [In(IMAGE, np.float16)]),
    OpCase("Pow [256,1024] ^ 2", "Pow", [In((256, 1024)), In((), const=True, values=2.0)]),
    OpCase(
        "Where [1024,1024]", "Where", [In((1024, 1024), np.bool_), In((1024, 1024)), In((1024,))]
    ),
    OpCase("MatMul [128,768] x W[768,768]", "MatMul", [In((128, 768)), In((768, 768), const=True)]),
    OpCase("MatMul [1,768] x W[768,3072]", "MatMul", [In((1, 768)), In((768, 3072), const=True)]),
    OpCase(
        "MatMul batched [12,128,64] x [12,64,128]",
        "MatMul",
        [In((12, 128, 64)), In((12, 64, 128))],
    ),
    OpCase(
        "Gemm [32,512] x W[1000,512]^T + b",
        "Gemm",
        [In((32, 512)), In((1000, 512), const=True), In((1000,), const=True)],
        {"transB": 1},
    ),
    OpCase("Softmax [12,128,128]", "Softmax", [In((12, 128, 128))], {"axis": -1}, opset=13),
    # A CTC speech model's output (wav2vec2-style: 32 letters over 500 frames) and a
    # classifier's 1000 classes.
    OpCase(
        "LogSoftmax [1,500,32] (CTC head)", "LogSoftmax", [In((1, 500, 32))], {"axis": -1}, opset=13
    ),
    OpCase("LogSoftmax [64,1000]", "LogSoftmax", [In((64, 1000))], {"axis": -1}, opset=13),
    OpCase(
        "Softmax axis 1 [1,16,4,2100] (YOLOv8 head)",
        "Softmax",
        [In((1, 16, 4, 2100))],
        {"axis": 1},
        opset=13,
    ),
    OpCase(
        "Einsum bhqd,bhkd->bhqk [1,12,64,64]",
        "Einsum",
        [In((1, 12, 64, 64)), In((1, 12, 64, 64))],
        {"equation": "bhqd,bhkd->bhqk"},
        opset=12,
    ),
    OpCase(
        "Einsum bhqd,bhkd->bhqk [1,12,128,64]",
        "Einsum",
        [In((1, 12, 128, 64)), In((1, 12, 128, 64))],
        {"equation": "bhqd,bhkd->bhqk"},
        opset=12,
    ),
    OpCase(
        "Einsum bct,bcs->bts [1,512,1024] (diffusion UNet attention)",
        "Einsum",
        [In((1, 512, 1024)), In((1, 512, 1024))],
        {"equation": "bct,bcs->bts"},
        opset=12,
    ),
    OpCase(
        "Einsum bts,bcs->bct [1,1024,1024] x [1,512,1024]",
        "Einsum",
        [In((1, 1024, 1024)), In((1, 512, 1024))],
        {"equation": "bts,bcs->bct"},
        opset=12,
    ),
    OpCase(
        "Einsum bqhd,bkhd->bhqk [2,64,8,32] (heads in the middle)",
        "Einsum",
        [In((2, 64, 8, 32)), In((2, 64, 8, 32))],
        {"equation": "bqhd,bkhd->bhqk"},
        opset=12,
    ),
    OpCase(
        "Einsum ij,jk->ik [256,512] x W[512,512]",
        "Einsum",
        [In((256, 512)), In((512, 512), const=True)],
        {"equation": "ij,jk->ik"},
        opset=12,
    ),
    OpCase("Max of 3 [256,1024]", "Max", [In((256, 1024)), In((256, 1024)), In((1024,))], opset=13),
    OpCase(
        "TopK k=10 of [64,1000]",
        "TopK",
        [In((64, 1000)), In((1,), np.int64, values=[10])],
        outputs=2,
        opset=11,
    ),
    OpCase(
        "CumSum [256,1024] axis 1",
        "CumSum",
        [In((256, 1024)), In((), np.int64, values=1)],
        opset=14,
        tol=1e-2,
    ),
    # The element-wise ops of models nobody here tuned for (a sweep for slow generic
    # paths): transcendental, clamping and hard activations, comparisons, logic, the
    # variadic ones, integer math.
    OpCase("Exp [256,1024]", "Exp", [In((256, 1024))]),
    OpCase(
        "Log [256,1024]",
        "Log",
        [In((256, 1024), values=np.linspace(0.1, 4, 256 * 1024).reshape(256, 1024))],
    ),
    OpCase("Sin [256,1024]", "Sin", [In((256, 1024))]),
    OpCase("Cos [256,1024]", "Cos", [In((256, 1024))]),
    OpCase(
        "Clip [1,64,56,56] to [0,6]",
        "Clip",
        [In(IMAGE), In((), const=True, values=0.0), In((), const=True, values=6.0)],
        opset=13,
    ),
    OpCase("HardSigmoid [1,64,56,56]", "HardSigmoid", [In(IMAGE)]),
    OpCase("HardSwish [1,64,56,56]", "HardSwish", [In(IMAGE)]),
    OpCase("LeakyRelu [1,64,56,56]", "LeakyRelu", [In(IMAGE)], {"alpha": 0.1}),
    OpCase("Mish [256,1024]", "Mish", [In((256, 1024))], opset=18),
    OpCase("Neg [256,1024]", "Neg", [In((256, 1024))]),
    OpCase("Sign [256,1024]", "Sign", [In((256, 1024))]),
    OpCase("Round [256,1024]", "Round", [In((256, 1024))]),
    OpCase("IsNaN [256,1024]", "IsNaN", [In((256, 1024))]),
    OpCase("Sub [1,64,56,56] - [64,1,1]", "Sub", [In(IMAGE), In((64, 1, 1), const=True)]),
    OpCase("Max [256,1024] of two", "Max", [In((256, 1024)), In((256, 1024))]),
    OpCase("Min [256,1024] and a row", "Min", [In((256, 1024)), In((1024,))]),
    OpCase("Sum of 3 [256,1024]", "Sum", [In((256, 1024)), In((256, 1024)), In((256, 1024))]),
    OpCase("Mean of 2 [256,1024]", "Mean", [In((256, 1024)), In((256, 1024))]),
    OpCase(
        "Equal int64 [256,1024]", "Equal", [In((256, 1024), np.int64), In((256, 1024), np.int64)]
    ),
    OpCase(
        "Greater [256,1024] > scalar", "Greater", [In((256, 1024)), In((), values=np.float32(0))]
    ),
    OpCase("Less [256,1024] < row", "Less", [In((256, 1024)), In((1024,))]),
    OpCase("And bool [256,1024]", "And", [In((256, 1024), np.bool_), In((256, 1024), np.bool_)]),
    OpCase("Not bool [256,1024]", "Not", [In((256, 1024), np.bool_)]),
    OpCase(
        "Mod int64 [256,1024] % 7",
        "Mod",
        [In((256, 1024), np.int64, lo=-100, hi=100), In((), np.int64, values=7)],
    ),
    OpCase(
        "Add int64 [256,1024] + 1", "Add", [In((256, 1024), np.int64), In((), np.int64, values=1)]
    ),
    OpCase(
        "Mul float16 [256,1024]", "Mul", [In((256, 1024), np.float16), In((256, 1024), np.float16)]
    ),
]

# Every other element-wise kernel, at the [256,1024] of the rows above: inverse and
# hyperbolic functions on inputs in their domains, the remaining activations, comparisons
# that include equality, bitwise and boolean logic, and the small matrix ops.
SHAPE = (256, 1024)
UNIT = np.linspace(-0.99, 0.99, SHAPE[0] * SHAPE[1]).reshape(SHAPE)
ROWS += [
    OpCase(f"{op} [256,1024]", op, [In(SHAPE, values=UNIT)]) for op in ("Acos", "Asin", "Atanh")
]
ROWS += [OpCase(f"{op} [256,1024]", op, [In(SHAPE)]) for op in ("Atan", "Asinh", "Tan", "Ceil")]
ROWS += [
    OpCase("Acosh [256,1024]", "Acosh", [In(SHAPE, values=1.01 + 4 * np.abs(UNIT))]),
    OpCase("Cosh [256,1024]", "Cosh", [In(SHAPE)]),
    OpCase("Sinh [256,1024]", "Sinh", [In(SHAPE)]),
    OpCase("Celu [1,64,56,56]", "Celu", [In(IMAGE)], {"alpha": 1.0}, opset=12),
    OpCase("Selu [1,64,56,56]", "Selu", [In(IMAGE)]),
    OpCase("ThresholdedRelu [1,64,56,56]", "ThresholdedRelu", [In(IMAGE)], {"alpha": 0.2}),
    OpCase("Shrink [256,1024]", "Shrink", [In(SHAPE)], {"lambd": 0.5, "bias": 0.1}),
    OpCase("Softsign [256,1024]", "Softsign", [In(SHAPE)]),
    OpCase("Swish [256,1024]", "Swish", [In(SHAPE)], {"alpha": 1.0}, opset=24),
    OpCase(
        "IsInf [256,1024]",
        "IsInf",
        [In(SHAPE, values=np.where(UNIT > 0.5, np.inf, UNIT))],
        opset=20,
    ),
    OpCase("GreaterOrEqual [256,1024] >= row", "GreaterOrEqual", [In(SHAPE), In((1024,))]),
    OpCase("LessOrEqual [256,1024] <= scalar", "LessOrEqual", [In(SHAPE), In((), values=0.0)]),
    OpCase("Or bool [256,1024]", "Or", [In(SHAPE, np.bool_), In(SHAPE, np.bool_)]),
    OpCase("Xor bool [256,1024] ^ row", "Xor", [In(SHAPE, np.bool_), In((1024,), np.bool_)]),
    OpCase(
        "BitwiseAnd int32 [256,1024]",
        "BitwiseAnd",
        [In(SHAPE, np.int32, lo=-1000, hi=1000), In(SHAPE, np.int32, lo=-1000, hi=1000)],
        opset=18,
    ),
    OpCase(
        "BitwiseOr uint8 [256,1024]",
        "BitwiseOr",
        [In(SHAPE, np.uint8, lo=0, hi=255), In((1024,), np.uint8, lo=0, hi=255)],
        opset=18,
    ),
    OpCase(
        "BitwiseXor int64 [256,1024]",
        "BitwiseXor",
        [In(SHAPE, np.int64, lo=-1000, hi=1000), In((), np.int64, values=0x55)],
        opset=18,
    ),
    OpCase("BitwiseNot int32 [256,1024]", "BitwiseNot", [In(SHAPE, np.int32)], opset=18),
    OpCase(
        "BitShift uint32 [256,1024] << 3",
        "BitShift",
        [In(SHAPE, np.uint32, lo=0, hi=1 << 20), In((), np.uint32, values=3)],
        {"direction": "LEFT"},
    ),
    OpCase(
        "BitShift uint8 [256,1024] >> row",
        "BitShift",
        [In(SHAPE, np.uint8, lo=0, hi=255), In((1024,), np.uint8, lo=0, hi=8)],
        {"direction": "RIGHT"},
    ),
    OpCase("Hardmax [64,1000] last axis", "Hardmax", [In((64, 1000))], {"axis": -1}, opset=13),
    OpCase("Det [4096,3,3]", "Det", [In((4096, 3, 3))], tol=1e-4),
    OpCase(
        "Det [64,32,32] near identity",
        "Det",
        [
            In(
                (64, 32, 32),
                values=np.eye(32) + 0.05 * np.sin(np.arange(64 * 32 * 32)).reshape(64, 32, 32),
            )
        ],
        tol=1e-4,
    ),
    OpCase(
        "CumProd [256,1024] axis 1",
        "CumProd",
        [In(SHAPE, values=1 + UNIT / 1024), In((), np.int64, values=1)],
        opset=26,
    ),
    OpCase(
        "CastLike float->float16 [1024,1024]",
        "CastLike",
        [In((1024, 1024)), In((1,), np.float16, const=True)],
        opset=15,
    ),
    OpCase(
        "NegativeLogLikelihoodLoss mean [64,1000]",
        "NegativeLogLikelihoodLoss",
        [In((64, 1000)), In((64,), np.int64, lo=0, hi=1000)],
        {"reduction": "mean"},
        opset=13,
    ),
    OpCase(
        "SoftmaxCrossEntropyLoss mean [64,1000]",
        "SoftmaxCrossEntropyLoss",
        [In((64, 1000)), In((64,), np.int64, lo=0, hi=1000)],
        {"reduction": "mean"},
        opset=13,
    ),
]
