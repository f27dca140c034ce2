"""com.microsoft DynamicQuantizeLSTM (what ORT's dynamic quantizer makes of an LSTM): 8-bit
W [dirs, input, 4H] and R [dirs, H, 4H], transposed, with scales and zero points per
direction or per gate row. onnx-light dequantizes them once and runs the float LSTM.

Oracle: the float64 numpy LSTM of tests/python/kernels/rnn/test_recurrent.py on the
dequantized weights (float32 tolerance 1e-5 absolute + 1e-5 relative). ONNX Runtime is a
cross-check only, within 0.05 absolute: it also quantizes X and the hidden state to uint8
at every product. Limits: weights, scales and zero points must be constants; a scale of
the wrong shape is refused when the session is made."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from kernels.rnn.test_recurrent import reference

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def quantize(w, per_channel, mode):
    """w [dirs, 4H, cols] float -> (q [dirs, cols, 4H], scale, zero point, dequantized w).
    mode: "sym" (int8, zero point 0: what ORT's quantizer writes and ORT accepts), "s8" or
    "u8" (asymmetric, a zero point from the range)."""
    axes = (2,) if per_channel else (1, 2)
    lo = np.minimum(w.min(axis=axes), 0)
    hi = np.maximum(w.max(axis=axes), 0)
    qmin, qmax, dtype = (0, 255, np.uint8) if mode == "u8" else (-128, 127, np.int8)
    if mode == "sym":
        scale = (np.maximum(-lo, hi) / 127).astype(np.float32)
        zp = np.zeros(scale.shape, dtype)
    else:
        scale = ((hi - lo) / (qmax - qmin)).astype(np.float32)
        zp = np.clip(np.round(qmin - lo / scale), qmin, qmax).astype(dtype)
    s = scale[:, :, None] if per_channel else scale[:, None, None]
    z = zp[:, :, None] if per_channel else zp[:, None, None]
    q = np.clip(np.round(w / s) + z.astype(np.int32), qmin, qmax).astype(dtype)
    deq = ((q.astype(np.int32) - z.astype(np.int32)) * s).astype(np.float32)
    return np.ascontiguousarray(q.transpose(0, 2, 1)), scale, zp, deq


def build(dirs, hidden, in_sz, per_channel, mode, rng, *, outputs=("Y", "Y_h"), **attrs):
    w = (rng.standard_normal((dirs, 4 * hidden, in_sz)) * 0.4).astype(np.float32)
    r = (rng.standard_normal((dirs, 4 * hidden, hidden)) * 0.4).astype(np.float32)
    wq, ws, wz, wd = quantize(w, per_channel, mode)
    rq, rs, rz, rd = quantize(r, per_channel, mode)
    b = (rng.standard_normal((dirs, 8 * hidden)) * 0.1).astype(np.float32)
    inits = [
        numpy_helper.from_array(wq, "W"),
        numpy_helper.from_array(rq, "R"),
        numpy_helper.from_array(b, "B"),
        numpy_helper.from_array(ws, "W_scale"),
        numpy_helper.from_array(wz, "W_zero_point"),
        numpy_helper.from_array(rs, "R_scale"),
        numpy_helper.from_array(rz, "R_zero_point"),
    ]
    names = ["X", "W", "R", "B", "", "initial_h", "initial_c", ""]
    names += ["W_scale", "W_zero_point", "R_scale", "R_zero_point"]
    node = helper.make_node(
        "DynamicQuantizeLSTM",
        names,
        list(outputs),
        domain="com.microsoft",
        hidden_size=hidden,
        **attrs,
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, F, None) for n in ("X", "initial_h", "initial_c")],
        [helper.make_tensor_value_info(o, F, None) for o in outputs if o],
        inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 14), helper.make_opsetid("com.microsoft", 1)],
    )
    return model, {"W": wd, "R": rd, "B": b}


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("mode", ["sym", "s8", "u8"])
def test_matches_the_float_lstm_on_the_dequantized_weights(direction, per_channel, mode):
    rng = np.random.default_rng(17)
    dirs = 2 if direction == "bidirectional" else 1
    hidden, in_sz, seq, batch = 24, 40, 7, 2
    model, weights = build(dirs, hidden, in_sz, per_channel, mode, rng, direction=direction)
    feeds = {
        "X": rng.standard_normal((seq, batch, in_sz)).astype(np.float32),
        "initial_h": rng.standard_normal((dirs, batch, hidden)).astype(np.float32) * 0.5,
        "initial_c": rng.standard_normal((dirs, batch, hidden)).astype(np.float32) * 0.5,
    }
    got = onnx_light.RuntimeSession(model.SerializeToString()).run(None, feeds)
    data = dict(feeds, **weights)
    data["sequence_lens"] = np.full(batch, seq, np.int32)
    want = reference("LSTM", data, hidden, direction=direction)
    for g, w, name in zip(got, want, ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=1e-5, err_msg=name)
    # ORT quantizes the activations too: close, not equal (a transposed or mis-scaled
    # weight would be far off). It accepts zero points of 0 only.
    if mode != "sym":
        return
    theirs = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for g, w in zip(got, theirs.run(None, feeds)):
        np.testing.assert_allclose(g, w, atol=0.05)


def test_outputs_may_be_left_out():
    rng = np.random.default_rng(3)
    model, _ = build(1, 8, 5, False, "sym", rng, outputs=("", "Y_h", "Y_c"))
    feeds = {
        "X": rng.standard_normal((4, 1, 5)).astype(np.float32),
        "initial_h": np.zeros((1, 1, 8), np.float32),
        "initial_c": np.zeros((1, 1, 8), np.float32),
    }
    y_h, y_c = onnx_light.RuntimeSession(model.SerializeToString()).run(None, feeds)
    assert y_h.shape == (1, 1, 8) and y_c.shape == (1, 1, 8)


def test_weights_must_be_constants():
    rng = np.random.default_rng(4)
    model, _ = build(1, 8, 5, False, "sym", rng)
    # W becomes a graph input.
    w = next(t for t in model.graph.initializer if t.name == "W")
    model.graph.input.append(helper.make_tensor_value_info("W", TensorProto.INT8, list(w.dims)))
    model.graph.initializer.remove(w)
    feeds = {
        "X": np.zeros((2, 1, 5), np.float32),
        "initial_h": np.zeros((1, 1, 8), np.float32),
        "initial_c": np.zeros((1, 1, 8), np.float32),
        "W": np.zeros(list(w.dims), np.int8),
    }
    with pytest.raises(RuntimeError, match="W, its scale and its zero point must be constants"):
        onnx_light.RuntimeSession(model.SerializeToString()).run(None, feeds)


def test_a_scale_of_the_wrong_shape_is_refused():
    rng = np.random.default_rng(5)
    model, _ = build(1, 8, 5, False, "sym", rng)
    for t in model.graph.initializer:
        if t.name == "R_scale":
            t.CopyFrom(numpy_helper.from_array(np.ones(3, np.float32), "R_scale"))
    feeds = {
        "X": np.zeros((2, 1, 5), np.float32),
        "initial_h": np.zeros((1, 1, 8), np.float32),
        "initial_c": np.zeros((1, 1, 8), np.float32),
    }
    with pytest.raises(ValueError, match=r"R's scale must be \[1\] or \[1, 32\], got \[3\]"):
        onnx_light.RuntimeSession(model.SerializeToString()).run(None, feeds)
    # The process is still usable.
    good, _ = build(1, 8, 5, False, "sym", rng)
    assert onnx_light.RuntimeSession(good.SerializeToString()).run(None, feeds)[1].shape == (
        1,
        1,
        8,
    )
