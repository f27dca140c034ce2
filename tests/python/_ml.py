"""One-node ai.onnx.ml models, run by onnx-light and by ONNX Runtime (the oracle) and
compared: strings and integers exactly, floats to 1e-6 (relative and absolute; both
runtimes compute these ops in float32, in different orders)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

import onnx_light

ELEM = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.int16): TensorProto.INT16,
    np.dtype(object): TensorProto.STRING,
}


def ml_model(op, feeds, outputs, ml_opset=3, **attrs) -> bytes:
    """A model of one ai.onnx.ml `op` reading `feeds` (name -> array, their types taken as
    the inputs' types) into `outputs` ((name, elem type) pairs)."""
    node = helper.make_node(op, list(feeds), [n for n, _ in outputs], domain="ai.onnx.ml", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(n, ELEM[np.asarray(v).dtype], None)
            for n, v in feeds.items()
        ],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
    )
    m = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", ml_opset)],
    )
    m.ir_version = 8
    return m.SerializeToString()


def ort_has_no_kernel(exc: Exception) -> bool:
    return "Could not find an implementation" in str(exc)


def run_both(model: bytes, feeds: dict, ref=None):
    """onnx-light's and ORT's outputs. Where ORT has no kernel for the node's types (it
    registers fewer than the spec allows: Binarizer and Imputer float only, ...), `ref` (a
    function of the feeds giving the outputs, computed independently with numpy) stands in;
    without one that is an error."""
    import onnxruntime as ort

    light = onnx_light.RuntimeSession(model).run(None, feeds)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    try:
        sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    except Exception as exc:
        if ref is None or not ort_has_no_kernel(exc):
            raise
        return light, ref(**feeds)
    return light, sess.run(None, feeds)


def assert_same(light, ref, rtol=1e-6, atol=1e-6):
    assert len(light) == len(ref)
    for a, b in zip(light, ref):
        b = np.asarray(b)
        assert a.shape == b.shape, (a.shape, b.shape)
        if b.dtype.kind in "OSU":
            assert a.tolist() == b.tolist()
        elif b.dtype.kind == "f":
            assert a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        else:
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def check(op, feeds, outputs, ml_opset=3, rtol=1e-6, atol=1e-6, ref=None, **attrs):
    """onnx-light's outputs equal ORT's (or `ref`'s where ORT has no kernel) for this node
    and feeds; returns onnx-light's."""
    light, ref = run_both(ml_model(op, feeds, outputs, ml_opset, **attrs), feeds, ref)
    assert_same(light, ref, rtol, atol)
    return light


def refused(op, feeds, outputs, message, runs=1, ml_opset=3, **attrs):
    """The node's session refuses `feeds` with a ValueError matching `message`, at each of
    `runs` runs (attribute errors come when the kernel is made, at the first run, and are
    not kept: every run repeats them)."""
    import pytest

    s = onnx_light.RuntimeSession(ml_model(op, feeds, outputs, ml_opset, **attrs))
    for _ in range(runs):
        with pytest.raises(ValueError, match=message):
            s.run(None, feeds)


def strings(*values):
    return np.array(values, dtype=object)


F, D, I64, S = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64, TensorProto.STRING
X = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)  # the transforms' input
NUMERIC = [np.float32, np.float64, np.int64, np.int32]


def as_type(x, t):
    """x scaled to whole numbers for the integer types."""
    return (x * 10).astype(t) if np.dtype(t).kind == "i" else x.astype(t)


def map_of(key, value):
    """The TypeProto of map(key, tensor(value))."""
    return helper.make_map_type_proto(key, helper.make_tensor_type_proto(value, None))


def seq_of_maps(key, value):
    """The TypeProto of seq(map(key, tensor(value)))."""
    return helper.make_sequence_type_proto(map_of(key, value))


def typed_model(op, inputs, outputs, ml_opset=3, **attrs) -> bytes:
    """A model of one ai.onnx.ml `op` with `inputs` and `outputs` given as (name, TypeProto)
    pairs (maps and sequences of maps among them)."""
    node = helper.make_node(
        op, [n for n, _ in inputs], [n for n, _ in outputs], domain="ai.onnx.ml", **attrs
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_value_info(n, t) for n, t in inputs],
        [helper.make_value_info(n, t) for n, t in outputs],
    )
    m = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", ml_opset)],
    )
    m.ir_version = 8
    return m.SerializeToString()


def ort_run(model: bytes, feeds: dict):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"]).run(None, feeds)


def assert_same_dict(a: dict, b: dict, rtol=1e-6, atol=1e-6):
    """Two maps as Python dicts: the same keys (of the same Python types: repr tells an int
    from a numpy integer), values of the same types, equal (floats to the tolerances)."""
    assert sorted(map(repr, a)) == sorted(map(repr, b)), (a, b)
    for k in b:
        x, y = a[k], b[k]
        assert type(x) is type(y), (k, x, y)
        if isinstance(y, float):
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)
        else:
            assert x == y, (k, x, y)
