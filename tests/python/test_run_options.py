"""RunOptions: cancelling a run from another thread and bounding it with a timeout. The
model that would run for ever is a Loop of 2^62 trips (with a body of nodes, and with a
body of none: only the Loop's own per-iteration check can stop that one). Each stop is a
RuntimeError naming its code, within a second of the request (the checks are before every
node and iteration; the bound is generous for a loaded machine), and the session runs
normally afterwards."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
FOREVER = 2**62


def loop_model(body_nodes=True):
    """y = x + trips (x + 1 per iteration); the trip count is an input."""
    if body_nodes:
        nodes = [helper.make_node("Add", ["x_in", "one"], ["x_out"])]
        inits = [numpy_helper.from_array(np.array([1.0], np.float32), "one")]
    else:  # the body passes its state through: no node runs inside
        nodes, inits = [], []
    body = helper.make_graph(
        nodes,
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("x_in", F, [1]),
        ],
        [
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("x_out" if body_nodes else "x_in", F, [1]),
        ],
        inits,
    )
    loop = helper.make_node("Loop", ["trips", "", "x"], ["y"], body=body)
    graph = helper.make_graph(
        [loop],
        "g",
        [
            helper.make_tensor_value_info("trips", TensorProto.INT64, []),
            helper.make_tensor_value_info("x", F, [1]),
        ],
        [helper.make_tensor_value_info("y", F, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def feeds(trips):
    return {"trips": np.array(trips, np.int64), "x": np.zeros(1, np.float32)}


def run_in_thread(session, options, trips=FOREVER):
    result = {}

    def target():
        try:
            result["y"] = session.run(None, feeds(trips), run_options=options)
        except Exception as e:  # noqa: BLE001 - the test inspects what was raised
            result["error"] = e
        result["end"] = time.monotonic()

    t = threading.Thread(target=target)
    t.start()
    return t, result


@pytest.mark.parametrize("body_nodes", [True, False], ids=["body", "empty_body"])
def test_terminate_from_another_thread(body_nodes):
    s = onnx_light.RuntimeSession(loop_model(body_nodes))
    options = onnx_light.RunOptions()
    t, result = run_in_thread(s, options)
    time.sleep(0.2)
    assert t.is_alive(), "the endless Loop finished by itself"
    asked = time.monotonic()
    options.terminate = True
    t.join(timeout=10)
    assert not t.is_alive()
    assert isinstance(result.get("error"), RuntimeError)
    assert str(result["error"]).startswith("CANCELLED")
    assert result["end"] - asked < 1.0
    assert options.terminated and options.terminate is True
    # Terminated options stop the next run at once; reset() makes them usable again, and
    # the session was never disturbed.
    with pytest.raises(RuntimeError, match="^CANCELLED"):
        s.run(None, feeds(3), run_options=options)
    options.reset()
    expected = 5.0 if body_nodes else 0.0
    np.testing.assert_array_equal(s.run(None, feeds(5), run_options=options)[0], [expected])
    np.testing.assert_array_equal(s.run(None, feeds(5))[0], [expected])


@pytest.mark.parametrize("body_nodes", [True, False], ids=["body", "empty_body"])
def test_timeout(body_nodes):
    s = onnx_light.RuntimeSession(loop_model(body_nodes))
    options = onnx_light.RunOptions(timeout=0.1)
    assert options.timeout == pytest.approx(0.1)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="^DEADLINE_EXCEEDED"):
        s.run(None, feeds(FOREVER), run_options=options)
    assert 0.1 <= time.monotonic() - start < 1.1
    # The same options serve a run that fits: the timeout counts from each run's start.
    np.testing.assert_array_equal(s.run(None, feeds(4), run_options=options)[0], [4.0 * body_nodes])


def test_one_options_object_stops_concurrent_runs():
    s = onnx_light.RuntimeSession(loop_model())
    options = onnx_light.RunOptions()
    runs = [run_in_thread(s, options) for _ in range(3)]
    time.sleep(0.2)
    options.terminate = True
    for t, result in runs:
        t.join(timeout=10)
        assert not t.is_alive()
        assert str(result["error"]).startswith("CANCELLED")
    # Runs without those options were never affected.
    np.testing.assert_array_equal(s.run(None, feeds(2))[0], [2.0])


def test_options_on_an_ordinary_model():
    x = helper.make_tensor_value_info("x", F, [2])
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [x],
        [helper.make_tensor_value_info("y", F, None)],
    )
    s = onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )
    options = onnx_light.RunOptions(timeout=60)
    got = s.run(None, {"x": np.array([-1, 2], np.float32)}, run_options=options)[0]
    np.testing.assert_array_equal(got, [0, 2])
    options.timeout = None
    assert options.timeout is None


@pytest.mark.parametrize(
    "timeout,error",
    [(-1, ValueError), (0, ValueError), (float("nan"), ValueError), (1e10, ValueError)]
    + [("1", TypeError), (True, TypeError)],
)
def test_bad_timeouts(timeout, error):
    with pytest.raises(error, match="timeout"):
        onnx_light.RunOptions(timeout=timeout)


def test_run_options_of_the_wrong_type():
    s = onnx_light.RuntimeSession(loop_model())
    with pytest.raises(TypeError, match="run_options must be an onnx_light.RunOptions"):
        s.run(None, feeds(1), run_options={"timeout": 1})


def test_terminate_is_orts_bool_attribute_and_misspelt_options_are_errors():
    # ORT's RunOptions.terminate is a bool attribute: `ro.terminate = True` must stop runs,
    # never be an ignored assignment; False makes the options usable again.
    s = onnx_light.RuntimeSession(loop_model())
    options = onnx_light.RunOptions()
    assert options.terminate is False
    options.terminate = True
    with pytest.raises(RuntimeError, match="^CANCELLED"):
        s.run(None, feeds(3), run_options=options)
    options.terminate = False
    np.testing.assert_array_equal(s.run(None, feeds(3), run_options=options)[0], [3.0])
    with pytest.raises(TypeError, match="terminate must be a bool"):
        options.terminate = "yes"
    # ORT's logging fields are kept; anything else is refused.
    options.log_severity_level = 3
    options.logid = "request-7"
    assert (options.log_severity_level, options.logid) == (3, "request-7")
    with pytest.raises(AttributeError):
        options.terminat = True
