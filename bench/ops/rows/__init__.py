"""The per-op benchmark's rows, by kernel family (src/onnx_light/kernels/<family>/): one
module each, a list ROWS of OpCase. A new op adds its rows to its family's list; a new
family is a new module added here."""

from . import (
    com_microsoft,
    controlflow,
    llm,
    math,
    ml,
    nn,
    quantization,
    reduction,
    rnn,
    sequence,
    signal,
    tensor,
    text,
)

FAMILIES = {
    "math": math.ROWS,
    "nn": nn.ROWS,
    "reduction": reduction.ROWS,
    "tensor": tensor.ROWS,
    "quantization": quantization.ROWS,
    "rnn": rnn.ROWS,
    "com_microsoft": com_microsoft.ROWS,
    "ml": ml.ROWS,
    "llm": llm.ROWS,
    "controlflow": controlflow.ROWS,
    "sequence": sequence.ROWS,
    "signal": signal.ROWS,
    "text": text.ROWS,
}
