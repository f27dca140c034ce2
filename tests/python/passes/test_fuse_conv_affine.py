"""fuse_conv_affine: a FusedConv followed by Mul and/or Add of a scalar constant (Paddle's
"learnable affine" after HardSwish) takes them as post_scale / post_shift. Each rounds as
the separate op rounds it, so against the same model at level "none" the only difference
is the fused activation's SIMD rounding: rtol 1e-5, atol 1e-5 as in test_fuse_conv_activation.py; with
no activation (a residual only) the results are bit-identical. What must not fuse, the
attributes read from a file, and their errors."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import fused_conv_model

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
RNG = np.random.default_rng(5)

SHAPES = {
    # name: W shape, X shape, Conv attributes; each takes another convolution path
    "dense": ((6, 3, 3, 3), (2, 3, 9, 11), {"pads": [1] * 4}),
    "implicit": ((32, 16, 3, 3), (1, 16, 20, 24), {"pads": [1] * 4}),
    "depthwise": ((6, 1, 3, 3), (2, 6, 9, 11), {"pads": [1] * 4, "group": 6}),
    "pointwise": ((24, 16, 1, 1), (1, 16, 12, 12), {}),
    "direct": ((8, 3, 3, 3), (1, 3, 16, 16), {"pads": [1] * 4, "strides": [2, 2]}),
    "conv1d": ((6, 3, 3), (2, 3, 13), {"pads": [1, 1]}),
    "narrow": ((64, 32, 3), (1, 32, 3), {"pads": [1, 1]}),
    "conv3d": ((4, 2, 3, 3, 3), (1, 2, 5, 6, 7), {"pads": [1] * 6}),
}


def const(name, value, shape=(1,)):
    return numpy_helper.from_array(np.full(shape, value, np.float32), name)


def model(tail, *, shape="dense", activation="HardSwish", consts=(), outputs=("y",)):
    """x -> Conv(W, B) -> activation -> a, then the `tail` nodes."""
    w_shape, x_shape, attrs = SHAPES[shape]
    inits = [
        numpy_helper.from_array((RNG.standard_normal(w_shape) * 0.3).astype(np.float32), "W"),
        numpy_helper.from_array(RNG.standard_normal(w_shape[0]).astype(np.float32), "B"),
        *consts,
    ]
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], **attrs)]
    nodes.append(helper.make_node(activation, ["c"], ["a"]))
    graph = helper.make_graph(
        nodes + tail,
        "g",
        [helper.make_tensor_value_info("x", F, list(x_shape))],
        [helper.make_tensor_value_info(o, F, None) for o in outputs],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), x_shape


def run_both(m, x_shape, tmp_path=None, threads=1):
    x = (RNG.standard_normal(x_shape) * 3).astype(np.float32)
    none = onnx_light.RuntimeSession(m, graph_optimization_level="none")
    kw = {"optimized_model_path": tmp_path / "o.onnx"} if tmp_path else {}
    opt = onnx_light.RuntimeSession(m, intra_op_threads=threads, **kw)
    return none, opt, none.run(None, {"x": x}), opt.run(None, {"x": x}), x


AFFINE = {
    "mul_add": ([("Mul", "a", "s", "m"), ("Add", "m", "t", "y")], 2),
    "scalar_first": ([("Mul", "s", "a", "m"), ("Add", "t", "m", "y")], 2),
    "mul_only": ([("Mul", "a", "s", "y")], 1),
    "add_only": ([("Add", "a", "t", "y")], 1),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("form", sorted(AFFINE))
def test_scale_and_shift_after_the_activation_fuse(shape, form, tmp_path):
    ops, fused = AFFINE[form]
    tail = [helper.make_node(op, [a, b], [out]) for op, a, b, out in ops]
    m, x_shape = model(tail, shape=shape, consts=[const("s", 1.75), const("t", -0.625)])
    none, opt, want, got, x = run_both(m, x_shape, tmp_path)
    # The activation fuses into the Conv first (one node), then the affine nodes.
    assert none.planned_nodes - opt.planned_nodes == 1 + fused
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)
    written = onnx_light.onnx.load(str(tmp_path / "o.onnx"))
    assert [n.op_type for n in written.graph.node] == ["FusedConv"]
    attrs = {a.name for a in written.graph.node[0].attribute}
    assert ("post_scale" in attrs) == ("Mul" in [o[0] for o in ops])
    assert ("post_shift" in attrs) == ("Add" in [o[0] for o in ops])
    back = onnx_light.RuntimeSession(tmp_path / "o.onnx").run(None, {"x": x})[0]
    np.testing.assert_array_equal(back, got[0])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", ["implicit", "pointwise", "narrow"])
def test_fused_affine_on_more_threads(shape, threads):
    tail = [helper.make_node("Mul", ["a", "s"], ["m"]), helper.make_node("Add", ["m", "t"], ["y"])]
    m, x_shape = model(tail, shape=shape, consts=[const("s", -0.5), const("t", 2.0)])
    _, _, want, got, _ = run_both(m, x_shape, threads=threads)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)


def test_affine_after_a_residual_is_exact():
    """Conv + Z (fuse_conv_residual) then Mul and Add: no activation, so no SIMD function
    rounds differently and the fused result equals the unfused one bit for bit."""
    w = numpy_helper.from_array((RNG.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32), "W")
    nodes = [
        helper.make_node("Conv", ["x", "W"], ["c"], pads=[1] * 4),
        helper.make_node("Add", ["c", "z"], ["r"]),
        helper.make_node("Mul", ["r", "s"], ["m"]),
        helper.make_node("Add", ["m", "t"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", F, [1, 3, 7, 9]),
            helper.make_tensor_value_info("z", F, [1, 4, 7, 9]),
        ],
        [helper.make_tensor_value_info("y", F, None)],
        [w, const("s", 0.3, ()), const("t", 1e-3, (1, 1, 1, 1))],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    feeds = {
        "x": RNG.standard_normal((1, 3, 7, 9)).astype(np.float32),
        "z": RNG.standard_normal((1, 4, 7, 9)).astype(np.float32),
    }
    none = onnx_light.RuntimeSession(m, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(m)
    assert none.planned_nodes - opt.planned_nodes == 3
    np.testing.assert_array_equal(opt.run(None, feeds)[0], none.run(None, feeds)[0])


NOT_FUSED = {
    # name: tail, constants, outputs, nodes the affine step may remove
    "per_channel_scale": (
        [("Mul", "a", "s", "y")],
        [const("s", 2.0, (1, 6, 1, 1))],
        ("y",),
        0,
    ),
    "scale_of_higher_rank": (
        [("Mul", "a", "s", "y")],
        [const("s", 2.0, (1, 1, 1, 1, 1))],
        ("y",),
        0,
    ),
    "activation_read_twice": ([("Mul", "a", "s", "y")], [const("s", 2.0)], ("y", "a"), 0),
    "shift_then_scale": (  # only the Add fuses: a scale after a shift is not the form
        [("Add", "a", "t", "m"), ("Mul", "m", "s", "y")],
        [const("s", 2.0), const("t", 1.0)],
        ("y",),
        1,
    ),
    "two_scales": (  # the second Mul stays
        [("Mul", "a", "s", "m"), ("Mul", "m", "s", "y")],
        [const("s", 2.0)],
        ("y",),
        1,
    ),
    "division": ([("Div", "a", "s", "y")], [const("s", 2.0)], ("y",), 0),
    "input_scale": ([("Mul", "a", "x2", "y")], [], ("y",), 0),
    "square": ([("Mul", "a", "a", "y")], [], ("y",), 0),
}


@pytest.mark.parametrize("case", sorted(NOT_FUSED))
def test_what_must_not_fuse(case):
    ops, consts, outputs, fused = NOT_FUSED[case]
    tail = [helper.make_node(op, [a, b], [out]) for op, a, b, out in ops]
    m, x_shape = model(tail, consts=consts, outputs=outputs)
    if case == "input_scale":  # a feed, not a constant
        m.graph.input.append(helper.make_tensor_value_info("x2", F, [1]))
    x = RNG.standard_normal(x_shape).astype(np.float32)
    feeds = {"x": x, "x2": np.array([3.0], np.float32)} if case == "input_scale" else {"x": x}
    none = onnx_light.RuntimeSession(m, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(m)
    assert none.planned_nodes - opt.planned_nodes == 1 + fused  # the activation always fuses
    for g, w in zip(opt.run(None, feeds), none.run(None, feeds)):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_post_scale_and_shift_from_a_file():
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    plain = onnx_light.RuntimeSession(fused_conv_model()).run(None, {"x": x})[0]
    got = onnx_light.RuntimeSession(
        fused_conv_model(activation="Relu", post_scale=-2.0, post_shift=0.25)
    ).run(None, {"x": x})[0]
    want = np.maximum(plain, 0) * np.float32(-2.0) + np.float32(0.25)
    np.testing.assert_array_equal(got, want)
    nan = np.full_like(x, np.nan)  # NaN passes the activation and the affine
    out = onnx_light.RuntimeSession(fused_conv_model(activation="Relu", post_scale=3.0)).run(
        None, {"x": nan}
    )[0]
    assert np.isnan(out).all()


def test_post_scale_of_the_wrong_type_is_an_error():
    m = fused_conv_model(activation="Relu", post_scale=2)  # an INT attribute
    with pytest.raises(ValueError, match="post_scale"):
        onnx_light.RuntimeSession(m).run(None, {"x": np.zeros((1, 2, 5, 5), np.float32)})
    # The session is still usable afterwards: a good model runs in the same process.
    ok = onnx_light.RuntimeSession(fused_conv_model(post_shift=1.0))
    assert ok.run(None, {"x": np.zeros((1, 2, 5, 5), np.float32)})[0].shape == (1, 3, 5, 5)


FLOORED = {
    # name: tail, nodes fused after the activation, attributes written, the floor (one the
    # outputs reach: LeakyRelu's alpha is 0.01 here)
    "max": ([("Max", "a", "f", "y")], 1, {"post_max"}, -0.02),
    "max_scalar_first": ([("Max", "f", "a", "y")], 1, {"post_max"}, -0.02),
    "mul_add_max": (
        [("Mul", "a", "s", "m"), ("Add", "m", "t", "n"), ("Max", "n", "f", "y")],
        3,
        {"post_scale", "post_shift", "post_max"},
        -0.6,
    ),
}


@pytest.mark.parametrize("shape", ["dense", "depthwise", "pointwise", "direct", "conv1d"])
@pytest.mark.parametrize("form", sorted(FLOORED))
def test_a_max_by_a_scalar_after_the_activation_fuses(shape, form, tmp_path):
    # TensorFlow exports of LeakyRelu models (openWakeWord's embedding): Conv -> LeakyRelu
    # -> Max(., -0.4). The Max becomes post_max, applied last.
    ops, fused, attrs, floor = FLOORED[form]
    tail = [helper.make_node(op, [a, b], [out]) for op, a, b, out in ops]
    consts = [const("s", 1.75), const("t", -0.625), const("f", floor, (1, 1))]
    m, x_shape = model(tail, shape=shape, activation="LeakyRelu", consts=consts)
    none, opt, want, got, x = run_both(m, x_shape, tmp_path)
    assert none.planned_nodes - opt.planned_nodes == 1 + fused
    assert (got[0] == np.float32(floor)).any()  # the floor was reached: the test can fail
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)
    written = onnx_light.onnx.load(str(tmp_path / "o.onnx"))
    assert [n.op_type for n in written.graph.node] == ["FusedConv"]
    assert attrs <= {a.name for a in written.graph.node[0].attribute}
    back = onnx_light.RuntimeSession(tmp_path / "o.onnx").run(None, {"x": x})[0]
    np.testing.assert_array_equal(back, got[0])


FLOOR_NOT_FUSED = {
    # name: tail, constants, nodes after the activation that fuse
    "per_channel_floor": ([("Max", "a", "f", "y")], [const("f", -0.4, (1, 6, 1, 1))], 0),
    "nan_floor": ([("Max", "a", "f", "y")], [const("f", np.nan)], 0),
    "scale_after_the_floor": (  # the Max fuses, the Mul after it stays
        [("Max", "a", "f", "m"), ("Mul", "m", "s", "y")],
        [const("f", -0.4), const("s", 2.0)],
        1,
    ),
    "min_is_not_a_floor": ([("Min", "a", "f", "y")], [const("f", 0.5)], 0),
}


@pytest.mark.parametrize("case", sorted(FLOOR_NOT_FUSED))
def test_what_must_not_fuse_as_a_floor(case):
    ops, consts, fused = FLOOR_NOT_FUSED[case]
    tail = [helper.make_node(op, [a, b], [out]) for op, a, b, out in ops]
    m, x_shape = model(tail, activation="LeakyRelu", consts=consts)
    x = RNG.standard_normal(x_shape).astype(np.float32)
    none = onnx_light.RuntimeSession(m, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(m)
    assert none.planned_nodes - opt.planned_nodes == 1 + fused
    np.testing.assert_allclose(
        opt.run(None, {"x": x})[0], none.run(None, {"x": x})[0], rtol=1e-5, atol=1e-5
    )


def test_post_max_from_a_file_keeps_nan_and_refuses_a_nan_floor():
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    plain = onnx_light.RuntimeSession(fused_conv_model()).run(None, {"x": x})[0]
    got = onnx_light.RuntimeSession(
        fused_conv_model(activation="Relu", post_scale=-2.0, post_max=-3.0)
    ).run(None, {"x": x})[0]
    want = np.maximum(np.maximum(plain, 0) * np.float32(-2.0), np.float32(-3.0))
    np.testing.assert_array_equal(got, want)
    nan = np.full_like(x, np.nan)  # NaN passes the floor as Max passes it
    out = onnx_light.RuntimeSession(fused_conv_model(post_max=0.0)).run(None, {"x": nan})[0]
    assert np.isnan(out).all()
    with pytest.raises(ValueError, match="post_max is NaN"):
        onnx_light.RuntimeSession(fused_conv_model(post_max=float("nan"))).run(None, {"x": x})
