"""The opset-23+ language-model ops (kernels/llm/): Attention, RotaryEmbedding,
RMSNormalization at a 1B-class decoder's prompt sizes, and the opset-27 linear-attention
pair (ORT has no kernel for those yet: their rows show onnx-light's time alone)."""

import numpy as np
from cases import In, OpCase

ROWS = [
    OpCase(
        "Attention causal [1,8,128,64] (opset 23)",
        "Attention",
        [In((1, 8, 128, 64)), In((1, 8, 128, 64)), In((1, 8, 128, 64))],
        {"is_causal": 1},
        opset=23,
        tol=1e-4,
    ),
    OpCase(
        "Attention GQA 16q/4kv [1,16,256,64] (opset 23)",
        "Attention",
        [In((1, 16, 256, 64)), In((1, 4, 256, 64)), In((1, 4, 256, 64))],
        {"is_causal": 1},
        opset=23,
        tol=1e-4,
    ),
    OpCase(
        "RotaryEmbedding [1,16,256,64] (opset 23)",
        "RotaryEmbedding",
        [
            In((1, 16, 256, 64)),
            In((256, 32), const=True),
            In((256, 32), const=True),
            In((1, 256), np.int64, values=np.arange(256)[None, :]),
        ],
        opset=23,
        tol=1e-5,
    ),
    OpCase(
        "RMSNormalization [128,2048] (opset 23)",
        "RMSNormalization",
        [In((128, 2048)), In((2048,), const=True)],
        {"epsilon": 1e-6},
        opset=23,
        tol=1e-5,
    ),
    OpCase(
        "LinearAttention linear 8 heads [1,128,512] (opset 27)",
        "LinearAttention",
        [In((1, 128, 512)), In((1, 128, 512)), In((1, 128, 512))],
        {"update_rule": "linear", "q_num_heads": 8, "kv_num_heads": 8},
        opset=27,
        outputs=2,
        out_types=[1, 1],
    ),
    OpCase(
        "CausalConvWithState k4 silu [1,1024,128] (opset 27)",
        "CausalConvWithState",
        [In((1, 1024, 128)), In((1024, 1, 4), const=True), In((1024,), const=True)],
        {"activation": "silu"},
        opset=27,
        outputs=2,
        out_types=[1, 1],
    ),
]
