"""scikit-learn estimators converted with skl2onnx (test-only model makers, like onnx and
onnxruntime), run by onnx-light, by ONNX Runtime and by the estimator itself."""

from __future__ import annotations

import warnings

import numpy as np
from _ml import run_both

TARGET_OPSET = {"": 17, "ai.onnx.ml": 3}


def _ints_not_bools(make_attribute):
    """skl2onnx 1.20 passes HistGradientBoosting's nodes_missing_value_tracks_true as numpy
    bools, which onnx 1.22 refuses in an INTS attribute: made ints here (a fix to the model
    maker, not to the model)."""

    def wrapped(key, value, *args, **kwargs):
        if isinstance(value, (list, tuple)) and any(isinstance(v, (bool, np.bool_)) for v in value):
            value = [int(v) if isinstance(v, (bool, np.bool_)) else v for v in value]
        return make_attribute(key, value, *args, **kwargs)

    return wrapped


def convert(estimator, x: np.ndarray, zipmap: bool = False) -> bytes:
    """The estimator as ONNX bytes; classifiers without ZipMap (labels and a probability
    tensor) unless `zipmap`."""
    from unittest import mock

    import onnx.helper
    from skl2onnx import to_onnx

    # Classifiers without ZipMap, where the converter has the option (LinearSVC has not).
    options = {id(estimator): {"zipmap": zipmap}} if hasattr(estimator, "classes_") else None
    patched = _ints_not_bools(onnx.helper.make_attribute)
    with warnings.catch_warnings(), mock.patch.object(onnx.helper, "make_attribute", patched):
        warnings.simplefilter("ignore")
        try:
            onx = to_onnx(estimator, x[:1], target_opset=TARGET_OPSET, options=options)
        except NameError as exc:  # "Option 'zipmap' not in [...]"
            if "zipmap" not in str(exc):
                raise
            onx = to_onnx(estimator, x[:1], target_opset=TARGET_OPSET)
    return onx.SerializeToString()


def run_converted(estimator, x: np.ndarray, **kw):
    """(onnx-light's outputs, ORT's outputs) for the converted estimator on x."""
    return run_both(convert(estimator, x, **kw), {"X": x})


def ops_of(model: bytes) -> set[str]:
    import onnx

    return {n.op_type for n in onnx.load_from_string(model).graph.node}
