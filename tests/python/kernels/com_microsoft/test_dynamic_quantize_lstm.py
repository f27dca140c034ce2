"""com.microsoft DynamicQuantizeLSTM (what ORT's dynamic quantizer makes of an LSTM): 8-bit
W [dirs, input, 4H] and R [dirs, H, 4H], transposed, with scales and zero points per
direction or per gate row. onnx-light computes it as ORT does: X (once) and the hidden state
(at every step) quantized to uint8 as DynamicQuantizeLinear does, exact integer products
with the 8-bit weights, scaled back in float.

Oracle: quantized_reference below, numpy: the quantization in float32 (as the kernel and
DynamicQuantizeLinear round), the integer products in int64, the cell in float32; within
1e-4 absolute + 1e-4 relative (the SIMD sigmoid and tanh are a few ULP from numpy's, and a
hidden value that lands that close to a rounding boundary of its quantization moves by one
step). Also run with the int16 kernel (ONNX_LIGHT_SIMD_TARGET=AVX2, no VNNI). ONNX Runtime is
a cross-check (its zero points must be 0). Limits: weights, scales and zero points must be
constants; a scale of the wrong shape is refused when the session is made."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import onnxruntime as ort
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split() for line in f if line.startswith("flags")), [])
    except OSError:
        return []


VNNI = "avx512_vnni" in cpu_flags() or "avx_vnni" in cpu_flags()


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


def dql(a):
    """DynamicQuantizeLinear in float32: (uint8 codes, scale, zero point)."""
    a = np.asarray(a, np.float32)
    lo, hi = np.float32(min(a.min(), 0)), np.float32(max(a.max(), 0))
    scale = (hi - lo if hi != lo else np.float32(1)) / np.float32(255)
    zp = np.float32(np.round(np.clip(np.float32(0) - lo / scale, 0, 255)))
    return np.clip(np.round(a / scale) + zp, 0, 255).astype(np.uint8), scale, zp


def per_column(v, dirs, g4):
    """A scale or zero point [dirs] or [dirs, 4H] as [dirs, 4H]."""
    v = np.asarray(v)
    return np.broadcast_to(v.reshape(dirs, -1), (dirs, g4))


def quantized_reference(feeds, q, direction):
    """Y, Y_h of the quantized LSTM as ORT computes it (layout 0, full lengths)."""
    x, h0, c0 = feeds["X"], feeds["initial_h"], feeds["initial_c"]
    seq, batch, in_sz = x.shape
    dirs, _, g4 = q["W"].shape
    hidden = g4 // 4
    ws, wz = per_column(q["W_scale"], dirs, g4), per_column(q["W_zero_point"], dirs, g4)
    rs, rz = per_column(q["R_scale"], dirs, g4), per_column(q["R_zero_point"], dirs, g4)
    xq, xs, xz = dql(x.reshape(seq * batch, in_sz))
    y = np.zeros((seq, dirs, batch, hidden), np.float32)
    y_h = np.zeros((dirs, batch, hidden), np.float32)

    def sigmoid(v):
        return (1 / (1 + np.exp(-v.astype(np.float64)))).astype(np.float32)

    for d in range(dirs):
        rev = direction == "reverse" or d == 1
        b = q["B"][d]
        acc = (xq.astype(np.int64) - int(xz)) @ (q["W"][d].astype(np.int64) - wz[d])
        xw = (b[:g4] + b[g4:]) + acc.astype(np.float32) * (xs * ws[d].astype(np.float32))
        xw = xw.reshape(seq, batch, g4)
        h, c = h0[d].copy(), c0[d].copy()
        for step in range(seq):
            t = seq - 1 - step if rev else step
            hq, hs, hz = dql(h)
            acc = (hq.astype(np.int64) - int(hz)) @ (q["R"][d].astype(np.int64) - rz[d])
            g = xw[t] + acc.astype(np.float32) * (hs * rs[d].astype(np.float32))
            i, o, f = (sigmoid(g[:, k * hidden : (k + 1) * hidden]) for k in range(3))
            cc = np.tanh(g[:, 3 * hidden :])
            c = f * c + i * cc
            h = o * np.tanh(c)
            y[t, d] = h
        y_h[d] = h
    return y, y_h


def case(direction, per_channel, mode, seed=17):
    rng = np.random.default_rng(seed)
    dirs = 2 if direction == "bidirectional" else 1
    hidden, in_sz, seq, batch = 24, 40, 7, 2
    model, _ = build(dirs, hidden, in_sz, per_channel, mode, rng, direction=direction)
    feeds = {
        "X": rng.standard_normal((seq, batch, in_sz)).astype(np.float32),
        "initial_h": rng.standard_normal((dirs, batch, hidden)).astype(np.float32) * 0.5,
        "initial_c": rng.standard_normal((dirs, batch, hidden)).astype(np.float32) * 0.5,
    }
    q = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    return model, feeds, q


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("mode", ["sym", "s8", "u8"])
def test_matches_the_quantized_reference(direction, per_channel, mode, threads):
    model, feeds, q = case(direction, per_channel, mode)
    got = onnx_light.RuntimeSession(model.SerializeToString(), intra_op_threads=threads).run(
        None, feeds
    )
    want = quantized_reference(feeds, q, direction)
    for g, w, name in zip(got, want, ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-4, rtol=1e-4, err_msg=name)
    # ORT on one thread computes the same (on more, it quantizes the hidden state of each
    # batch row apart); it accepts zero points of 0 only. Its u8s8 kernels on CPUs without
    # VNNI saturate 16-bit pair sums (a hidden value off by 0.09 on an AVX2 EPYC): no oracle
    # there, the exact reference above is.
    if mode != "sym" or not VNNI:
        return
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    theirs = ort.InferenceSession(
        model.SerializeToString(), so, providers=["CPUExecutionProvider"]
    ).run(None, feeds)
    for g, w in zip(got, theirs):
        np.testing.assert_allclose(g, w, atol=1e-5)


def test_the_int16_kernel_gives_the_same_answer():
    """The products without VNNI (the int16 kernel, packed differently; uint8 weights
    unflipped) against the same reference, in a process capped at AVX2."""
    code = (
        "import json, sys, numpy as np, onnx_light\n"
        "from kernels.com_microsoft.test_dynamic_quantize_lstm import case\n"
        "out = {}\n"
        "for mode in ('sym', 'u8'):\n"
        "    model, feeds, q = case('bidirectional', True, mode)\n"
        "    y, y_h = onnx_light.RuntimeSession(model.SerializeToString()).run(None, feeds)\n"
        "    out[mode] = y.tolist()\n"
        "print(json.dumps(out))\n"
    )
    tests = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    package = os.path.dirname(os.path.dirname(onnx_light.__file__))  # (as conftest.py finds it)
    env = dict(os.environ, ONNX_LIGHT_SIMD_TARGET="AVX2")
    env["PYTHONPATH"] = os.pathsep.join([tests, package, env.get("PYTHONPATH", "")])
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    out = json.loads(run.stdout.strip().splitlines()[-1])
    for mode in ("sym", "u8"):
        _, feeds, q = case("bidirectional", True, mode)
        want, _ = quantized_reference(feeds, q, "bidirectional")
        np.testing.assert_allclose(np.array(out[mode], np.float32), want, atol=1e-4, rtol=1e-4)


def test_a_non_finite_input_takes_the_float_products():
    """X with a NaN has no range to quantize: the float LSTM on the dequantized weights runs
    instead, and NaN reaches the outputs, no crash."""
    model, feeds, _ = case("forward", False, "sym")
    feeds["X"][3, 0, 5] = np.nan
    y, y_h = onnx_light.RuntimeSession(model.SerializeToString()).run(None, feeds)
    # y [seq, dirs, batch, hidden]: batch row 0 from step 3 on, and only it.
    assert np.isnan(y[3:, 0, 0]).all() and np.isfinite(y[:3]).all()
    assert np.isfinite(y[:, 0, 1]).all()
    assert np.isnan(y_h[0, 0]).all() and np.isfinite(y_h[0, 1]).all()


@pytest.mark.parametrize("threads", [1, 2])
def test_the_float_weights_are_made_by_the_first_run_that_needs_them(threads):
    """Runs that quantize never need the dequantized float weights (four times the 8-bit
    weights' size), so the session makes them only when a run does: here one with a
    shorter sequence, which ORT's quantized products do not take. That run is the float
    LSTM on the dequantized weights (oracle: ORT's ai.onnx LSTM on them, float32, 1e-5);
    the runs before and after it quantize and agree with each other exactly."""
    rng = np.random.default_rng(11)
    hidden, in_sz, seq, batch = 24, 40, 7, 2
    model, floats = build(2, hidden, in_sz, False, "sym", rng, direction="bidirectional")
    model.graph.node[0].input[4] = "sequence_lens"
    model.graph.input.append(
        helper.make_tensor_value_info("sequence_lens", TensorProto.INT32, [batch])
    )
    feeds = {
        "X": rng.standard_normal((seq, batch, in_sz)).astype(np.float32),
        "initial_h": rng.standard_normal((2, batch, hidden)).astype(np.float32) * 0.5,
        "initial_c": rng.standard_normal((2, batch, hidden)).astype(np.float32) * 0.5,
        "sequence_lens": np.array([seq, seq], np.int32),
    }
    session = onnx_light.RuntimeSession(model.SerializeToString(), intra_op_threads=threads)
    first = session.run(None, feeds)
    short = dict(feeds, sequence_lens=np.array([seq, seq - 3], np.int32))
    got = session.run(None, short)
    lstm = helper.make_node(
        "LSTM",
        ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c"],
        ["Y", "Y_h"],
        hidden_size=hidden,
        direction="bidirectional",
    )
    graph = helper.make_graph(
        [lstm],
        "float_lstm",
        [helper.make_tensor_value_info(n, F, None) for n in ("X", "initial_h", "initial_c")]
        + [helper.make_tensor_value_info("sequence_lens", TensorProto.INT32, [batch])],
        [helper.make_tensor_value_info(o, F, None) for o in ("Y", "Y_h")],
        [numpy_helper.from_array(v, k) for k, v in floats.items()],
    )
    reference = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    float_lstm = ort.InferenceSession(
        reference.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    for g, w, name in zip(got, float_lstm.run(None, short), ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-5, err_msg=name)
    # The full-length runs quantize: the quantized reference's answer, not the float one.
    q = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    np.testing.assert_allclose(
        first[0], quantized_reference(feeds, q, "bidirectional")[0], atol=1e-4, rtol=1e-4
    )
    assert np.abs(first[0] - float_lstm.run(None, feeds)[0]).max() > 1e-3
    again = session.run(None, feeds)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


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
