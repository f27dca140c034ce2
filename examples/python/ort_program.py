"""A program written for ONNX Runtime, as apps write them: `import onnxruntime`, a GPU
provider first in the list, the model's metadata, ORT's exception classes. Run it on
onnx-light unchanged (docs/ort_drop_in.md):

    python -m onnx_light.ort_compat examples/python/ort_program.py models/default.onnx
"""

import sys

import numpy as np
import onnxruntime as ort
from onnxruntime.capi.onnxruntime_pybind11_state import InvalidArgument

ort.set_default_logger_severity(3)
sess = ort.InferenceSession(
    sys.argv[1], providers=["CUDAExecutionProvider", "CPUExecutionProvider"]
)
print("runs on", sess.get_providers(), "with ORT API", ort.get_version_string())
x = sess.get_inputs()[0]
print("input", x.name, x.type, x.shape)
(y,) = sess.run(None, {x.name: [[-2.0, -0.5, 0.5, 2.0]]})  # a list: converted as ORT does
print("output", y.dtype, [round(v, 3) for v in y[0].tolist()])
try:
    sess.run(None, {x.name: np.zeros((1, 5), np.float32)})
except InvalidArgument as e:
    print("InvalidArgument caught:", str(e).split(",")[0])
