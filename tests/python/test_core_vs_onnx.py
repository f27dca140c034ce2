"""The DataType table against the onnx package (a test oracle only; no library code
imports onnx)."""

import onnx

from onnx_light import _core


def test_data_type_values_and_names_match_onnx_1_22():
    assert onnx.__version__ == "1.22.0"
    ours = {name: value for value, name, _ in _core.data_types()}
    theirs = dict(onnx.TensorProto.DataType.items())
    assert ours == theirs
