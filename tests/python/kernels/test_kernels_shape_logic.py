"""Error behaviour and integer edge cases of the shape, comparison, logic, math and
reduction kernels
(their float results are checked against the ONNX backend data by test_conformance.py).
Integer results must match numpy exactly (both wrap modulo 2^bits)."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper

F, I, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


# Ops with more than one required output: the extra ones are computed and dropped.
NODE_OUTPUTS = {"TopK": ["y", "indices"]}


def session(op, inputs, out_type=F, opset=17, **attrs):
    node = helper.make_node(op, [n for n, _ in inputs], NODE_OUTPUTS.get(op, ["y"]), **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in inputs],
        [helper.make_tensor_value_info("y", out_type, None)],
    )
    return onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    )


def f32(*shape):
    return np.ones(shape, np.float32)


BAD_INPUTS = [
    (
        "Gemm",
        [("a", F), ("b", F), ("c", F)],
        {"opset": 6},
        {"a": f32(2, 3), "b": f32(3, 4), "c": f32(4)},
        "must be \\[2, 4\\] when broadcast is 0",
    ),
    (
        "Pow",
        [("a", F), ("b", F)],
        {"opset": 6},
        {"a": f32(2, 3), "b": f32(3)},
        "differ and broadcast is 0",
    ),
    (
        "Less",
        [("a", F), ("b", F)],
        {"opset": 6, "broadcast": 1, "axis": 1, "out_type": B},
        {"a": f32(2, 3), "b": f32(4)},
        "B \\[4\\] does not fit A \\[2, 3\\] at axis 1",
    ),
    (
        "Add",
        [("a", F), ("b", F)],
        {},
        {"a": f32(2, 3), "b": f32(4)},
        "shapes \\[2, 3\\] and \\[4\\] cannot be broadcast",
    ),
    (
        "Where",
        [("c", B), ("a", F), ("b", F)],
        {},
        {"c": np.ones(5, bool), "a": f32(2, 3), "b": f32(3)},
        "cannot be broadcast",
    ),
    (
        "Reshape",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([4, 2])},
        "cannot reshape \\[2, 3\\] \\(6 elements\\) to \\[4, 2\\]",
    ),
    (
        "Reshape",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([4, -1])},
        "cannot infer -1",
    ),
    (
        "Reshape",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([-1, -1])},
        "more than one -1",
    ),
    ("Transpose", [("a", F)], {"perm": [0, 0]}, {"a": f32(2, 3)}, "invalid perm"),
    ("Transpose", [("a", F)], {"perm": [0]}, {"a": f32(2, 3)}, "perm has the wrong length"),
    ("Squeeze", [("a", F), ("s", I)], {}, {"a": f32(2, 3), "s": np.array([0])}, "not 1"),
    (
        "Unsqueeze",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([1, 1])},
        "repeated axis",
    ),
    (
        "Concat",
        [("a", F), ("b", F)],
        {"axis": 0},
        {"a": f32(2, 3), "b": f32(2, 4)},
        "input 1 has shape \\[2, 4\\]",
    ),
    (
        "Concat",
        [("a", F), ("b", F)],
        {"axis": 5},
        {"a": f32(2, 3), "b": f32(2, 3)},
        "axis 5 is out of range for rank 2",
    ),
    (
        "Expand",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([4, 3])},
        "cannot be broadcast",
    ),
    ("ConstantOfShape", [("s", I)], {}, {"s": np.array([2, -3])}, "negative dimension -3"),
    ("Flatten", [("a", F)], {"axis": 3}, {"a": f32(2, 3)}, "axis out of range"),
    (
        "ReduceSum",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([2])},
        "axis 2 is out of range for rank 2",
    ),
    ("ReduceMax", [("a", F)], {"axes": [-3]}, {"a": f32(2, 3)}, "axis -3 is out of range"),
    ("ArgMax", [("a", F)], {"axis": 1, "out_type": I}, {"a": f32(2, 0)}, "empty axis"),
    ("Softmax", [("a", F)], {"axis": 2}, {"a": f32(2, 3)}, "axis 2 is out of range"),
    (
        "Gather",
        [("a", F), ("i", I)],
        {"axis": 1},
        {"a": f32(2, 3), "i": np.array([0, 3])},
        "index 3 is out of range for a dimension of 3",
    ),
    (
        "Gather",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.array([-3])},
        "index -3 is out of range",
    ),
    (
        "GatherElements",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.zeros(2, np.int64)},
        "must have the rank of data",
    ),
    (
        "Slice",
        [("a", F), ("b", I), ("e", I), ("x", I), ("s", I)],
        {},
        {
            "a": f32(4),
            "b": np.array([0]),
            "e": np.array([4]),
            "x": np.array([0]),
            "s": np.array([0]),
        },
        "step is 0",
    ),
    (
        "Slice",
        [("a", F), ("b", I), ("e", I)],
        {},
        {"a": f32(4), "b": np.array([0, 1]), "e": np.array([4])},
        "differ in length",
    ),
    (
        "Split",
        [("a", F), ("s", I)],
        {},
        {"a": f32(5), "s": np.array([2, 2])},
        "split sizes do not match",
    ),
    (
        "Tile",
        [("a", F), ("r", I)],
        {},
        {"a": f32(2, 3), "r": np.array([2])},
        "repeats has 1 values for rank 2",
    ),
    ("Tile", [("a", F), ("r", I)], {}, {"a": f32(2), "r": np.array([-1])}, "negative repeat"),
    (
        "Range",
        [("a", F), ("b", F), ("c", F)],
        {},
        {"a": np.array(0, np.float32), "b": np.array(5, np.float32), "c": np.array(0, np.float32)},
        "delta is 0",
    ),
    (
        "Range",
        [("a", F), ("b", F), ("c", F)],
        {},
        {"a": f32(2), "b": np.array(5, np.float32), "c": np.array(1, np.float32)},
        "input 0 must be a scalar",
    ),
    ("MatMul", [("a", F), ("b", F)], {}, {"a": f32(2, 3), "b": f32(4, 2)}, "do not align"),
    (
        "MatMul",
        [("a", F), ("b", F)],
        {},
        {"a": f32(2, 2, 3), "b": f32(3, 3, 2)},
        "cannot be broadcast",
    ),
    (
        "Gemm",
        [("a", F), ("b", F)],
        {},
        {"a": f32(2, 3), "b": f32(4, 2)},
        "inner dimensions 3 and 4 differ",
    ),
    (
        "Gemm",
        [("a", F), ("b", F), ("c", F)],
        {},
        {"a": f32(2, 3), "b": f32(3, 2), "c": f32(3, 2)},
        "cannot be broadcast",
    ),
    (
        "Mod",
        [("a", I), ("b", I)],
        {"out_type": I},
        {"a": np.array([3, 4]), "b": np.array([1, 0])},
        "integer division by zero",
    ),
    ("Clip", [("a", F), ("lo", F)], {}, {"a": f32(3), "lo": f32(2)}, "min must hold one element"),
    ("PRelu", [("a", F), ("s", F)], {}, {"a": f32(3), "s": f32(2, 3)}, "does not broadcast to X"),
    ("Trilu", [("a", F)], {}, {"a": f32(3)}, "rank must be >= 2"),
    (
        "Conv",
        [("x", F), ("w", F)],
        {},
        {"x": f32(1, 3, 5, 5), "w": f32(2, 2, 3, 3)},
        "X has 3 channels",
    ),
    (
        "Conv",
        [("x", F), ("w", F)],
        {},
        {"x": f32(3, 5), "w": f32(2, 3, 3)},
        "input must be \\[N, C, D1, ...\\]",
    ),
    (
        "Conv",
        [("x", F), ("w", F)],
        {},
        {"x": f32(1, 1, 2, 2), "w": f32(1, 1, 3, 3)},
        "window is larger than the padded input",
    ),
    (
        "Conv",
        [("x", F), ("w", F), ("b", F)],
        {},
        {"x": f32(1, 1, 3, 3), "w": f32(2, 1, 3, 3), "b": f32(3)},
        "B must be \\[2\\]",
    ),
    (
        "MaxPool",
        [("x", F)],
        {"kernel_shape": [2], "strides": [1, 1]},
        {"x": f32(1, 1, 4, 4)},
        "do not match 2 spatial dims",
    ),
    ("AveragePool", [("x", F)], {"kernel_shape": [2, 0]}, {"x": f32(1, 1, 4, 4)}, "must be >= 1"),
    (
        "BatchNormalization",
        [("x", F), ("s", F), ("b", F), ("m", F), ("v", F)],
        {},
        {"x": f32(2, 3), "s": f32(3), "b": f32(3), "m": f32(2), "v": f32(3)},
        "mean must be \\[3\\]",
    ),
    (
        "LayerNormalization",
        [("x", F), ("s", F)],
        {},
        {"x": f32(2, 3), "s": f32(4)},
        "cannot be broadcast",
    ),
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
    (
        "TopK",
        [("a", F), ("k", I)],
        {},
        {"a": f32(2, 3), "k": np.array([4])},
        "K=4 is outside \\[0, 3\\]",
    ),
    (
        "ScatterElements",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[2, 0, 0]]), "u": f32(1, 3)},
        "index 2 is out of range",
    ),
    (
        "ScatterND",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[0, 0, 0]]), "u": f32(1)},
        "must end in a dimension",
    ),
    (
        "ScatterND",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[1]]), "u": f32(1, 2)},
        "do not match indices and data",
    ),
    (
        "GatherND",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.array([[0, 3]])},
        "index 3 is out of range",
    ),
    (
        "GatherND",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.array([[0, 0, 0]])},
        "do not fit data",
    ),
    (
        "DepthToSpace",
        [("a", F)],
        {"blocksize": 2},
        {"a": f32(1, 3, 2, 2)},
        "not divisible by blocksize",
    ),
    (
        "SpaceToDepth",
        [("a", F)],
        {"blocksize": 2},
        {"a": f32(1, 1, 3, 2)},
        "must be divisible by blocksize",
    ),
    ("EyeLike", [("a", F)], {}, {"a": f32(3)}, "input must be 2-D"),
    (
        "NegativeLogLikelihoodLoss",
        [("x", F), ("t", I)],
        {},
        {"x": f32(2, 3), "t": np.array([0, 3])},
        "target 3 is outside \\[0, 3\\)",
    ),
    (
        "NegativeLogLikelihoodLoss",
        [("x", F), ("t", I)],
        {},
        {"x": f32(2, 3), "t": np.array([0, 1, 2])},
        "does not match input",
    ),
    (
        "SoftmaxCrossEntropyLoss",
        [("x", F), ("t", I), ("w", F)],
        {},
        {"x": f32(2, 3), "t": np.array([0, 1]), "w": f32(2)},
        "weight must be \\[3\\]",
    ),
    (
        "QuantizeLinear",
        [("x", F), ("s", F)],
        {"out_type": TensorProto.UINT8, "axis": 1},
        {"x": f32(2, 3), "s": f32(2)},
        "per-axis scale must be \\[3\\]",
    ),
    (
        "DequantizeLinear",
        [("x", TensorProto.UINT8), ("s", F), ("z", TensorProto.UINT8)],
        {},
        {"x": np.ones(3, np.uint8), "s": f32(1), "z": np.ones(2, np.uint8)},
        "must have the scale's shape",
    ),
    (
        "Resize",
        [("x", F), ("r", F), ("s", F)],
        {},
        {"x": f32(1, 1, 2, 2), "r": np.zeros(0, np.float32), "s": f32(3)},
        "one value per resized axis",
    ),
    (
        "Resize",
        [("x", F), ("r", F), ("s", F)],
        {},
        {
            "x": f32(1, 1, 2, 2),
            "r": np.zeros(0, np.float32),
            "s": np.array([1, 1, 0, 2], np.float32),
        },
        "scales must be > 0",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_give_value_errors_and_session_stays_usable(op, inputs, attrs, feeds, message):
    s = session(op, inputs, **attrs)
    with pytest.raises(ValueError, match=f"\\({op}\\): .*{message}"):
        s.run(None, feeds)
    if op == "Add":  # the same session still runs good input afterwards
        (y,) = s.run(None, {"a": f32(2, 3), "b": f32(3)})
        np.testing.assert_array_equal(y, np.full((2, 3), 2, np.float32))


@pytest.mark.parametrize(
    "dtype,etype", [(np.int64, TensorProto.INT64), (np.int32, TensorProto.INT32)]
)
def test_integer_pow_is_exact_and_wraps_like_numpy(dtype, etype):
    s = session("Pow", [("a", etype), ("b", etype)], out_type=etype)
    a = np.array([2, 3, -3, 7, 0, 5, -2, 10], dtype)
    b = np.array([10, 39, 41, 70, 0, 1, 63, 18], dtype)
    (y,) = s.run(None, {"a": a, "b": b})
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(y, np.power(a, b))
    # Negative exponents: the truncated quotient 1 / a^-b.
    (y,) = s.run(
        None, {"a": np.array([1, -1, -1, 2, -5], dtype), "b": np.array([-3, -3, -2, -1, -2], dtype)}
    )
    np.testing.assert_array_equal(y, np.array([1, -1, 1, 0, 0], dtype))


def test_integer_pow_with_float_exponent_saturates():
    s = session("Pow", [("a", I), ("b", F)], out_type=I)
    (y,) = s.run(
        None, {"a": np.array([2, 3, -3, 4]), "b": np.array([3.0, 100.0, 41.0, 0.5], np.float32)}
    )
    info = np.iinfo(np.int64)
    np.testing.assert_array_equal(y, np.array([8, info.max, info.min, 2]))


@pytest.mark.parametrize(
    "dtype,etype",
    [(np.int64, TensorProto.INT64), (np.int32, TensorProto.INT32), (np.int8, TensorProto.INT8)],
)
def test_integer_abs_neg_wrap_at_the_minimum(dtype, etype):
    x = np.array([np.iinfo(dtype).min, -5, 0, 7, np.iinfo(dtype).max], dtype)
    for op, ref in (("Abs", np.abs), ("Neg", np.negative), ("Sign", np.sign)):
        (y,) = session(op, [("x", etype)], out_type=etype).run(None, {"x": x})
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(y, ref(x), err_msg=op)


def test_uint16_mul_wraps():
    s = session(
        "Mul", [("a", TensorProto.UINT16), ("b", TensorProto.UINT16)], out_type=TensorProto.UINT16
    )
    a = np.array([65535, 40000, 3], np.uint16)
    (y,) = s.run(None, {"a": a, "b": a})
    np.testing.assert_array_equal(y, a * a)


@pytest.mark.parametrize(
    "dtype,etype", [(np.int32, TensorProto.INT32), (np.int64, TensorProto.INT64)]
)
def test_integer_reductions_match_numpy(dtype, etype):
    rng = np.random.default_rng(3)
    x = rng.integers(-1000, 1000, size=(3, 4, 5)).astype(dtype)
    refs = {
        # numpy widens int32 sums and products unless told the type.
        "ReduceSum": lambda a, axis, keepdims: np.sum(a, axis=axis, keepdims=keepdims, dtype=dtype),
        "ReduceMax": np.max,
        "ReduceMin": np.min,
        "ReduceProd": lambda a, axis, keepdims: np.prod(
            a, axis=axis, keepdims=keepdims, dtype=dtype
        ),
        "ReduceSumSquare": lambda a, axis, keepdims: np.sum(
            a * a, axis=axis, keepdims=keepdims, dtype=dtype
        ),
        "ReduceL1": lambda a, axis, keepdims: np.sum(
            np.abs(a), axis=axis, keepdims=keepdims, dtype=dtype
        ),
    }
    for op, ref in refs.items():
        s = session(op, [("a", etype), ("s", I)], out_type=etype, opset=18, keepdims=0)
        for axes in ([1], [0, 2], [-1]):
            (y,) = s.run(None, {"a": x, "s": np.array(axes)})
            with np.errstate(over="ignore"):
                np.testing.assert_array_equal(
                    y, ref(x, axis=tuple(axes), keepdims=False), err_msg=op
                )


def test_float_reductions_accumulate_in_double():
    # 2^24 + many ones: a float32 accumulator would stall at 16777216.
    x = np.concatenate([[16777216.0], np.ones(1000)]).astype(np.float32)
    (y,) = session("ReduceSum", [("a", F), ("s", I)], keepdims=0).run(
        None, {"a": x, "s": np.array([0])}
    )
    assert y == np.float32(16777216.0 + 1000)


def test_refused_modes_and_attributes():
    # Attributes are checked when the kernel is created, on the first run.
    with pytest.raises(ValueError, match="fmod must be 1 for floating-point inputs"):
        session("Mod", [("a", F), ("b", F)]).run(None, {"a": f32(2), "b": f32(2)})
    with pytest.raises(ValueError, match="approximate must be 'none' or 'tanh'"):
        session("Gelu", [("a", F)], opset=20, approximate="erf").run(None, {"a": f32(2)})
    s = session("Dropout", [("a", F), ("r", F), ("t", B)])
    x = np.arange(6, dtype=np.float32)
    with pytest.raises(
        RuntimeError, match="training_mode=true with a ratio above 0 is not supported"
    ):
        s.run(None, {"a": x, "r": np.array(0.5, np.float32), "t": np.array(True)})
    (y,) = s.run(None, {"a": x, "r": np.array(0.0, np.float32), "t": np.array(True)})
    np.testing.assert_array_equal(y, x)
    (y,) = s.run(None, {"a": x, "r": np.array(0.5, np.float32), "t": np.array(False)})
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize(
    "dtype,etype", [(np.int32, TensorProto.INT32), (np.int64, TensorProto.INT64)]
)
def test_integer_matmul_and_mod_match_numpy(dtype, etype):
    rng = np.random.default_rng(5)
    a = rng.integers(-(2**20), 2**20, size=(2, 3, 7)).astype(dtype)
    b = rng.integers(-(2**20), 2**20, size=(7, 5)).astype(dtype)
    (y,) = session("MatMul", [("a", etype), ("b", etype)], out_type=etype).run(
        None, {"a": a, "b": b}
    )
    np.testing.assert_array_equal(y, np.matmul(a, b))  # both wrap on overflow
    x = np.array([-7, 7, -7, 7, np.iinfo(dtype).min, 5], dtype)
    d = np.array([3, -3, -3, 3, -1, 7], dtype)
    for fmod, ref in ((0, np.mod), (1, np.fmod)):
        (y,) = session("Mod", [("a", etype), ("b", etype)], out_type=etype, fmod=fmod).run(
            None, {"a": x, "b": d}
        )
        np.testing.assert_array_equal(y, ref(x, d), err_msg=f"fmod={fmod}")


def test_float16_matmul_rounds_once_from_float32():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((4, 9)).astype(np.float16)
    b = rng.standard_normal((9, 3)).astype(np.float16)
    s = session(
        "MatMul",
        [("a", TensorProto.FLOAT16), ("b", TensorProto.FLOAT16)],
        out_type=TensorProto.FLOAT16,
    )
    (y,) = s.run(None, {"a": a, "b": b})
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    # float32 accumulation rounded once to float16: within 1 float16 ULP of the exact result.
    np.testing.assert_array_max_ulp(y, ref, maxulp=1)


def test_legacy_opset6_broadcast_attribute():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.array([1, 2, 3], np.float32)
    s = session("Add", [("a", F), ("b", F)], opset=6, broadcast=1, axis=1)
    (y,) = s.run(None, {"a": a, "b": b})
    np.testing.assert_array_equal(y, a + b.reshape(3, 1))
    with pytest.raises(ValueError, match="differ and broadcast is 0"):
        session("Add", [("a", F), ("b", F)], opset=6).run(None, {"a": a, "b": b})
    with pytest.raises(ValueError, match="does not fit A"):
        session("Mul", [("a", F), ("b", F)], opset=6, broadcast=1, axis=2).run(
            None, {"a": a, "b": b}
        )


def test_conv_and_pools_against_numpy():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    s = session(
        "Conv",
        [("x", F), ("w", F), ("b", F)],
        group=2,
        pads=[1, 0, 1, 1],
        strides=[2, 1],
        dilations=[1, 2],
    )
    (y,) = s.run(None, {"x": x, "w": w, "b": b})
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (0, 1)))
    ref = np.zeros((2, 6, 4, 5))
    for oc in range(6):
        g = oc // 3
        for i in range(4):
            for j in range(5):
                patch = xp[:, g * 2 : g * 2 + 2, i * 2 : i * 2 + 3, j : j + 3 : 2]
                ref[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3)) + b[oc]
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)  # float32 accumulation
    (m,) = session("MaxPool", [("x", F)], kernel_shape=[2, 2], strides=[2, 2]).run(None, {"x": x})
    np.testing.assert_array_equal(m, x[:, :, :6, :6].reshape(2, 4, 3, 2, 3, 2).max(axis=(3, 5)))
    (a,) = session("AveragePool", [("x", F)], kernel_shape=[1, 3], pads=[0, 1, 0, 1]).run(
        None, {"x": x}
    )
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (0, 0), (1, 1)))
    counts = np.array([2, 3, 3, 3, 3, 2], np.float64)  # count_include_pad=0
    ref = (xp[..., :-2] + xp[..., 1:-1] + xp[..., 2:]) / counts
    np.testing.assert_allclose(a, ref, rtol=1e-6)


def test_pad_modes_and_topk_against_numpy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    pads = np.array([1, 2, 2, 1])
    for mode, np_mode in (("reflect", "reflect"), ("edge", "edge"), ("wrap", "wrap")):
        (y,) = session("Pad", [("a", F), ("p", I)], mode=mode, opset=19).run(
            None, {"a": x, "p": pads}
        )
        np.testing.assert_array_equal(y, np.pad(x, ((1, 2), (2, 1)), mode=np_mode), err_msg=mode)
    v = np.array([[3, 1, 3, 2], [0, 5, 5, -1]], np.float32)
    node = helper.make_node("TopK", ["a", "k"], ["y", "i"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("a", F, None), helper.make_tensor_value_info("k", I, None)],
        [helper.make_tensor_value_info("y", F, None), helper.make_tensor_value_info("i", I, None)],
    )
    s = onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )
    s_out = s.run(None, {"a": v, "k": np.array([3])})
    np.testing.assert_array_equal(s_out[0], [[3, 3, 2], [5, 5, 0]])
    np.testing.assert_array_equal(s_out[1], [[0, 2, 3], [1, 2, 0]])  # ties: lower index first


def test_bitshift_and_bitwise_against_numpy():
    a = np.array([1, 255, 16, 7], np.uint8)
    b = np.array([3, 1, 8, 0], np.uint8)
    U8 = TensorProto.UINT8
    (y,) = session("BitShift", [("a", U8), ("b", U8)], out_type=U8, direction="LEFT").run(
        None, {"a": a, "b": b}
    )
    np.testing.assert_array_equal(y, np.array([8, 254, 0, 7], np.uint8))  # shift >= 8 gives 0
    (y,) = session("BitwiseXor", [("a", U8), ("b", U8)], out_type=U8, opset=18).run(
        None, {"a": a, "b": b}
    )
    np.testing.assert_array_equal(y, a ^ b)
    with pytest.raises(ValueError, match="direction must be LEFT or RIGHT"):
        session("BitShift", [("a", U8), ("b", U8)], out_type=U8, direction="UP").run(
            None, {"a": a, "b": b}
        )


def test_if_branches_read_the_enclosing_graph():
    # y = If(c) then a + b else a * 2, where a and b come from the outer graph; a is
    # computed by an outer node, so the If must run after it.
    then_g = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", F, None)],
    )
    two = helper.make_tensor("two", F, [], [2.0])
    else_g = helper.make_graph(
        [helper.make_node("Mul", ["a", "two"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", F, None)],
        [two],
    )
    nodes = [
        helper.make_node("Neg", ["x"], ["a"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in (("c", B), ("x", F), ("b", F))],
        [helper.make_tensor_value_info("y", F, None)],
    )
    s = onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )
    x = np.array([1.0, -2.0, 3.0], np.float32)
    b = np.array([10.0, 20.0, 30.0], np.float32)
    (y,) = s.run(None, {"c": np.array(True), "x": x, "b": b})
    np.testing.assert_array_equal(y, -x + b)
    (y,) = s.run(None, {"c": np.array(False), "x": x, "b": b})
    np.testing.assert_array_equal(y, -x * 2)
    with pytest.raises(ValueError, match="cond must be a bool tensor of one element"):
        s.run(None, {"c": np.array([True, False]), "x": x, "b": b})


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


def test_quantize_rounds_half_to_even_and_saturates():
    x = np.array([0.5, 1.5, 2.5, -0.5, 300.0, -300.0], np.float32)
    s = session(
        "QuantizeLinear", [("x", F), ("s", F), ("z", TensorProto.INT8)], out_type=TensorProto.INT8
    )
    (y,) = s.run(None, {"x": x, "s": np.array(1.0, np.float32), "z": np.array(0, np.int8)})
    np.testing.assert_array_equal(y, np.array([0, 2, 2, 0, 127, -128], np.int8))


@pytest.mark.parametrize(
    "attrs",
    [
        {"strides": [2, 3], "pads": [1, 0, 0, 2], "output_padding": [1, 2], "group": 2},
        {"strides": [2, 2], "dilations": [2, 1], "auto_pad": "SAME_UPPER"},
        {"strides": [3, 2], "output_shape": [12, 9]},
    ],
)
def test_conv_transpose_matches_onnxruntime(attrs):
    import onnxruntime as ort

    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 4, 5, 4)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(3 * attrs.get("group", 1)).astype(np.float32)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, F, None) for n in ("x", "w", "b")],
        [helper.make_tensor_value_info("y", F, None)],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    feeds = {"x": x, "w": w, "b": b}
    (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    (got,) = onnx_light.RuntimeSession(data).run(None, feeds)
    assert got.shape == want.shape
    np.testing.assert_allclose(
        got, want, rtol=1e-5, atol=1e-5
    )  # float32; onnx-light sums in double


def test_resize_linear_half_pixel_matches_onnxruntime():
    import onnxruntime as ort

    x = np.random.default_rng(4).standard_normal((1, 2, 4, 5)).astype(np.float32)
    for mode, coord in (
        ("linear", "half_pixel"),
        ("cubic", "align_corners"),
        ("nearest", "asymmetric"),
    ):
        node = helper.make_node(
            "Resize", ["x", "", "s"], ["y"], mode=mode, coordinate_transformation_mode=coord
        )
        graph = helper.make_graph(
            [node],
            "g",
            [
                helper.make_tensor_value_info("x", F, None),
                helper.make_tensor_value_info("s", F, None),
            ],
            [helper.make_tensor_value_info("y", F, None)],
        )
        data = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 17)]
        ).SerializeToString()
        feeds = {"x": x, "s": np.array([1, 1, 1.75, 0.6], np.float32)}
        (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
        (got,) = onnx_light.RuntimeSession(data).run(None, feeds)
        assert got.shape == want.shape, mode
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{mode}/{coord}")


def test_legacy_broadcast_of_pow_gemm_and_comparisons_follows_opset_6():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([2.0, 3.0], np.float32)
    (y,) = session("Pow", [("a", F), ("b", F)], opset=6, broadcast=1, axis=0).run(
        None, {"a": a, "b": b}
    )
    np.testing.assert_array_equal(y, a ** b[:, None])
    (y,) = session("Greater", [("a", F), ("b", F)], out_type=B, opset=6, broadcast=1).run(
        None, {"a": a, "b": np.array([1.0, 1.0, 4.0], np.float32)}
    )
    np.testing.assert_array_equal(y, a > np.array([1.0, 1.0, 4.0], np.float32))
    c = np.array([1.0, -1.0], np.float32)
    (y,) = session("Gemm", [("a", F), ("b", F), ("c", F)], opset=6, broadcast=1).run(
        None, {"a": a.T.copy(), "b": a[:, :2].copy(), "c": c}
    )
    np.testing.assert_allclose(y, a.T @ a[:, :2] + c, rtol=1e-6)
