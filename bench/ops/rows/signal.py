"""Signal processing (kernels/signal/): DFT and STFT at a speech front end's sizes, the
window generators and the mel filter bank."""

import numpy as np
from cases import In, OpCase

ROWS = [
    OpCase(
        "DFT onesided 512 of [16,512,1]",
        "DFT",
        [In((16, 512, 1)), None, In((), np.int64, values=1)],
        {"onesided": 1},
        opset=20,
        tol=1e-3,
    ),
    OpCase(
        "DFT 400 (not a power of 2) of [16,400,2]",
        "DFT",
        [In((16, 400, 2)), None, In((), np.int64, values=1)],
        opset=20,
        # ORT's direct transform of a length that is not a power of two is 3.6e-3 from
        # numpy's float64 FFT here (onnx-light's 1.9e-6): the tolerance is ORT's error.
        tol=5e-3,
    ),
    OpCase(
        "STFT 1 s at 16 kHz, frame 512 step 160, Hann",
        "STFT",
        [
            In((1, 16000, 1)),
            In((), np.int64, values=160),
            In((512,), const=True, values=np.hanning(512)),
        ],
        {"onesided": 1},
        opset=17,
        tol=1e-3,
    ),
    OpCase("HannWindow 4096", "HannWindow", [In((), np.int64, values=4096)], opset=17, tol=1e-6),
    OpCase(
        "HammingWindow 4096", "HammingWindow", [In((), np.int64, values=4096)], opset=17, tol=1e-6
    ),
    OpCase(
        "BlackmanWindow 4096", "BlackmanWindow", [In((), np.int64, values=4096)], opset=17, tol=1e-6
    ),
    OpCase(
        "MelWeightMatrix 80 bins, dft 512, 16 kHz",
        "MelWeightMatrix",
        [
            In((), np.int64, values=80),
            In((), np.int64, values=512),
            In((), np.int64, values=16000),
            In((), values=np.float32(0)),
            In((), values=np.float32(8000)),
        ],
        opset=17,
        tol=1e-6,
    ),
]
