"""Recurrent layers (kernels/rnn/): the shapes of the taggers, seq2seq encoders and audio
models that run them (batch 1 and batched, hidden 64-256, 32-200 steps), every cell, both
GRU reset forms (PyTorch exports write linear_before_reset=1), one and two directions,
and sequence_lens shorter than the input."""

import numpy as np
from cases import In, OpCase

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def recurrent(op, seq, batch, inp, hidden, direction="forward", lens=None, **attrs):
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[op]
    # Weights as trained layers have them (PyTorch's U(-1/sqrt(H), 1/sqrt(H))): with
    # U(-1, 1) a 128-wide recurrence is chaotic, and float rounding decides its outputs.
    rng = np.random.default_rng(7)

    def weight(*shape):
        return In(shape, const=True, values=rng.uniform(-1, 1, shape) / np.sqrt(hidden))

    inputs = [
        In((seq, batch, inp)),
        weight(dirs, g * hidden, inp),
        weight(dirs, g * hidden, hidden),
        weight(dirs, 2 * g * hidden),
    ]
    if lens is not None:
        inputs.append(In((batch,), np.int32, values=np.array(lens, np.int32)))
    name = f"{op} T={seq} B={batch} I={inp} H={hidden}"
    if direction != "forward":
        name += f" {direction[:5]}"
    for k, v in attrs.items():
        name += f" {k}={v}"
    if lens is not None:
        name += " lens"
    return OpCase(
        name,
        op,
        inputs,
        {"hidden_size": hidden, "direction": direction, **attrs},
        opset=14,
        tol=1e-3,
    )


ROWS = [
    recurrent("LSTM", 32, 1, 64, 128),
    recurrent("LSTM", 100, 1, 128, 256, "bidirectional"),
    recurrent("LSTM", 32, 16, 64, 128),
    recurrent("LSTM", 50, 4, 64, 128, lens=[50, 40, 30, 20]),
    recurrent("GRU", 100, 1, 64, 128, "bidirectional"),
    recurrent("GRU", 200, 1, 80, 256, linear_before_reset=1),
    recurrent("GRU", 50, 8, 64, 64, "reverse"),
    recurrent("RNN", 64, 1, 64, 128),
    recurrent("RNN", 64, 8, 32, 64, "bidirectional"),
]
