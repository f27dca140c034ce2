"""Pad (src/onnx_light/kernels/tensor/pad.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32, session


def test_pad_modes_against_numpy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    pads = np.array([1, 2, 2, 1])
    for mode, np_mode in (("reflect", "reflect"), ("edge", "edge"), ("wrap", "wrap")):
        (y,) = session("Pad", [("a", F), ("p", I)], mode=mode, opset=19).run(
            None, {"a": x, "p": pads}
        )
        np.testing.assert_array_equal(y, np.pad(x, ((1, 2), (2, 1)), mode=np_mode), err_msg=mode)


BAD_INPUTS = [
    (
        "Pad",
        [("a", F), ("p", I)],
        {},
        {"a": f32(2, 3), "p": np.array([1, 1])},
        "pads has 2 values, expected 4",
    ),
    (
        "Pad",
        [("a", F), ("p", I)],
        {},
        {"a": f32(2, 3), "p": np.array([0, -2, 0, -2])},
        "below zero",
    ),
    (
        "Pad",
        [("a", F), ("p", I)],
        {"mode": "reflect"},
        {"a": f32(1, 3), "p": np.array([1, 0, 0, 0])},
        "reflect needs at least 2",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


def pad_session(mode, elem, threads, with_value):
    import onnx_light
    from onnx_light.onnx import helper

    ins = ["a", "p", "v"] if with_value else ["a", "p"]
    node = helper.make_node("Pad", ins, ["y"], mode=mode)
    inputs = [helper.make_tensor_value_info("a", elem, None)]
    inputs.append(helper.make_tensor_value_info("p", I, None))
    if with_value:
        inputs.append(helper.make_tensor_value_info("v", elem, None))
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", elem, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    return onnx_light.RuntimeSession(model, intra_op_threads=threads)


PAD_DTYPES = [np.float32, np.int8, np.uint16, np.int64, np.float64, np.bool_]


@pytest.mark.parametrize("dtype", PAD_DTYPES)
@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "wrap"])
@pytest.mark.parametrize("threads", [1, 2])
def test_pad_rows_split_between_threads_every_mode_and_width(dtype, mode, threads):
    """Outputs big enough for their rows to be split between threads (part boundaries inside
    the padded and the cropped planes), pads on every axis, one negative (a crop), a
    constant of each element width (1, 2, 4, 8 bytes): equal to numpy's np.pad exactly."""
    from onnx_light.onnx import helper

    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    rng = np.random.default_rng(11)
    x = (rng.integers(0, 100, (2, 5, 37, 19)) % (2 if dtype is np.bool_ else 100)).astype(dtype)
    begin, end = [1, 0, 3, 2], [0, 2, -2, 4]
    pads = np.array(begin + end)
    value = np.array(1 if dtype is np.bool_ else 7, dtype)
    s = pad_session(mode, elem, threads, mode == "constant")
    feeds = {"a": x, "p": pads} | ({"v": value} if mode == "constant" else {})
    (y,) = s.run(None, feeds)
    widths = [(b, max(e, 0)) for b, e in zip(begin, end)]
    kw = {"constant_values": value} if mode == "constant" else {}
    want = np.pad(x, widths, mode=mode, **kw)[:, :, :-2, :]  # the crop: after the pads
    np.testing.assert_array_equal(y, want)


def test_pad_strings_constant_and_edge():
    x = np.array([["a", "bb"], ["ccc", "d"]], dtype=object)
    (y,) = pad_session("constant", 8, 1, True).run(
        None, {"a": x, "p": np.array([1, 0, 0, 1]), "v": np.array("z", dtype=object)}
    )
    assert y.tolist() == [["z", "z", "z"], ["a", "bb", "z"], ["ccc", "d", "z"]]
    (y,) = pad_session("edge", 8, 2, False).run(None, {"a": x, "p": np.array([0, 1, 0, 0])})
    assert y.tolist() == [["a", "a", "bb"], ["ccc", "ccc", "d"]]
