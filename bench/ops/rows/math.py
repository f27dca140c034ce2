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
]
