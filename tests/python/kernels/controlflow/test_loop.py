"""Loop (src/onnx_light/kernels/controlflow/loop.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, F, I

import onnx_light
from onnx_light.onnx import helper


def test_loop_carried_scan_outputs_and_early_exit():
    # body: s_out = s_in + step (step from the outer graph), scan = s_out * i,
    # cond_out = max(s_out) < limit. Reference computed in Python.
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "step"], ["s_out"]),
            helper.make_node("Cast", ["i"], ["i_f"], to=F),
            helper.make_node("Mul", ["s_out", "i_f"], ["scan"]),
            helper.make_node("ReduceMax", ["s_out"], ["s_max"], keepdims=0),
            helper.make_node("Less", ["s_max", "limit"], ["cond_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", I, []),
            helper.make_tensor_value_info("c", B, []),
            helper.make_tensor_value_info("s_in", F, None),
        ],
        [
            helper.make_tensor_value_info("cond_out", B, None),
            helper.make_tensor_value_info("s_out", F, None),
            helper.make_tensor_value_info("scan", F, None),
        ],
    )
    node = helper.make_node("Loop", ["M", "cond", "s0"], ["s_final", "scans"], body=body)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(n, t, None)
            for n, t in (("M", I), ("cond", B), ("s0", F), ("step", F), ("limit", F))
        ],
        [
            helper.make_tensor_value_info("s_final", F, None),
            helper.make_tensor_value_info("scans", F, None),
        ],
    )
    s = onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )

    def reference(m, s0, step, limit):
        st, scans, cond, i = s0.copy(), [], True, 0
        while i < m and cond:
            st = st + step
            scans.append(st * i)
            cond = bool(st.max() < limit)
            i += 1
        return st, np.array(scans, np.float32).reshape((len(scans),) + s0.shape)

    s0 = np.array([1.0, 2.0], np.float32)
    for m, limit in ((5, 100.0), (10, 6.0), (0, 100.0)):
        feeds = {
            "M": np.array(m),
            "cond": np.array(True),
            "s0": s0,
            "step": np.array([1.0, 1.0], np.float32),
            "limit": np.array(limit, np.float32),
        }
        got = s.run(None, feeds)
        want = reference(m, s0, feeds["step"], limit)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1].reshape(want[1].shape), want[1])
    node_forever = helper.make_node("Loop", ["", "", "s0"], ["s_final", "scans"], body=body)
    graph.node[0].CopyFrom(node_forever)
    forever = onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )
    with pytest.raises(ValueError, match="the loop would not end"):
        forever.run(None, feeds)


def test_body_outputs_sharing_storage_stay_independent():
    # The body returns its new state as the carried value and, through Identity, as a scan
    # output, and a constant of its own through Identity as a second scan output: the
    # outputs share storage within the body's run and are handed out without a copy. The
    # stacked scans, the final state and the constant stay right over runs, and writing
    # into one run's outputs changes nothing in the next.
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "one"], ["s_out"]),
            helper.make_node("Identity", ["s_out"], ["s_scan"]),
            helper.make_node("Identity", ["k"], ["k_scan"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", I, []),
            helper.make_tensor_value_info("c", B, []),
            helper.make_tensor_value_info("s_in", F, None),
        ],
        [
            helper.make_tensor_value_info("c", B, None),
            helper.make_tensor_value_info("s_out", F, None),
            helper.make_tensor_value_info("s_scan", F, None),
            helper.make_tensor_value_info("k_scan", F, None),
        ],
        [
            helper.make_tensor("one", F, [3], [1.0, 1.0, 1.0]),
            helper.make_tensor("k", F, [3], [7.0, 8.0, 9.0]),
        ],
    )
    node = helper.make_node("Loop", ["M", "", "s0"], ["s_final", "states", "ks"], body=body)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in (("M", I), ("s0", F))],
        [helper.make_tensor_value_info(n, F, None) for n in ("s_final", "states", "ks")],
    )
    s = onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )
    s0 = np.array([0.0, 10.0, 20.0], np.float32)
    for _ in range(3):
        final, states, ks = s.run(None, {"M": np.array(4, np.int64), "s0": s0})
        np.testing.assert_array_equal(final, s0 + 4)
        np.testing.assert_array_equal(states, s0 + np.arange(1, 5, dtype=np.float32)[:, None])
        np.testing.assert_array_equal(ks, np.tile(np.float32([7, 8, 9]), (4, 1)))
        final[:] = -1
        states[:] = -1
        ks[:] = -1
