"""Regression tests for what the structure-aware tests/fuzz/node_fuzzer.cc found
(docs/robustness.md): each single-node model made the process hit undefined behaviour or
crash before the fix, and is now a defined result or a clear error. Each case then runs a
good input in the same session. References are exact (numpy's wrapping integer
arithmetic) or the ONNX definition."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto

F, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
INT64_MIN = np.iinfo(np.int64).min


def session(op, inputs, outputs, opset=18, **attrs):
    return onnx_light.RuntimeSession(node_model(op, inputs, outputs, opset=opset, **attrs))


def test_reduce_l1_of_int64_min_wraps_like_twos_complement():
    # |INT64_MIN| is not an int64: it was a signed overflow; it wraps to itself, as numpy's.
    s = session("ReduceL1", [("x", I64)], [("y", I64)], keepdims=0)
    x = np.array([[INT64_MIN, 1], [-3, 4]], np.int64)
    with np.errstate(over="ignore"):
        want = np.abs(x).sum(dtype=np.int64)
    assert s.run(None, {"x": x})[0] == want
    assert s.run(None, {"x": np.array([-2, 3], np.int64)})[0] == 5


def test_dynamic_quantize_of_an_infinity_is_an_error():
    # An infinite input made the scale infinite and inf/inf a NaN cast to an integer.
    s = session(
        "DynamicQuantizeLinear",
        [("x", F)],
        [("y", TensorProto.UINT8), ("s", F), ("z", TensorProto.UINT8)],
    )
    for bad in (np.inf, -np.inf):
        x = np.array([0.0, 1.0, bad], np.float32)
        with pytest.raises(ValueError, match="contains an infinity, which has no finite range"):
            s.run(None, {"x": x})
    y, scale, zp = s.run(None, {"x": np.array([0.0, 2.55, -2.55], np.float32)})
    assert scale == pytest.approx(5.1 / 255) and zp == 128
    np.testing.assert_array_equal(y, [128, 255, 0])


@pytest.mark.parametrize("b_type", [np.uint8, np.int8])
def test_integer_matmul_over_an_empty_inner_dimension_is_zeros(b_type):
    # K = 0 asked Highway for a zero-byte panel, which aborts the process.
    onnx_b = TensorProto.UINT8 if b_type == np.uint8 else TensorProto.INT8
    s = session("MatMulInteger", [("a", TensorProto.UINT8), ("b", onnx_b)], [("y", I32)])
    y = s.run(None, {"a": np.zeros((2, 0), np.uint8), "b": np.zeros((0, 3), b_type)})[0]
    np.testing.assert_array_equal(y, np.zeros((2, 3), np.int32))
    a = np.array([[1, 2], [3, 4]], np.uint8)
    b = np.array([[1, 0, 2], [0, 1, 3]], b_type)
    y = s.run(None, {"a": a, "b": b})[0]
    np.testing.assert_array_equal(y, a.astype(np.int32) @ b.astype(np.int32))


@pytest.mark.parametrize("k", [2**63 - 1, INT64_MIN, 3, -2])
def test_eye_like_with_a_diagonal_beyond_the_matrix(k):
    # i + k overflowed int64 for k near the extremes; a diagonal outside is all zeros.
    s = session("EyeLike", [("x", F)], [("y", F)], k=k)
    np.testing.assert_array_equal(
        s.run(None, {"x": np.zeros((2, 3), np.float32)})[0], np.eye(2, 3, k=k if abs(k) < 4 else 9)
    )


def test_integer_reduce_l2_whose_sum_of_squares_overflows():
    # The wrapped sum went negative and its square root (NaN) was cast to int32.
    s = session("ReduceL2", [("x", I32)], [("y", I32)], keepdims=0)
    x = np.array([50000, 50000], np.int32)  # 5e9: wraps modulo 2^32
    want = np.int32(np.floor(np.sqrt(float(np.uint32((2 * 50000**2) % 2**32)))))
    assert s.run(None, {"x": x})[0] == want
    assert s.run(None, {"x": np.array([3, 4], np.int32)})[0] == 5


@pytest.mark.parametrize("axis", [2**63 - 1, INT64_MIN, 5])
def test_legacy_broadcast_axis_at_the_int64_extremes(axis):
    # Opset-6 broadcasting computed axis + rank(B), which overflowed for INT64_MAX.
    s = session("Add", [("a", F), ("b", F)], [("y", F)], opset=6, broadcast=1, axis=axis)
    a, b = np.ones((2, 3), np.float32), np.ones(3, np.float32)
    with pytest.raises(ValueError, match="does not fit A"):
        s.run(None, {"a": a, "b": b})
    s = session("Add", [("a", F), ("b", F)], [("y", F)], opset=6, broadcast=1, axis=1)
    np.testing.assert_array_equal(s.run(None, {"a": a, "b": b})[0], a + b)


@pytest.mark.parametrize("op", ["DepthToSpace", "SpaceToDepth"])
def test_depth_space_blocksize_whose_square_overflows(op):
    # blocksize * blocksize overflowed int64.
    s = session(op, [("x", F)], [("y", F)], blocksize=2**62)
    with pytest.raises(ValueError, match="blocksize\\^2 overflows int64"):
        s.run(None, {"x": np.ones((1, 4, 2, 2), np.float32)})
    s = session(op, [("x", F)], [("y", F)], blocksize=2)
    want = (1, 1, 4, 4) if op == "DepthToSpace" else (1, 16, 1, 1)
    assert s.run(None, {"x": np.ones((1, 4, 2, 2), np.float32)})[0].shape == want


@pytest.mark.parametrize("dtype", [np.uint64, np.int64])
def test_upsample_of_64_bit_integers_at_their_maximum(dtype):
    # Upsample (Resize's kernel) interpolated in doubles; the maximum rounds to 2^64 or
    # 2^63, and the clamp to it still cast out of range.
    elem = TensorProto.UINT64 if dtype == np.uint64 else I64
    s = session("Upsample", [("x", elem), ("scales", F)], [("y", elem)], opset=9, mode="linear")
    top = np.iinfo(dtype).max
    scales = np.array([1, 1, 1, 2], np.float32)
    y = s.run(None, {"x": np.full((1, 1, 1, 2), top, dtype), "scales": scales})[0]
    np.testing.assert_array_equal(y, np.full((1, 1, 1, 4), top, dtype))
    y = s.run(None, {"x": np.array([[[[0, 4]]]], dtype), "scales": scales})[0]
    np.testing.assert_array_equal(y, np.array([[[[0, 2, 4, 4]]]], dtype))


@pytest.mark.parametrize(
    "attrs", [{"strides": [2**62]}, {"pads": [2**63 - 1, 2**63 - 1]}, {"pads": [0, 2**62]}]
)
def test_max_unpool_sizes_from_attributes_that_overflow(attrs):
    # (d - 1) * stride - pads + kernel overflowed int64 (all of it but d is the model's).
    s = session(
        "MaxUnpool", [("x", F), ("i", I64)], [("y", F)], opset=11, kernel_shape=[2], **attrs
    )
    x, i = np.ones((1, 1, 3), np.float32), np.array([[[0, 2, 4]]], np.int64)
    with pytest.raises(
        ValueError, match="unpooled size of spatial axis 0 overflows int64 or is negative"
    ):
        s.run(None, {"x": x, "i": i})
    s = session(
        "MaxUnpool", [("x", F), ("i", I64)], [("y", F)], opset=11, kernel_shape=[2], strides=[2]
    )
    np.testing.assert_array_equal(s.run(None, {"x": x, "i": i})[0], [[[1, 0, 1, 0, 1, 0]]])


@pytest.mark.parametrize("n", [3, 5, 12, 100, 257, 1000])
def test_dft_of_lengths_that_are_not_powers_of_two(n):
    # Such lengths took a direct O(n^2) sum: a DFT with a large prime dft_length ran for
    # hours. Bluestein's algorithm now; numpy's FFT is the reference (float64, 1e-9).
    s = session("DFT", [("x", TensorProto.DOUBLE)], [("y", TensorProto.DOUBLE)], opset=17, axis=1)
    rng = np.random.default_rng(n)
    x = rng.standard_normal((2, n, 1))
    y = s.run(None, {"x": x})[0]
    want = np.fft.fft(x[..., 0], axis=1)
    np.testing.assert_allclose(y[..., 0] + 1j * y[..., 1], want, rtol=1e-9, atol=1e-9 * n)


def test_dft_of_a_large_prime_length_is_fast():
    import time

    s = session("DFT", [("x", F), ("n", I64)], [("y", F)], opset=17, axis=1)
    start = time.perf_counter()
    y = s.run(None, {"x": np.ones((1, 8, 1), np.float32), "n": np.array(200_003, np.int64)})[0]
    # Not a timed assertion of speed: an O(n^2) sum would take minutes here, not seconds.
    assert time.perf_counter() - start < 60
    assert y.shape == (1, 200_003, 2) and y[0, 0, 0] == pytest.approx(8.0)


@pytest.mark.parametrize(
    "attrs,error",
    [
        ({"strides": [2**62], "output_shape": [4]}, "overflows int64"),
        ({"pads": [-(2**63), 0]}, "overflows int64"),
        ({"dilations": [2**62]}, "overflows int64"),
        ({"strides": [0]}, "strides and dilations must be >= 1"),
        ({"output_shape": [5]}, None),  # one longer than the full result: pads the end
    ],
)
def test_conv_transpose_geometry_from_attributes(attrs, error):
    # 1 - INT64_MIN and friends: the output geometry overflowed int64.
    ins = [("x", F), ("w", F)]
    s = session("ConvTranspose", ins, [("y", F)], opset=11, **attrs)
    feeds = {"x": np.ones((1, 1, 3), np.float32), "w": np.ones((1, 1, 2), np.float32)}
    if error is None:
        np.testing.assert_array_equal(s.run(None, feeds)[0], [[[1, 2, 2, 1, 0]]])
        return
    with pytest.raises(ValueError, match=error):
        s.run(None, feeds)
    s = session("ConvTranspose", ins, [("y", F)], opset=11)
    np.testing.assert_array_equal(s.run(None, feeds)[0], [[[1, 2, 2, 1]]])


@pytest.mark.parametrize(
    "mel,dft,rate,hi,error",
    [
        (2**63 - 1, 16, 8000, 4000.0, "RESOURCE_EXHAUSTED|OUT_OF_RANGE|overflow"),
        (4, 2**62, 8000, 4000.0, "RESOURCE_EXHAUSTED|OUT_OF_RANGE|overflow"),
        (4, 16, 1, 1e300, None),  # edges far past the bins: clamped, no int64 overflow
    ],
)
def test_mel_weight_matrix_at_the_extremes(mel, dft, rate, hi, error):
    # num_mel_bins + 2 overflowed, and the [bins, mel] weights were allocated unchecked.
    ins = [
        ("m", I64),
        ("d", I64),
        ("r", I64),
        ("lo", TensorProto.DOUBLE),
        ("hi", TensorProto.DOUBLE),
    ]
    s = onnx_light.RuntimeSession(
        node_model("MelWeightMatrix", ins, [("y", F)], opset=17), memory_budget=64 << 20
    )
    feeds = {
        "m": np.array(mel, np.int64),
        "d": np.array(dft, np.int64),
        "r": np.array(rate, np.int64),
        "lo": np.array(0, np.float64),
        "hi": np.array(hi, np.float64),
    }
    if error is None:
        y = s.run(None, feeds)[0]
        assert y.shape == (dft // 2 + 1, mel) and np.isfinite(y).all()
    else:
        with pytest.raises((RuntimeError, ValueError), match=error):
            s.run(None, feeds)
    feeds.update(m=np.array(4, np.int64), d=np.array(16, np.int64), r=np.array(8000, np.int64))
    feeds["hi"] = np.array(4000, np.float64)
    assert s.run(None, feeds)[0].shape == (9, 4)


def test_conv_integer_with_a_group_near_int64_max():
    # C_in / group was checked as cg * group, which overflowed.
    ins = [("x", TensorProto.UINT8), ("w", TensorProto.UINT8)]
    feeds = {"x": np.ones((1, 2, 3), np.uint8), "w": np.ones((2, 1, 1), np.uint8)}
    s = session("ConvInteger", ins, [("y", I32)], opset=10, group=2**62)
    with pytest.raises(ValueError, match="does not match X"):
        s.run(None, feeds)
    s = session("ConvInteger", ins, [("y", I32)], opset=10, group=2)
    np.testing.assert_array_equal(s.run(None, feeds)[0], np.ones((1, 2, 3), np.int32))


@pytest.mark.parametrize("op", ["GatherElements", "ScatterElements"])
def test_element_indices_longer_than_data_off_the_axis(op):
    # Off the axis, positions in the indices are positions in data: [3, 1] indices over
    # [2, 2] data read (or wrote) past data's end.
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    bad, good = np.zeros((3, 1), np.int64), np.array([[1], [0]], np.int64)
    if op == "GatherElements":
        s = session(op, [("x", F), ("i", I64)], [("y", F)], axis=1)
        feeds = lambda i: {"x": x, "i": i}  # noqa: E731
        want = [[1], [2]]
    else:
        s = session(op, [("x", F), ("i", I64), ("u", F)], [("y", F)], axis=1)
        feeds = lambda i: {"x": x, "i": i, "u": np.full(i.shape, 9, np.float32)}  # noqa: E731
        want = [[0, 9], [9, 3]]
    with pytest.raises(ValueError, match="are longer than data on axis 0"):
        s.run(None, feeds(bad))
    np.testing.assert_array_equal(s.run(None, feeds(good))[0], want)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_reflection_over_a_single_pixel(mode):
    # align_corners over a length of 1: the reflection range is 0 wide, and dividing by
    # it made NaN, cast to an index. Every point reflects onto the one pixel.
    ins = [("x", F), ("g", F)]
    s = session(
        "GridSample",
        ins,
        [("y", F)],
        opset=16,
        mode=mode,
        padding_mode="reflection",
        align_corners=1,
    )
    x = np.full((1, 1, 1, 1), 5.0, np.float32)
    grid = np.array([[[[0.0, 0.0], [3.0, -7.5]]]], np.float32)
    y = s.run(None, {"x": x, "g": grid})[0]
    np.testing.assert_allclose(y, np.full((1, 1, 1, 2), 5.0), rtol=1e-6)


@pytest.mark.parametrize("op", ["Conv", "ConvTranspose"])
def test_conv_with_a_group_near_int64_max(op):
    # cg * group (Conv) and M/group * group (ConvTranspose) overflowed.
    ins = [("x", F), ("w", F)]
    x = np.ones((1, 2, 3), np.float32) if op == "Conv" else np.ones((1, 0, 3), np.float32)
    s = session(op, ins, [("y", F)], opset=11, group=2**62 + 1)
    with pytest.raises(ValueError, match="does not match|overflows int64"):
        s.run(None, {"x": x, "w": np.ones((2 if op == "Conv" else 0, 1, 1), np.float32)})
    s = session(op, ins, [("y", F)], opset=11, group=2)
    y = s.run(None, {"x": np.ones((1, 2, 3), np.float32), "w": np.ones((2, 1, 1), np.float32)})[0]
    np.testing.assert_array_equal(y, np.ones((1, 2, 3), np.float32))


@pytest.mark.parametrize(
    "start,end,step",
    [(4, 0, INT64_MIN), (1, 5, np.iinfo(np.int64).max), (-1, -6, INT64_MIN + 1), (0, 5, 3)],
)
def test_slice_with_a_step_at_the_int64_extremes(start, end, step):
    # (b - e - step - 1) / -step overflowed for step = INT64_MIN (and e - b + step - 1 for
    # INT64_MAX); the count is now taken in unsigned arithmetic. Reference: Python slicing.
    s = session(
        "Slice",
        [("x", F), ("starts", I64), ("ends", I64), ("axes", I64), ("steps", I64)],
        [("y", F)],
        opset=13,
    )
    x = np.arange(5, dtype=np.float32)
    feeds = {
        "x": x,
        "starts": np.array([start], np.int64),
        "ends": np.array([end], np.int64),
        "axes": np.array([0], np.int64),
        "steps": np.array([step], np.int64),
    }
    want = x.tolist()[start:end:step]
    assert s.run(None, feeds)[0].tolist() == want
    y = s.run(None, dict(feeds, steps=np.array([-1], np.int64)))[0]
    assert y.tolist() == x.tolist()[start:end:-1]


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
def test_symmetric_window_of_size_one(op):
    # size 1, periodic=0 divides 0 by 0: NaN for float (the ONNX reference and ORT agree),
    # and it was a NaN cast to int64 for an integer output_datatype; now 0.
    s = session(op, [("size", I64)], [("y", F)], periodic=0)
    assert np.isnan(s.run(None, {"size": np.array(1, np.int64)})[0]).all()
    si = session(op, [("size", I64)], [("y", I64)], periodic=0, output_datatype=I64)
    assert si.run(None, {"size": np.array(1, np.int64)})[0].tolist() == [0]
    # size 3: the window's ends and middle, truncated toward zero like a cast.
    n = np.arange(3)
    ref = {
        "HannWindow": 0.5 - 0.5 * np.cos(np.pi * n),
        "HammingWindow": 25 / 46 - 21 / 46 * np.cos(np.pi * n),
        "BlackmanWindow": 0.42 - 0.5 * np.cos(np.pi * n) + 0.08 * np.cos(2 * np.pi * n),
    }[op]
    np.testing.assert_allclose(
        s.run(None, {"size": np.array(3, np.int64)})[0], ref, rtol=0, atol=1e-6
    )
    assert (
        si.run(None, {"size": np.array(3, np.int64)})[0].tolist() == ref.astype(np.int64).tolist()
    )


@pytest.mark.parametrize("dtype", [TensorProto.INT64, TensorProto.DOUBLE, 99, 1 << 40])
def test_quantize_linear_output_dtype_must_be_a_quantized_type(dtype):
    # output_dtype INT64 made an int64 output, clamped to 2^63 (past int64) and cast.
    model = node_model(
        "QuantizeLinear", [("x", F), ("s", F)], [("y", I64)], opset=21, output_dtype=dtype
    )
    with pytest.raises(ValueError, match=f"output_dtype {dtype} is not a quantized type"):
        onnx_light.RuntimeSession(model)


def test_quantize_linear_saturates_int32():
    model = node_model(
        "QuantizeLinear", [("x", F), ("s", F)], [("y", I32)], opset=21, output_dtype=I32
    )
    s = onnx_light.RuntimeSession(model)
    x = np.array([1e12, -1e12, 2.5, np.nan], np.float32)
    y = s.run(None, {"x": x, "s": np.array(1, np.float32)})[0]
    assert y.dtype == np.int32
    assert y[:3].tolist() == [2**31 - 1, -(2**31), 2]  # half to even


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_recurrent_hidden_size_near_int64_max(op):
    # gates * hidden_size (the weights' expected shapes) overflowed int64.
    inputs = [("x", F), ("w", F), ("r", F)]
    g = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    feeds = {
        "x": np.ones((1, 1, 2), np.float32),
        "w": np.zeros((1, g, 2), np.float32),
        "r": np.zeros((1, g, 1), np.float32),
    }
    for hidden in (np.iinfo(np.int64).max, np.iinfo(np.int64).max // 8 + 1):
        model = node_model(op, inputs, [("y", F)], opset=14, hidden_size=int(hidden))
        with pytest.raises(ValueError, match=f"hidden_size {hidden} is too large"):
            onnx_light.RuntimeSession(model).run(None, feeds)  # kernels are made lazily
    # A small one still runs: one step, one hidden unit, zero weights give zeros (tanh(0),
    # or LSTM's o * tanh(c) with c = i * g = 0.5 * 0).
    s = onnx_light.RuntimeSession(node_model(op, inputs, [("y", F)], opset=14, hidden_size=1))
    y = s.run(None, feeds)[0]
    np.testing.assert_array_equal(y, np.zeros((1, 1, 1, 1), np.float32))


def test_blocked_dequantize_with_a_block_near_int64_max():
    # ceil(dim / block) was (dim + block - 1) / block: a signed overflow. One block.
    s = session(
        "DequantizeLinear",
        [("x", TensorProto.INT8), ("s", F)],
        [("y", F)],
        opset=21,
        axis=0,
        block_size=int(np.iinfo(np.int64).max),
    )
    x = np.array([-3, 0, 5], np.int8)
    y = s.run(None, {"x": x, "s": np.array([0.5], np.float32)})[0]
    np.testing.assert_array_equal(y, x.astype(np.float32) * 0.5)


@pytest.mark.parametrize("op", ["Conv", "MaxPool", "AveragePool", "LpPool"])
@pytest.mark.parametrize("pads", [[0, -1, 0, -1], [0, 2**63 - 1, 0, 2 - 2**63]])
def test_negative_pads_are_refused(op, pads):
    # The node fuzzer: pads [INT64_MAX, 2 - INT64_MAX] over 2 columns pass the window's
    # extent check (4 columns), and the 2-D float paths added the begin pad to the row
    # length (a signed overflow, UBSan); a plain negative pad crashed Conv and the pools
    # (a negative count of zeros). The spec allows pads >= 0 only: INVALID_MODEL.
    inputs = [("x", F), ("w", F)] if op == "Conv" else [("x", F)]
    attrs = {} if op == "Conv" else {"kernel_shape": [1, 1]}
    s = session(op, inputs, [("y", F)], pads=pads, **attrs)
    feeds = {"x": np.arange(1, 9, dtype=np.float32).reshape(1, 1, 2, 4)}
    if op == "Conv":
        feeds["w"] = np.full((1, 1, 1, 1), 3, np.float32)
    with pytest.raises(ValueError, match=r"pads must be >= 0"):
        s.run(None, feeds)
    good = session(op, inputs, [("y", F)], pads=[0, 1, 0, 1], **attrs)
    y = good.run(None, feeds)[0]
    assert y.shape == (1, 1, 2, 6)
    if op in ("Conv", "MaxPool"):
        scale = 3 if op == "Conv" else 1
        np.testing.assert_array_equal(y[..., 1:5], scale * feeds["x"])


def qlinear_sigmoid(scale_type, zero_type=TensorProto.UINT8):
    from onnx_light.onnx import helper

    node = helper.make_node(
        "QLinearSigmoid", ["x", "xs", "xz", "ys", "yz"], ["y"], domain="com.microsoft"
    )
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.UINT8, None),
            helper.make_tensor_value_info("xs", scale_type, None),
            helper.make_tensor_value_info("xz", zero_type, None),
            helper.make_tensor_value_info("ys", F, None),
            helper.make_tensor_value_info("yz", TensorProto.UINT8, None),
        ],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, None)],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return onnx_light.RuntimeSession(helper.make_model(graph, opset_imports=opsets))


def test_a_quantized_op_with_a_scale_of_another_type_is_refused():
    # The com.microsoft QLinear ops leave their scales' type open, as ORT's schemas do: a
    # double scale was read as float through a null pointer (SEGV). Now a ValueError.
    feeds = {
        "x": np.array([0, 128, 255], np.uint8),
        "xz": np.array(128, np.uint8),
        "ys": np.array(1 / 256, np.float32),
        "yz": np.array(0, np.uint8),
    }
    s = qlinear_sigmoid(TensorProto.DOUBLE)
    with pytest.raises(ValueError, match="X's scale must be one float value"):
        s.run(None, {**feeds, "xs": np.array(0.05, np.float64)})
    good = qlinear_sigmoid(F)
    y = good.run(None, {**feeds, "xs": np.array(0.05, np.float32)})[0]
    v = (feeds["x"].astype(np.float32) - 128) * np.float32(0.05)
    want = np.clip(np.rint(256 / (1 + np.exp(-v))), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(y, want)  # [0, 128, 255]


def test_matmul_integer_to_float_of_a_scalar_is_refused():
    # com.microsoft MatMulIntegerToFloat read the last dimension of a rank-0 B (UBSan: an
    # offset from a null pointer) before the product checked the ranks. Now a ValueError.
    from onnx_light.onnx import helper

    def model(b_shape):
        node = helper.make_node(
            "MatMulIntegerToFloat", ["a", "b", "as", "bs"], ["y"], domain="com.microsoft"
        )
        graph = helper.make_graph(
            [node],
            "g",
            [
                helper.make_tensor_value_info("a", TensorProto.UINT8, None),
                helper.make_tensor_value_info("b", TensorProto.INT8, b_shape),
                helper.make_tensor_value_info("as", F, None),
                helper.make_tensor_value_info("bs", F, None),
            ],
            [helper.make_tensor_value_info("y", F, None)],
        )
        opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
        return onnx_light.RuntimeSession(helper.make_model(graph, opset_imports=opsets))

    scales = {"as": np.array(0.5, np.float32), "bs": np.array(0.25, np.float32)}
    s = model(None)
    with pytest.raises(ValueError, match="inputs need rank >= 1"):
        s.run(None, {"a": np.array([1, 2], np.uint8), "b": np.array(3, np.int8), **scales})
    a = np.array([[1, 2]], np.uint8)
    b = np.array([[3], [-4]], np.int8)
    y = s.run(None, {"a": a, "b": b, **scales})[0]
    np.testing.assert_array_equal(y, [[(3 - 8) * 0.125]])


def test_a_linear_regressor_with_huge_targets_and_no_coefficients_is_refused_at_once():
    # node_fuzzer (ai.onnx.ml campaign): targets = 2^62 with an empty coefficient list made
    # the transposition of W loop 2^62 times (a timeout); now refused when the kernel is made.
    import time

    import onnx
    from _ml import ml_model

    x = np.ones((2, 3), np.float32)
    m = onnx.load_from_string(ml_model("LinearRegressor", {"x": x}, [("y", F)], targets=2**62))
    empty = onnx.helper.make_attribute("coefficients", [], attr_type=onnx.AttributeProto.FLOATS)
    m.graph.node[0].attribute.append(empty)
    s = onnx_light.RuntimeSession(m.SerializeToString())
    start = time.perf_counter()
    with pytest.raises(ValueError, match="targets = 4611686018427387904 with 0 coefficients"):
        s.run(None, {"x": x})
    assert time.perf_counter() - start < 5


def test_a_tree_ensemble_with_huge_n_targets_is_refused():
    from _ml import ml_model
    from _trees import LEAVES, TREES, XS

    model = ml_model(
        "TreeEnsembleRegressor", {"X": XS}, [("y", F)], **TREES, **dict(LEAVES, n_targets=2**40)
    )
    with pytest.raises(
        ValueError, match="n_targets \\(or the class count\\) must be in \\[1, 2\\^20\\]"
    ):
        onnx_light.RuntimeSession(model).run(None, {"X": XS})
