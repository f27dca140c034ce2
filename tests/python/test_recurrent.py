"""RNN, GRU and LSTM against ONNX Runtime in the forms the backend data leaves out:
bidirectional, reverse, per-batch sequence_lens, initial states, GRU linear_before_reset,
LSTM peepholes with clip. float32 throughout; tolerance 2e-6 absolute (onnx-light computes
in double and rounds once, ORT in float)."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper

F = TensorProto.FLOAT


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


CASES = [
    ("RNN", 1, {"direction": "bidirectional"}, False),
    ("RNN", 1, {"direction": "reverse", "activations": ["Relu"]}, False),
    ("GRU", 3, {"direction": "bidirectional", "linear_before_reset": 1}, False),
    ("GRU", 3, {"direction": "reverse"}, False),
    ("LSTM", 4, {"direction": "bidirectional"}, True),
    ("LSTM", 4, {"direction": "forward", "clip": 0.8, "input_forget": 1}, True),
]


@pytest.mark.parametrize("op,gates,attrs,peep", CASES)
def test_recurrent_matches_onnxruntime(op, gates, attrs, peep):
    rng = np.random.default_rng(21)
    hidden, in_sz, seq, batch = 5, 3, 6, 3
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    model = build(op, gates, hidden, in_sz, dirs, peep, **attrs)
    data = feeds(op, gates, hidden, in_sz, dirs, seq, batch, [6, 2, 4], peep, rng)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    want = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"]).run(None, data)
    got = onnx_light.RuntimeSession(model).run(None, data)
    for g, w, name in zip(got, want, ("Y", "Y_h")):
        assert g.shape == w.shape, name
        np.testing.assert_allclose(g, w, atol=2e-6, rtol=0, err_msg=name)


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
