"""Recurrent layers (kernels/rnn/)."""

from cases import In, OpCase

ROWS = [
    OpCase(
        "LSTM T=32 B=1 I=64 H=128",
        "LSTM",
        [
            In((32, 1, 64)),
            In((1, 512, 64), const=True),
            In((1, 512, 128), const=True),
            In((1, 1024), const=True),
        ],
        {"hidden_size": 128},
        opset=14,
    ),
]
