"""RNN, GRU and LSTM in the forms the backend data leaves out: bidirectional, reverse,
per-batch sequence_lens, initial states, GRU linear_before_reset, LSTM peepholes with clip.

The oracle is the float64 numpy reference below (the ONNX equations, written
independently of the kernel): onnx-light computes in double and rounds once, so float32
outputs agree within 2e-7 absolute + 1e-6 relative on every CPU. ONNX Runtime is a
cross-check only, within 1e-5 absolute: its float32 GEMM and its sigmoid/tanh
approximations differ by a few ULP between SSE4, AVX2 and AVX-512 kernels."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from _graphs import F

import onnx_light
from onnx_light.onnx import TensorProto, helper


def build(op, gates, hidden, in_sz, dirs, peep=False, **attrs):
    names = ["X", "W", "R", "B", "sequence_lens", "initial_h"]
    if op == "LSTM":
        names += ["initial_c", "P"] if peep else ["initial_c"]
    node = helper.make_node(op, names, ["Y", "Y_h"], hidden_size=hidden, **attrs)
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.INT32 if n == "sequence_lens" else F, None)
        for n in names
    ]
    graph = helper.make_graph(
        [node],
        "g",
        inputs,
        [
            helper.make_tensor_value_info("Y", F, None),
            helper.make_tensor_value_info("Y_h", F, None),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]).SerializeToString()


def feeds(op, gates, hidden, in_sz, dirs, seq, batch, lens, peep, rng):
    f = {
        "X": rng.standard_normal((seq, batch, in_sz)).astype(np.float32),
        "W": (rng.standard_normal((dirs, gates * hidden, in_sz)) * 0.5).astype(np.float32),
        "R": (rng.standard_normal((dirs, gates * hidden, hidden)) * 0.5).astype(np.float32),
        "B": (rng.standard_normal((dirs, 2 * gates * hidden)) * 0.1).astype(np.float32),
        "sequence_lens": np.array(lens, np.int32),
        "initial_h": rng.standard_normal((dirs, batch, hidden)).astype(np.float32),
    }
    if op == "LSTM":
        f["initial_c"] = rng.standard_normal((dirs, batch, hidden)).astype(np.float32)
        if peep:
            f["P"] = (rng.standard_normal((dirs, 3 * hidden)) * 0.3).astype(np.float32)
    return f


ACTS = {
    "Sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "Tanh": np.tanh,
    "Relu": lambda v: np.maximum(v, 0),
}
DEFAULT_ACTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


def reference(op, feeds, hidden, direction="forward", activations=None, clip=0.0, **attrs):
    """Y [seq, dirs, batch, hidden] and Y_h [dirs, batch, hidden] in float64 (layout 0)."""
    f64 = {k: v.astype(np.float64) for k, v in feeds.items() if k != "sequence_lens"}
    x, w, r, b, h0 = (f64[k] for k in ("X", "W", "R", "B", "initial_h"))
    lens = feeds["sequence_lens"]
    seq, batch, _ = x.shape
    dirs = w.shape[0]
    per_dir = len(DEFAULT_ACTS[op])
    names = activations or DEFAULT_ACTS[op] * dirs
    cut = (lambda v: np.clip(v, -clip, clip)) if clip > 0 else (lambda v: v)
    y = np.zeros((seq, dirs, batch, hidden))
    y_h = np.zeros((dirs, batch, hidden))
    for d in range(dirs):
        act = [ACTS[a] for a in names[d * per_dir : (d + 1) * per_dir]]
        wb, rb = np.split(b[d], 2)
        for n in range(batch):
            h = h0[d, n].copy()
            c = f64["initial_c"][d, n].copy() if op == "LSTM" else None
            steps = range(lens[n])
            if direction == "reverse" or d == 1:
                steps = reversed(steps)
            for t in steps:
                gx = w[d] @ x[t, n] + wb  # input part of every gate
                gh = r[d] @ h + rb  # recurrent part of every gate
                if op == "RNN":
                    h = act[0](cut(gx + gh))
                elif op == "GRU":
                    zx, rx, hx = np.split(gx, 3)
                    zh, rh, hh = np.split(gh, 3)
                    z = act[0](cut(zx + zh))
                    rg = act[0](cut(rx + rh))
                    if attrs.get("linear_before_reset"):
                        cand = act[1](cut(hx + rg * hh))
                    else:
                        r_h = r[d][2 * hidden :]
                        cand = act[1](cut(hx + r_h @ (rg * h) + rb[2 * hidden :]))
                    h = (1 - z) * cand + z * h
                else:  # LSTM, gates i, o, f, c; peepholes i, o, f
                    ix, ox, fx, cx = np.split(gx + gh, 4)
                    pi, po, pf = np.split(f64["P"][d], 3) if "P" in f64 else (0, 0, 0)
                    i = act[0](cut(ix + pi * c))
                    f = 1 - i if attrs.get("input_forget") else act[0](cut(fx + pf * c))
                    c = f * c + i * act[1](cut(cx))
                    o = act[0](cut(ox + po * c))
                    h = o * act[2](c)
                y[t, d, n] = h
            y_h[d, n] = h
    return y, y_h


CASES = [
    ("RNN", 1, {"direction": "bidirectional"}, False),
    ("RNN", 1, {"direction": "reverse", "activations": ["Relu"]}, False),
    ("GRU", 3, {"direction": "bidirectional", "linear_before_reset": 1}, False),
    ("GRU", 3, {"direction": "reverse"}, False),
    ("LSTM", 4, {"direction": "bidirectional"}, True),
    ("LSTM", 4, {"direction": "forward", "clip": 0.8, "input_forget": 1}, True),
]


@pytest.mark.parametrize("op,gates,attrs,peep", CASES)
def test_recurrent_matches_float64_reference(op, gates, attrs, peep):
    rng = np.random.default_rng(21)
    hidden, in_sz, seq, batch = 5, 3, 6, 3
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    model = build(op, gates, hidden, in_sz, dirs, peep, **attrs)
    data = feeds(op, gates, hidden, in_sz, dirs, seq, batch, [6, 2, 4], peep, rng)
    got = onnx_light.RuntimeSession(model).run(None, data)
    want = reference(op, data, hidden, **attrs)
    for g, w, name in zip(got, want, ("Y", "Y_h")):
        assert g.shape == w.shape and g.dtype == np.float32, name
        np.testing.assert_allclose(g, w, atol=2e-7, rtol=1e-6, err_msg=name)
    # The short sequences leave zeros in Y and the last valid state in Y_h.
    assert np.all(got[0][2:, :, 1] == 0)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    ref = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"]).run(None, data)
    for g, w, name in zip(got, ref, ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=0, err_msg=f"{name} vs onnxruntime")


def test_recurrent_errors():
    model = build("GRU", 3, 5, 3, 1)
    rng = np.random.default_rng(1)
    data = feeds("GRU", 3, 5, 3, 1, 4, 2, [4, 5], False, rng)
    s = onnx_light.RuntimeSession(model)
    with pytest.raises(ValueError, match="sequence length 5 is outside \\[0, 4\\]"):
        s.run(None, data)
    data["sequence_lens"] = np.array([4, 4], np.int32)
    data["W"] = data["W"][:, :, :2]
    with pytest.raises(ValueError, match="W is \\[1, 15, 2\\], expected \\[1, 15, 3\\]"):
        s.run(None, data)


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_lstm_float32_path_matches_float64_reference(direction):
    """Full-length sequences with the default activations, no peepholes and no clip take
    the float32 path (rnn/lstm_f32.cc: the products in float32, sigmoid and tanh
    vectorized, as ONNX Runtime computes), at the float32 tolerance 1e-5 absolute + 1e-5
    relative against the float64 reference; and with the same inputs it agrees with the
    general double-precision path (taken when sequence_lens is not all full) to 1e-5."""
    rng = np.random.default_rng(5)
    hidden, in_sz, seq, batch = 48, 20, 9, 2
    dirs = 2 if direction == "bidirectional" else 1
    model = build("LSTM", 4, hidden, in_sz, dirs, False, direction=direction)
    data = feeds("LSTM", 4, hidden, in_sz, dirs, seq, batch, [seq] * batch, False, rng)
    got = onnx_light.RuntimeSession(model).run(None, data)
    want = reference("LSTM", data, hidden, direction=direction)
    for g, w, name in zip(got, want, ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=1e-5, err_msg=name)
    # A zero-length sequence in a third batch entry sends the node down the general path.
    data3 = feeds("LSTM", 4, hidden, in_sz, dirs, seq, 3, [seq, seq, 0], False, rng)
    general = onnx_light.RuntimeSession(model).run(None, data3)
    data3["sequence_lens"] = np.array([seq, seq, seq], np.int32)
    fast = onnx_light.RuntimeSession(model).run(None, data3)
    np.testing.assert_allclose(fast[0][:, :, :2], general[0][:, :, :2], atol=1e-5, rtol=1e-5)
