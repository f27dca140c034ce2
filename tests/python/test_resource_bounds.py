"""Shape-computing ops refuse an output that does not fit before they allocate it
(docs/robustness.md): each op below is asked, through its inputs or attributes, for an
output of 1 to 4 GiB in a session with a 64 MiB memory budget, and fails at once with
RESOURCE_EXHAUSTED naming the node and the bytes it needed, with no growth of the peak
resident set to speak of; then the same session runs a small request."""

from __future__ import annotations

import os
import resource

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F, I64, U8 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.UINT8
BUDGET = 64 << 20


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def model(nodes, inputs, outputs, inits=(), opset=18):
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in inputs],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        [numpy_helper.from_array(a, n) for n, a in inits],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def i64(*v):
    return np.array(v, np.int64)


def f32(*shape):
    return np.ones(shape, np.float32)


def u8(*shape):
    return np.ones(shape, np.uint8)


def loop_model():
    """Loop whose body emits a 1 MiB scan output per iteration, `n` iterations."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["c"], ["c_out"]),
            helper.make_node("ConstantOfShape", ["shape"], ["row"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", I64, []),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        ],
        [
            helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("row", F, None),
        ],
    )
    return model(
        [helper.make_node("Loop", ["n", "cond"], ["rows"], body=body)],
        [("n", I64), ("cond", TensorProto.BOOL), ("shape", I64)],
        [("rows", F)],
    )


def scan_model():
    """Scan over the rows of x whose body emits a 1 MiB scan output per row."""
    body = helper.make_graph(
        [helper.make_node("ConstantOfShape", ["shape"], ["row"])],
        "body",
        [helper.make_tensor_value_info("x_row", F, None)],
        [helper.make_tensor_value_info("row", F, None)],
    )
    return model(
        [helper.make_node("Scan", ["x"], ["rows"], body=body, num_scan_inputs=1)],
        [("x", F), ("shape", I64)],
        [("rows", F)],
    )


# op name: (model, huge feeds, small feeds)
CASES = {
    "Range": (
        model(
            [helper.make_node("Range", ["a", "b", "d"], ["y"])],
            [("a", I64), ("b", I64), ("d", I64)],
            [("y", I64)],
        ),
        {"a": i64(0), "b": i64(1 << 28), "d": i64(1)},
        {"a": i64(0), "b": i64(5), "d": i64(1)},
    ),
    "ConstantOfShape": (
        model([helper.make_node("ConstantOfShape", ["s"], ["y"])], [("s", I64)], [("y", F)]),
        {"s": i64(1 << 14, 1 << 14)},
        {"s": i64(2, 3)},
    ),
    "Expand": (
        model([helper.make_node("Expand", ["x", "s"], ["y"])], [("x", F), ("s", I64)], [("y", F)]),
        {"x": f32(1), "s": i64(1 << 15, 1 << 14)},
        {"x": f32(1), "s": i64(2, 3)},
    ),
    "Tile": (
        model([helper.make_node("Tile", ["x", "r"], ["y"])], [("x", F), ("r", I64)], [("y", F)]),
        {"x": f32(1, 1), "r": i64(1 << 15, 1 << 14)},
        {"x": f32(1, 1), "r": i64(2, 3)},
    ),
    "Resize": (
        model(
            [helper.make_node("Resize", ["x", "", "sc"], ["y"])],
            [("x", F), ("sc", F)],
            [("y", F)],
        ),
        {"x": f32(1, 1, 4, 4), "sc": np.array([1, 1, 8192, 8192], np.float32)},
        {"x": f32(1, 1, 4, 4), "sc": np.array([1, 1, 2, 2], np.float32)},
    ),
    "Pad": (
        model([helper.make_node("Pad", ["x", "p"], ["y"])], [("x", F), ("p", I64)], [("y", F)]),
        {"x": f32(4), "p": i64(0, 1 << 29)},
        {"x": f32(4), "p": i64(1, 2)},
    ),
    "OneHot": (
        model(
            [helper.make_node("OneHot", ["i", "d", "v"], ["y"])],
            [("i", I64), ("d", I64), ("v", F)],
            [("y", F)],
        ),
        {"i": i64(*range(16)), "d": i64(1 << 25), "v": np.array([0, 1], np.float32)},
        {"i": i64(0, 2), "d": i64(3), "v": np.array([0, 1], np.float32)},
    ),
    "ConvTranspose": (
        model(
            [helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[1 << 13, 1 << 13])],
            [("x", F), ("w", F)],
            [("y", F)],
        ),
        {"x": f32(1, 1, 4, 4), "w": f32(1, 1, 1, 1)},
        None,  # the strides are attributes: no small request in this session
    ),
    "Loop": (
        loop_model(),
        {"n": i64(1024), "cond": np.array(True), "shape": i64(1 << 18)},
        {"n": i64(3), "cond": np.array(True), "shape": i64(4)},
    ),
    "Sum": (  # its broadcast partial sums went around the checks (the node fuzzer: 4 GiB)
        model([helper.make_node("Sum", ["a", "b"], ["y"])], [("a", F), ("b", F)], [("y", F)]),
        {"a": f32(1 << 15, 1), "b": f32(1, 1 << 15)},
        {"a": f32(2, 1), "b": f32(1, 3)},
    ),
    # im2col kernels: a small output whose taps x positions working memory is 1.5-6 GB
    # (the output checks saw nothing; the node fuzzer's budget did not count it).
    "Conv (3-D, im2col)": (
        model([helper.make_node("Conv", ["x", "w"], ["y"])], [("x", F), ("w", F)], [("y", F)]),
        {"x": f32(1, 1, 64, 64, 64), "w": f32(1, 1, 16, 16, 16)},
        {"x": f32(1, 1, 4, 4, 4), "w": f32(1, 1, 2, 2, 2)},
    ),
    # (ConvInteger's and QLinearConv's 2-D path reads the windows in place, a block of
    # pixels at a time, no im2col: their 3-D convolutions still take the im2col path.)
    "ConvInteger (3-D)": (
        model(
            [helper.make_node("ConvInteger", ["x", "w"], ["y"])],
            [("x", U8), ("w", U8)],
            [("y", TensorProto.INT32)],
        ),
        {"x": u8(1, 1, 64, 64, 64), "w": u8(1, 1, 16, 16, 16)},
        {"x": u8(1, 1, 4, 4, 4), "w": u8(1, 1, 2, 2, 2)},
    ),
    "QLinearConv (3-D)": (
        model(
            [helper.make_node("QLinearConv", ["x", "s", "z", "w", "s", "z", "s", "z"], ["y"])],
            [("x", U8), ("w", U8)],
            [("y", U8)],
            inits=[("s", np.array(1, np.float32)), ("z", np.array(0, np.uint8))],
        ),
        {"x": u8(1, 1, 64, 64, 64), "w": u8(1, 1, 16, 16, 16)},
        {"x": u8(1, 1, 4, 4, 4), "w": u8(1, 1, 2, 2, 2)},
    ),
    "Scan": (
        scan_model(),
        {"x": f32(1024, 1), "shape": i64(1 << 18)},
        {"x": f32(3, 1), "shape": i64(4)},
    ),
}


@pytest.mark.parametrize("op", sorted(CASES))
def test_a_huge_output_is_refused_before_it_is_allocated(op):
    m, huge, small = CASES[op]
    s = onnx_light.RuntimeSession(m, memory_budget=BUDGET)
    before = peak_rss_mib()
    with pytest.raises(RuntimeError, match=r"RESOURCE_EXHAUSTED: .*needs \d+ bytes"):
        s.run(None, huge)
    assert peak_rss_mib() - before < 256, "the refused output was allocated first"
    if small is not None:
        assert s.run(None, small)[0].size > 0


@pytest.mark.skipif(
    "libasan" in os.environ.get("LD_PRELOAD", ""),
    reason="under ASan a failed operator new aborts (its report) instead of throwing bad_alloc",
)
def test_an_allocation_too_large_for_the_machine_is_an_error_and_the_session_goes_on():
    # No budget: the 3-D Conv's im2col tap offsets (101^3 positions x 100^3 taps, 8 TB)
    # fail in the allocator. std::bad_alloc comes out of the run as RESOURCE_EXHAUSTED
    # naming the node (it was a MemoryError from the binding, and from C++ an exception).
    m = model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="big")], [("x", F), ("w", F)], [("y", F)]
    )
    s = onnx_light.RuntimeSession(m)
    with pytest.raises(
        RuntimeError, match=r"RESOURCE_EXHAUSTED: node 'big' \(Conv\): out of memory"
    ):
        s.run(None, {"x": f32(1, 1, 200, 200, 200), "w": f32(1, 1, 100, 100, 100)})
    y = s.run(None, {"x": f32(1, 1, 4, 4, 4), "w": f32(1, 1, 2, 2, 2)})[0]
    np.testing.assert_array_equal(y, np.full((1, 1, 3, 3, 3), 8, np.float32))


@pytest.mark.parametrize("budget", [0, BUDGET])
def test_constant_folding_leaves_a_huge_constant_to_the_run(budget):
    # ConstantOfShape of a constant shape [16384, 16384] (1 GiB): folding it at creation,
    # before any run's budget applies, made the C ABI fuzzer's process allocate 4 GB for a
    # model of a few hundred bytes. Folding now stops at 16 MiB and 8 times the inputs'
    # bytes: the session is made at once and the node runs at run time, under the budget.
    m = model(
        [
            helper.make_node("ConstantOfShape", ["s"], ["y"]),
            helper.make_node("Shape", ["y"], ["n"]),
        ],
        [],
        [("n", I64)],
        inits=[("s", i64(1 << 14, 1 << 14))],
    )
    before = peak_rss_mib()
    s = onnx_light.RuntimeSession(m, memory_budget=budget)
    assert peak_rss_mib() - before < 256, "the constant was folded at creation"
    assert s.folded_nodes == 0
    if budget:
        with pytest.raises(RuntimeError, match=r"RESOURCE_EXHAUSTED: .*needs 1073741824 bytes"):
            s.run(None, {})
    # A small one still folds, ConstantOfShape and Shape both.
    small = model(
        [
            helper.make_node("ConstantOfShape", ["s"], ["y"]),
            helper.make_node("Shape", ["y"], ["n"]),
        ],
        [],
        [("n", I64)],
        inits=[("s", i64(64, 64))],
    )
    folded = onnx_light.RuntimeSession(small)
    assert folded.folded_nodes == 2
    np.testing.assert_array_equal(folded.run(None, {})[0], [64, 64])


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool", "Conv"])
def test_pads_and_strides_of_2_to_the_40_do_not_size_a_buffer(op):
    # Pads and strides of 2^40 over a 3 x 3 input: a 3 x 3 output whose middle window is
    # the input. MaxPool's separable path sized a row of every position between two
    # outputs, 2^41 floats (std::bad_alloc); it now scans per output past 4x the width.
    big = 1 << 40
    inputs = [("x", F), ("w", F)] if op == "Conv" else [("x", F)]
    attrs = {} if op == "Conv" else {"kernel_shape": [3, 3]}
    m = model(
        [
            helper.make_node(
                op, [n for n, _ in inputs], ["y"], pads=[big] * 4, strides=[big] * 2, **attrs
            )
        ],
        inputs,
        [("y", F)],
    )
    s = onnx_light.RuntimeSession(m, memory_budget=BUDGET)
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    feeds = {"x": x, "w": np.ones((1, 1, 3, 3), np.float32)} if op == "Conv" else {"x": x}
    before = peak_rss_mib()
    y = s.run(None, feeds)[0]
    assert peak_rss_mib() - before < 256
    assert y.shape == (1, 1, 3, 3)
    assert y[0, 0, 1, 1] == {"MaxPool": 9, "AveragePool": 5, "Conv": 45}[op]


@pytest.mark.parametrize(
    "op, dtype",
    [
        ("MaxPool", np.float32),
        ("AveragePool", np.float32),
        ("LpPool", np.float32),
        ("MaxPool", np.uint8),  # the generic path
    ],
)
def test_a_pool_window_of_2_to_the_40_taps_is_refused_not_run(op, dtype):
    # kernel_shape [1, 2^40] with pads and a stride as large: six outputs, each visiting
    # 2^40 taps, a loop no timeout reaches (it ran past 20 s and on). Refused at once.
    big = 1 << 40
    t = TensorProto.FLOAT if dtype == np.float32 else U8
    m = model(
        [
            helper.make_node(
                op, ["x"], ["y"], kernel_shape=[1, big], pads=[0, big, 0, big], strides=[1, big]
            )
        ],
        [("x", t)],
        [("y", t)],
    )
    s = onnx_light.RuntimeSession(m)
    with pytest.raises(ValueError, match=r"1099511627776-tap window are more than 68719476736"):
        s.run(None, {"x": np.ones((1, 1, 3, 3), dtype)})
    small = model([helper.make_node(op, ["x"], ["y"], kernel_shape=[2, 2])], [("x", t)], [("y", t)])
    y = onnx_light.RuntimeSession(small).run(None, {"x": np.ones((1, 1, 3, 3), dtype)})[0]
    assert y.shape == (1, 1, 2, 2)


def pool_reference(op, x, k, pad, stride, include_pad):
    """Brute force over one row: MaxPool / AveragePool of a [1, 1, 1, W] input, window
    [1, k], pads [0, pad, 0, pad], strides [1, stride]."""
    width = x.shape[-1]
    out = (width + 2 * pad - k) // stride + 1
    y = np.zeros(out)
    for o in range(out):
        taps = [o * stride - pad + t for t in range(k)]
        inside = [x[0, 0, 0, p] for p in taps if 0 <= p < width]
        if op == "MaxPool":
            y[o] = max(inside) if inside else 0
        else:
            y[o] = sum(inside) / (k if include_pad else max(len(inside), 1))
    return y.reshape(1, 1, 1, out)


@pytest.mark.parametrize("stride", [500, 1])  # stride 1: MaxPool's padded-plane path before
@pytest.mark.parametrize("dtype", [np.float32, np.float64])  # the 2-D path, the generic one
@pytest.mark.parametrize(
    "op, include_pad", [("MaxPool", 0), ("AveragePool", 0), ("AveragePool", 1)]
)
def test_a_window_mostly_outside_the_input_visits_only_its_inside_taps(
    op, include_pad, dtype, stride
):
    # The pools now work out which taps of each axis fall inside the input (and inside the
    # padding, for count_include_pad) instead of testing every one: a 1000-tap window over
    # 3 columns gives the brute force's answers. (Before, a kernel_shape of 2^30 cost 2^30
    # steps per output: the node fuzzer's 60 s timeout.)
    t = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    attrs = {"count_include_pad": include_pad} if op == "AveragePool" else {}
    m = model(
        [
            helper.make_node(
                op,
                ["x"],
                ["y"],
                kernel_shape=[1, 1000],
                pads=[0, 999, 0, 999],
                strides=[1, stride],
                **attrs,
            )
        ],
        [("x", t)],
        [("y", t)],
    )
    x = np.array([3, -1, 7], dtype).reshape(1, 1, 1, 3)
    y = onnx_light.RuntimeSession(m).run(None, {"x": x})[0]
    np.testing.assert_allclose(y, pool_reference(op, x, 1000, 999, stride, include_pad), rtol=1e-6)
