"""RNN, GRU and LSTM in the forms the backend data leaves out: bidirectional, reverse,
per-batch sequence_lens, initial states, GRU linear_before_reset, LSTM peepholes with clip,
layout 1, every ONNX activation with its alpha and beta, float16 and double, and sizes that
take the packed-weight products (rnn/recurrent_f32.cc).

The oracle is the float64 numpy reference below (the ONNX equations, written
independently of the kernel). float32 runs the float32 engine (products in float32,
activations vectorized, as ONNX Runtime computes): it agrees within 1e-5 absolute + 1e-5
relative on every CPU (the small cases within 1e-6). double runs the double-precision
reference path: within 1e-12. float16 computes in float32 and rounds once at the end:
within 2e-3 absolute + 2e-3 relative (float16's half-ULP near 1 is 4.9e-4, the inputs are
rounded to float16 before the reference sees them). ONNX Runtime is a cross-check only,
within 1e-5 absolute: its float32 GEMM and its sigmoid/tanh approximations differ by a few
ULP between SSE4, AVX2 and AVX-512 kernels."""

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
# ONNX's optional activations: name -> (function of x, alpha, beta; default alpha, beta).
ACTS_AB = {
    "LeakyRelu": (lambda v, a, b: np.where(v >= 0, v, a * v), 0.01, None),
    "ThresholdedRelu": (lambda v, a, b: np.where(v > a, v, 0), 1.0, None),
    "ScaledTanh": (lambda v, a, b: a * np.tanh(b * v), 1.0, 1.0),
    "HardSigmoid": (lambda v, a, b: np.clip(a * v + b, 0, 1), 0.2, 0.5),
    "Elu": (lambda v, a, b: np.where(v >= 0, v, a * np.expm1(np.minimum(v, 0))), 1.0, None),
    "Softsign": (lambda v, a, b: v / (1 + np.abs(v)), None, None),
    "Softplus": (lambda v, a, b: np.logaddexp(0, v), None, None),
    "Affine": (lambda v, a, b: a * v + b, 1.0, 0.0),
}


def activation_functions(names, alphas=(), betas=()):
    """The activations as functions, alpha and beta consumed in order by the activations
    that take them (as ONNX Runtime reads activation_alpha / activation_beta)."""
    alphas, betas, out = list(alphas), list(betas), []
    for name in names:
        if name in ACTS:
            out.append(ACTS[name])
            continue
        fn, a, b = ACTS_AB[name]
        if a is not None and alphas:
            a = alphas.pop(0)
        if b is not None and betas:
            b = betas.pop(0)
        out.append(lambda v, fn=fn, a=a, b=b: fn(v, a, b))
    return out


DEFAULT_ACTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


def reference(
    op,
    feeds,
    hidden,
    direction="forward",
    activations=None,
    clip=0.0,
    activation_alpha=(),
    activation_beta=(),
    **attrs,
):
    """Y [seq, dirs, batch, hidden] and Y_h [dirs, batch, hidden] in float64 (layout 0)."""
    f64 = {k: v.astype(np.float64) for k, v in feeds.items() if k != "sequence_lens"}
    x, w, r, b, h0 = (f64[k] for k in ("X", "W", "R", "B", "initial_h"))
    lens = feeds["sequence_lens"]
    seq, batch, _ = x.shape
    dirs = w.shape[0]
    per_dir = len(DEFAULT_ACTS[op])
    names = activations or DEFAULT_ACTS[op] * dirs
    if len(names) == per_dir and dirs == 2:
        names = names * 2
    all_acts = activation_functions(names, activation_alpha, activation_beta)
    cut = (lambda v: np.clip(v, -clip, clip)) if clip > 0 else (lambda v: v)
    y = np.zeros((seq, dirs, batch, hidden))
    y_h = np.zeros((dirs, batch, hidden))
    for d in range(dirs):
        act = all_acts[d * per_dir : (d + 1) * per_dir]
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


# hidden 25: LSTM's fused cell (Sigmoid, Tanh, Tanh) in one vector and a tail of 9 on
# AVX-512, three and a tail of 1 on AVX2; float32 sums of 28 products: atol 2e-6 and
# rtol 1e-5 there (the Relu RNN's states grow to ~35).
@pytest.mark.parametrize("hidden, atol, rtol", [(5, 2e-7, 1e-6), (25, 2e-6, 1e-5)])
@pytest.mark.parametrize("op,gates,attrs,peep", CASES)
def test_recurrent_matches_float64_reference(op, gates, attrs, peep, hidden, atol, rtol):
    rng = np.random.default_rng(21)
    in_sz, seq, batch = 3, 6, 3
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    model = build(op, gates, hidden, in_sz, dirs, peep, **attrs)
    data = feeds(op, gates, hidden, in_sz, dirs, seq, batch, [6, 2, 4], peep, rng)
    got = onnx_light.RuntimeSession(model).run(None, data)
    want = reference(op, data, hidden, **attrs)
    for g, w, name in zip(got, want, ("Y", "Y_h")):
        assert g.shape == w.shape and g.dtype == np.float32, name
        np.testing.assert_allclose(g, w, atol=atol, rtol=rtol, err_msg=name)
    # The short sequences leave zeros in Y and the last valid state in Y_h.
    assert np.all(got[0][2:, :, 1] == 0)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    ref = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"]).run(None, data)
    for g, w, name in zip(got, ref, ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=rtol, err_msg=f"{name} vs onnxruntime")


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
def test_lstm_full_and_partial_lengths_match_float64_reference(direction):
    """hidden 48 (three 16-lane vectors), full lengths (gate inputs read in place from the
    input projection) and then a zero-length third sequence (the gathered path), both
    against the float64 reference at the float32 tolerance."""
    rng = np.random.default_rng(5)
    hidden, in_sz, seq, batch = 48, 20, 9, 2
    dirs = 2 if direction == "bidirectional" else 1
    model = build("LSTM", 4, hidden, in_sz, dirs, False, direction=direction)
    data = feeds("LSTM", 4, hidden, in_sz, dirs, seq, batch, [seq] * batch, False, rng)
    got = onnx_light.RuntimeSession(model).run(None, data)
    want = reference("LSTM", data, hidden, direction=direction)
    for g, w, name in zip(got, want, ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=1e-5, err_msg=name)
    data3 = feeds("LSTM", 4, hidden, in_sz, dirs, seq, 3, [seq, 4, 0], False, rng)
    got3 = onnx_light.RuntimeSession(model).run(None, data3)
    want3 = reference("LSTM", data3, hidden, direction=direction)
    for g, w, name in zip(got3, want3, ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=1e-5, err_msg=name)
    assert np.all(got3[0][:, :, 2] == 0) and np.all(got3[0][4:, :, 1] == 0)


ACTIVATION_CASES = [
    ("RNN", ["Affine"], [0.5], [0.25]),
    ("RNN", ["LeakyRelu"], [0.3], []),
    ("RNN", ["Elu"], [0.7], []),
    ("RNN", ["Softsign"], [], []),
    ("RNN", ["Softplus"], [], []),
    ("RNN", ["ThresholdedRelu"], [0.2], []),
    ("GRU", ["HardSigmoid", "ScaledTanh"], [0.3, 0.7], [0.4, 1.5]),
    ("GRU", ["Sigmoid", "LeakyRelu"], [0.3], []),  # alpha goes to LeakyRelu, not Sigmoid
    ("LSTM", ["HardSigmoid", "Softsign", "Affine"], [0.25, 2.0], [0.45, -0.1]),
    # No alpha or beta given: ONNX's defaults (Elu 1.0, ScaledTanh 1.0 and 1.0, those of
    # the standalone ops). ONNX Runtime reads a missing alpha as 0 (ScaledTanh(0, 0) = 0,
    # every h zero), so it is not compared on this case.
    ("LSTM", ["Sigmoid", "Elu", "ScaledTanh"], [], []),
]


@pytest.mark.parametrize("op,acts,alphas,betas", ACTIVATION_CASES)
def test_activations_with_alpha_and_beta(op, acts, alphas, betas):
    """Every optional ONNX activation, hidden 21 (a 16-lane vector and a tail), against the
    float64 reference at 1e-5 + 1e-5 relative and against ONNX Runtime at the same
    tolerance (the unbounded activations let the state grow to ~40)."""
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    attrs = {"activations": acts}
    if alphas:
        attrs["activation_alpha"] = alphas
    if betas:
        attrs["activation_beta"] = betas
    rng = np.random.default_rng(len(acts) * 7 + len(alphas))
    hidden, in_sz, seq, batch = 21, 6, 5, 2
    model = build(op, gates, hidden, in_sz, 1, **attrs)
    data = feeds(op, gates, hidden, in_sz, 1, seq, batch, [seq, 3], False, rng)
    got = onnx_light.RuntimeSession(model).run(None, data)
    want = reference(op, data, hidden, **attrs)
    for g, w, name in zip(got, want, ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=1e-5, err_msg=name)
    if len(acts) > 1 and not alphas:
        return
    so = ort.SessionOptions()
    so.log_severity_level = 3
    ref = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"]).run(None, data)
    for g, w, name in zip(got, ref, ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=1e-5, err_msg=f"{name} vs onnxruntime")


def with_layout_1(model_bytes):
    """The same node with layout 1: X [batch, seq, in], Y [batch, seq, dirs, hidden],
    Y_h [batch, dirs, hidden], initial states [batch, dirs, hidden]."""
    m = onnx_light.onnx.ModelProto()
    m.ParseFromString(model_bytes)
    m.graph.node[0].attribute.append(helper.make_attribute("layout", 1))
    return m.SerializeToString()


@pytest.mark.parametrize("op,gates", [("RNN", 1), ("GRU", 3), ("LSTM", 4)])
def test_layout_1_matches_layout_0(op, gates):
    rng = np.random.default_rng(8)
    hidden, in_sz, seq, batch = 17, 7, 6, 3
    model = with_layout_1(build(op, gates, hidden, in_sz, 2, direction="bidirectional"))
    data = feeds(op, gates, hidden, in_sz, 2, seq, batch, [6, 6, 6], False, rng)
    want_y, want_h = reference(op, data, hidden, direction="bidirectional")
    swapped = dict(data)
    swapped["X"] = np.ascontiguousarray(data["X"].transpose(1, 0, 2))
    for k in ("initial_h", "initial_c"):
        if k in data:
            swapped[k] = np.ascontiguousarray(data[k].transpose(1, 0, 2))
    y, y_h = onnx_light.RuntimeSession(model).run(None, swapped)
    assert y.shape == (batch, seq, 2, hidden) and y_h.shape == (batch, 2, hidden)
    np.testing.assert_allclose(y, want_y.transpose(2, 0, 1, 3), atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(y_h, want_h.transpose(1, 0, 2), atol=1e-5, rtol=1e-5)


def retyped(model_bytes, elem):
    m = onnx_light.onnx.ModelProto()
    m.ParseFromString(model_bytes)
    for v in list(m.graph.input) + list(m.graph.output):
        if v.type.tensor_type.elem_type == F:
            v.type.tensor_type.elem_type = elem
    return m.SerializeToString()


@pytest.mark.parametrize(
    "np_type,elem,tol",
    [(np.float64, TensorProto.DOUBLE, 1e-12), (np.float16, TensorProto.FLOAT16, 2e-3)],
)
@pytest.mark.parametrize("op,gates", [("RNN", 1), ("GRU", 3), ("LSTM", 4)])
def test_double_and_float16(op, gates, np_type, elem, tol):
    rng = np.random.default_rng(13)
    hidden, in_sz, seq, batch = 19, 5, 5, 2
    extra = {"linear_before_reset": 1} if op == "GRU" else {}
    model = retyped(build(op, gates, hidden, in_sz, 2, direction="bidirectional", **extra), elem)
    data = feeds(op, gates, hidden, in_sz, 2, seq, batch, [5, 3], False, rng)
    data = {k: v if k == "sequence_lens" else v.astype(np_type) for k, v in data.items()}
    got = onnx_light.RuntimeSession(model).run(None, data)
    want = reference(op, data, hidden, direction="bidirectional", **extra)
    for g, w, name in zip(got, want, ("Y", "Y_h")):
        assert g.dtype == np_type, name
        np.testing.assert_allclose(g.astype(np.float64), w, atol=tol, rtol=tol, err_msg=name)


@pytest.mark.parametrize(
    "op,gates,hidden,in_sz,extra",
    [
        ("LSTM", 4, 256, 256, {}),  # W is 2^18 floats: packed once, like R
        ("GRU", 3, 200, 64, {}),  # R_zr and R_h packed apart, 200 = 12 vectors + a tail
        ("GRU", 3, 128, 300, {"linear_before_reset": 1}),
    ],
)
def test_packed_weights_match_float64_reference(op, gates, hidden, in_sz, extra):
    """Sizes real taggers and audio models use, weights scaled 1/sqrt(hidden) so that the
    gates stay out of saturation, at the float32 tolerance."""
    rng = np.random.default_rng(17)
    seq, batch = 7, 3
    model = build(op, gates, hidden, in_sz, 2, direction="bidirectional", **extra)
    data = feeds(op, gates, hidden, in_sz, 2, seq, batch, [7, 7, 7], False, rng)
    for k in ("W", "R"):
        data[k] = (data[k] * (2 / np.sqrt(data[k].shape[2]))).astype(np.float32)
    got = onnx_light.RuntimeSession(model).run(None, data)
    want = reference(op, data, hidden, direction="bidirectional", **extra)
    for g, w, name in zip(got, want, ("Y", "Y_h")):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=1e-5, err_msg=name)


def l2_bytes() -> int:
    import os

    try:
        v = os.sysconf("SC_LEVEL2_CACHE_SIZE")
    except (ValueError, OSError):
        v = 0
    return v if v > 0 else 1 << 20  # the runtime's own default


@pytest.mark.parametrize("op,gates", [("LSTM", 4), ("GRU", 3)])
def test_bidirectional_steps_split_between_threads(op, gates):
    """A direction's R 1.5x this CPU's L2 (so each of 2 threads' halves fits it): the two
    directions run one after the other with every step's product split between the
    threads. Equal to 1 thread (the same sums per column) and to the float64 reference."""
    hidden = int(np.sqrt(1.5 * l2_bytes() / (4 * gates)))
    rng = np.random.default_rng(29)
    seq, batch, in_sz = 4, 2, 16
    model = build(op, gates, hidden, in_sz, 2, direction="bidirectional")
    data = feeds(op, gates, hidden, in_sz, 2, seq, batch, [4, 3], False, rng)
    for k in ("W", "R"):
        data[k] = (data[k] * (2 / np.sqrt(data[k].shape[2]))).astype(np.float32)
    one = onnx_light.RuntimeSession(model, intra_op_threads=1).run(None, data)
    two = onnx_light.RuntimeSession(model, intra_op_threads=2).run(None, data)
    want = reference(op, data, hidden, direction="bidirectional")
    for a, b, w, name in zip(one, two, want, ("Y", "Y_h")):
        np.testing.assert_allclose(b, a, atol=1e-6, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(b, w, atol=1e-5, rtol=1e-5, err_msg=name)


TINY = np.float32(np.finfo(np.float32).tiny)  # FLT_MIN


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op, gates", [("LSTM", 4), ("GRU", 3), ("RNN", 1)])
def test_states_that_decay_through_subnormals(op, gates, threads):
    """States that shrink by half or more each step (LSTM: forget gate 0.5 and an input
    gate of sigmoid(-80); GRU: update gate 0.5 towards a candidate of tanh(0) = 0 on
    one path of units; RNN: Relu of 0.4 h) pass below FLT_MIN after ~126 steps. The
    recurrence runs with subnormals as zero (rnn/recurrent_f32.cc: a microcode assist per
    gate step otherwise), so the float64 reference is met within FLT_MIN absolute: states
    that the reference keeps subnormal may read 0, no larger ones change. Afterwards the
    calling thread makes subnormals again."""
    hidden, seq = 20, 300
    rng = np.random.default_rng(5)
    f = feeds(op, gates, hidden, 3, 1, seq, 2, [seq, 200], False, rng)
    f["X"] = np.zeros_like(f["X"])
    f["R"] = np.zeros_like(f["R"])
    f["B"] = np.zeros_like(f["B"])
    f["initial_h"] = np.abs(f["initial_h"]) + 1
    attrs, acts = {}, None
    if op == "LSTM":  # i, o, f, c: i = sigmoid(-80), o = 1/2, f = 1/2, c' = tanh(0)
        f["B"][0, :hidden] = -80
        f["initial_c"] = np.abs(f["initial_c"]) + 1
    elif op == "GRU":  # z = 1/2, r = 1/2, candidate tanh(0) = 0: h halves
        pass
    else:  # Relu(0.4 h): R = 0.4 I
        f["R"][0] = 0.4 * np.eye(hidden, dtype=np.float32)
        attrs["activations"] = acts = ["Relu"]
    model = build(op, gates, hidden, 3, 1, **attrs)
    y, y_h = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, f)
    want, want_h = reference(op, f, hidden, activations=acts)
    assert ((np.abs(want) < TINY) & (want != 0)).any()  # the reference does go subnormal
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=float(TINY))
    np.testing.assert_allclose(y_h, want_h, rtol=1e-5, atol=float(TINY))
    assert np.all(y[np.abs(want) >= TINY] != 0)  # only subnormal states flush
    half = TINY * np.float32(0.25)  # numpy, on this thread
    assert 0 < half < TINY
