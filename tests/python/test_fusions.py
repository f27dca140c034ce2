"""The extended-level fusions, each checked against the same model at level "none":
BatchNormalization folded into Conv; Conv + activation (and the HardSwish and x*sigmoid(x)
patterns) into onnx_light:FusedConv. Fused results round differently (weights scaled, the
activation computed in SIMD): float32 compared at rtol 1e-5, atol 1e-5. Also what must not
fuse, and FusedConv loaded from a model file."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import fused_conv_model

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT

# The element-wise chain fusion would merge the nodes these tests count: off here (it has
# its own tests, test_elementwise_chain.py).
ONLY_THIS_PASS = {"disabled_passes": ["fuse_elementwise_chain"]}
RNG = np.random.default_rng(11)


def conv_model(
    tail,
    *,
    opset=17,
    w_shape=(6, 3, 3, 3),
    x_shape=(2, 3, 9, 11),
    conv_attrs=None,
    extra_inits=(),
    outputs=("y",),
    bias=True,
    dtype=np.float32,
):
    """x -> Conv(W, B) -> c, then the `tail` nodes; W, B and extra_inits are initializers."""
    elem = F if dtype == np.float32 else TensorProto.DOUBLE
    w = numpy_helper.from_array((RNG.standard_normal(w_shape) * 0.3).astype(dtype), "W")
    inits = [w, *extra_inits]
    ins = ["x", "W"]
    if bias:
        inits.append(numpy_helper.from_array(RNG.standard_normal(w_shape[0]).astype(dtype), "B"))
        ins.append("B")
    conv = helper.make_node("Conv", ins, ["c"], name="conv", **(conv_attrs or {"pads": [1] * 4}))
    graph = helper.make_graph(
        [conv, *tail],
        "g",
        [helper.make_tensor_value_info("x", elem, list(x_shape))],
        [helper.make_tensor_value_info(o, elem, None) for o in outputs],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def scalar(name, v):
    return numpy_helper.from_array(np.array(v, np.float32), name)


def check(model, *, fused_away, x_shape=(2, 3, 9, 11), tmp_path=None):
    x = RNG.standard_normal(x_shape).astype(np.float32)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    kw = {"optimized_model_path": tmp_path / "o.onnx"} if tmp_path else {}
    opt = onnx_light.RuntimeSession(model, **kw, **ONLY_THIS_PASS)
    assert none.planned_nodes - opt.planned_nodes == fused_away
    want = none.run(None, {"x": x})
    got = opt.run(None, {"x": x})
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    if tmp_path:
        back = onnx_light.RuntimeSession(tmp_path / "o.onnx", graph_optimization_level="none")
        assert back.planned_nodes == opt.planned_nodes
        for g, b in zip(got, back.run(None, {"x": x})):
            np.testing.assert_array_equal(b, g)
    return opt


ACTIVATIONS = [
    ("Relu", {}, []),
    ("Sigmoid", {}, []),
    ("Tanh", {}, []),
    ("LeakyRelu", {"alpha": 0.07}, []),
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}, []),
    ("HardSwish", {}, []),
    ("Clip", {}, ["lo", "hi"]),
]


@pytest.mark.parametrize("op,attrs,bounds", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
@pytest.mark.parametrize(
    "shape",
    [
        ((6, 3, 3, 3), (2, 3, 9, 11), {"pads": [1] * 4}),  # dense 3x3
        ((6, 1, 3, 3), (2, 6, 9, 11), {"pads": [1] * 4, "group": 6}),  # depthwise
        ((6, 1, 5, 5), (1, 6, 17, 19), {"pads": [2] * 4, "group": 6, "strides": [2, 2]}),
        ((6, 2, 3, 3), (2, 6, 9, 11), {"group": 3}),  # grouped, no padding
        ((6, 3, 1, 1), (2, 3, 9, 11), {}),  # 1x1 without im2col
        ((6, 3, 3), (2, 3, 13), {"pads": [1, 1]}),  # 1-D: the general path
    ],
    ids=["dense", "depthwise", "depthwise_s2", "grouped", "pointwise", "conv1d"],
)
def test_conv_activation_fuses(op, attrs, bounds, shape, tmp_path):
    w_shape, x_shape, conv_attrs = shape
    extra = [scalar("lo", -0.5), scalar("hi", 0.8)] if bounds else []
    tail = [helper.make_node(op, ["c", *bounds], ["y"], **attrs)]
    model = conv_model(
        tail, w_shape=w_shape, x_shape=x_shape, conv_attrs=conv_attrs, extra_inits=extra
    )
    check(model, fused_away=1, x_shape=x_shape, tmp_path=tmp_path)
    ops = [n.op_type for n in onnx_light.onnx.load(str(tmp_path / "o.onnx")).graph.node]
    assert ops == ["FusedConv"]


def test_clip_before_opset_11_and_relu_like_clip():
    tail = [helper.make_node("Clip", ["c"], ["y"], min=0.0, max=6.0)]
    check(conv_model(tail, opset=9), fused_away=1)
    tail = [helper.make_node("Clip", ["c", "zero"], ["y"])]  # no max: a Relu
    check(conv_model(tail, extra_inits=[scalar("zero", 0.0)]), fused_away=1)


@pytest.mark.parametrize("last", ["div6", "mul_sixth"])
def test_hardswish_pattern_fuses(last):
    """x * Clip(x + 3, 0, 6) / 6, as Paddle and older PyTorch exports write HardSwish."""
    tail = [
        helper.make_node("Add", ["c", "three"], ["a"]),
        helper.make_node("Clip", ["a", "zero", "six"], ["cl"]),
        helper.make_node("Mul", ["c", "cl"], ["m"]),
        (
            helper.make_node("Div", ["m", "six"], ["y"])
            if last == "div6"
            else helper.make_node("Mul", ["m", "sixth"], ["y"])
        ),
    ]
    inits = [
        scalar("three", 3.0),
        scalar("zero", 0.0),
        scalar("six", 6.0),
        scalar("sixth", 1.0 / 6.0),
    ]
    check(conv_model(tail, extra_inits=inits), fused_away=4)


def test_silu_pattern_fuses():
    tail = [helper.make_node("Sigmoid", ["c"], ["s"]), helper.make_node("Mul", ["s", "c"], ["y"])]
    check(conv_model(tail), fused_away=2)


@pytest.mark.parametrize("conv_bias", [True, False])
def test_batch_norm_folds_then_activation_fuses(conv_bias):
    m = 6
    bn = [
        numpy_helper.from_array(RNG.uniform(0.5, 2, m).astype(np.float32), "scale"),
        numpy_helper.from_array(RNG.standard_normal(m).astype(np.float32), "shift"),
        numpy_helper.from_array(RNG.standard_normal(m).astype(np.float32), "mean"),
        numpy_helper.from_array(RNG.uniform(0.1, 3, m).astype(np.float32), "var"),
    ]
    tail = [
        helper.make_node(
            "BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["b"], epsilon=1e-3
        ),
        helper.make_node("Relu", ["b"], ["y"]),
    ]
    check(conv_model(tail, extra_inits=bn, bias=conv_bias), fused_away=2)


def test_what_must_not_fuse():
    # The conv output is also a graph output: the Relu stays.
    tail = [helper.make_node("Relu", ["c"], ["y"])]
    check(conv_model(tail, outputs=("y", "c")), fused_away=0)
    # Read by two nodes.
    tail = [helper.make_node("Relu", ["c"], ["y"]), helper.make_node("Neg", ["c"], ["z"])]
    check(conv_model(tail, outputs=("y", "z")), fused_away=0)
    # HardSwish-like chain with the wrong constant (Add 2, not 3).
    tail = [
        helper.make_node("Add", ["c", "two"], ["a"]),
        helper.make_node("Clip", ["a", "zero", "six"], ["cl"]),
        helper.make_node("Mul", ["c", "cl"], ["m"]),
        helper.make_node("Div", ["m", "six"], ["y"]),
    ]
    inits = [scalar("two", 2.0), scalar("zero", 0.0), scalar("six", 6.0)]
    check(conv_model(tail, extra_inits=inits), fused_away=0)
    # float64: FusedConv is float32 only.
    tail = [helper.make_node("Relu", ["c"], ["y"])]
    model = conv_model(tail, dtype=np.float64)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    assert onnx_light.RuntimeSession(model, **ONLY_THIS_PASS).planned_nodes == none.planned_nodes


def test_batch_norm_fed_by_a_graph_input_does_not_fold():
    tail = [helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["y"])]
    model = conv_model(tail)
    for name in "sbmv":
        model.graph.input.append(helper.make_tensor_value_info(name, F, [6]))
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    assert (
        onnx_light.RuntimeSession(model, **ONLY_THIS_PASS).planned_nodes == none.planned_nodes == 2
    )


def fused_model(activation=None, params=None, with_z=False):
    attrs = {}
    if activation is not None:
        attrs["activation"] = activation
    if params is not None:
        attrs["activation_params"] = params
    return fused_conv_model(with_z=with_z, **attrs)


def test_fused_conv_from_a_file_with_residual():
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    z = RNG.standard_normal((1, 3, 5, 5)).astype(np.float32)
    plain = onnx_light.RuntimeSession(fused_model()).run(None, {"x": x})[0]
    got = onnx_light.RuntimeSession(fused_model("Relu", with_z=True)).run(None, {"x": x, "z": z})[0]
    np.testing.assert_allclose(got, np.maximum(plain + z, 0), rtol=1e-6, atol=1e-6)
    s = onnx_light.RuntimeSession(fused_model("Clip", [-1.0, 1.0], with_z=True))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        s.run(None, {"x": x, "z": z[:, :2]})
    np.testing.assert_allclose(
        s.run(None, {"x": x, "z": z})[0], np.clip(plain + z, -1, 1), rtol=1e-6, atol=1e-6
    )
    # A Z of another shape broadcasts as the Add it came from would: per channel, or to a
    # larger output (two copies of the batch).
    for zz in (z[:, :, :1, :1], np.concatenate([z, -z])):
        np.testing.assert_allclose(
            s.run(None, {"x": x, "z": zz})[0], np.clip(plain + zz, -1, 1), rtol=1e-6, atol=1e-6
        )


@pytest.mark.parametrize(
    "activation,params,message",
    [
        ("Swish", None, "unknown activation 'Swish'"),
        ("Clip", None, "Clip needs activation_params"),
        ("Relu", [1.0], "Relu takes 0 activation_params, got 1"),
    ],
)
def test_fused_conv_bad_attributes(activation, params, message):
    x = np.zeros((1, 2, 5, 5), np.float32)
    with pytest.raises(ValueError, match=message):  # at the first run: kernels are lazy
        onnx_light.RuntimeSession(fused_model(activation, params)).run(None, {"x": x})


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize(
    "w_shape,x_shape",
    [
        ((32, 64, 3, 3), (2, 64, 40, 96)),
        ((32, 64, 1, 1), (1, 64, 32, 32)),
        ((64, 64, 3, 3), (1, 64, 12, 12)),
    ],
    ids=["bands", "one_band_split_columns", "one_band_split_rows"],
)
def test_convolution_is_the_same_on_more_threads(threads, w_shape, x_shape):
    """A convolution whose columns do not fit in L2 runs in bands of output rows, and with
    more threads each thread takes whole bands (same blocks, same sums: bit-identical); a
    single band splits its product between the threads instead, by columns or, when
    narrow, by rows. The packed kernel (AVX-512) computes every element the same way
    however it is split (bit-identical); OpenBLAS (AVX2 and older) picks its edge kernels by
    block size, so there the split results agree to float32 summation-order rounding
    (rtol 1e-5, atol 5e-5: sums of 576 products of magnitude ~0.3)."""
    tail = [helper.make_node("Relu", ["c"], ["y"])]
    model = conv_model(tail, w_shape=w_shape, x_shape=x_shape, conv_attrs={})
    x = RNG.standard_normal(x_shape).astype(np.float32)
    one = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
    many = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    packed = onnx_light._core.simd_target().startswith("AVX3")  # the packed kernel runs
    if packed or w_shape[2] == 3 and x_shape[0] == 2:  # the bands case splits no product
        np.testing.assert_array_equal(many, one)
    else:
        np.testing.assert_allclose(many, one, rtol=1e-5, atol=5e-5)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none").run(None, {"x": x})[0]
    np.testing.assert_allclose(one, none, rtol=1e-5, atol=1e-5)


def layer_norm_model(
    *, square="Pow", affine=2, opset=13, axes=(-1,), keepdims=1, extra_output=None, eps_input=False
):
    """The decomposed layer normalization over the last axis of x [2, 5, 16]."""
    d = 16
    inits = [
        numpy_helper.from_array(RNG.standard_normal(d).astype(np.float32), "gamma"),
        numpy_helper.from_array(RNG.standard_normal(d).astype(np.float32), "beta"),
        scalar("two", 2.0),
    ]
    inputs = [helper.make_tensor_value_info("x", F, [2, 5, d])]
    if eps_input:
        inputs.append(helper.make_tensor_value_info("eps", F, []))
    else:
        inits.append(scalar("eps", 1e-5))

    def reduce(src, dst):
        if opset >= 18:
            if "axes" not in [i.name for i in inits]:
                inits.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
            return helper.make_node("ReduceMean", [src, "axes"], [dst], keepdims=keepdims)
        return helper.make_node("ReduceMean", [src], [dst], axes=list(axes), keepdims=keepdims)

    nodes = [reduce("x", "mu"), helper.make_node("Sub", ["x", "mu"], ["d"])]
    if square == "Pow":
        nodes.append(helper.make_node("Pow", ["d", "two"], ["sq"]))
    else:
        nodes.append(helper.make_node("Mul", ["d", "d"], ["sq"]))
    nodes += [
        reduce("sq", "var"),
        helper.make_node("Add", ["var", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["sd"]),
        helper.make_node("Div", ["d", "sd"], ["n"]),
    ]
    out = "n"
    if affine >= 1:
        nodes.append(helper.make_node("Mul", ["n", "gamma"], ["g"]))
        out = "g"
    if affine >= 2:
        nodes.append(helper.make_node("Add", ["g", "beta"], ["b"]))
        out = "b"
    nodes.append(helper.make_node("Relu", [out], ["y"]))
    outputs = [helper.make_tensor_value_info("y", F, None)]
    if extra_output:
        outputs.append(helper.make_tensor_value_info(extra_output, F, None))
    graph = helper.make_graph(nodes, "ln", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("square", ["Pow", "Mul"])
@pytest.mark.parametrize("affine", [0, 1, 2])
@pytest.mark.parametrize("opset", [13, 18])
def test_layer_norm_pattern_fuses(square, affine, opset, tmp_path):
    model = layer_norm_model(square=square, affine=affine, opset=opset)
    x = (RNG.standard_normal((2, 5, 16)) * 3 + 1).astype(np.float32)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    path = tmp_path / "ln.onnx"
    opt = onnx_light.RuntimeSession(model, optimized_model_path=path)
    assert none.planned_nodes - opt.planned_nodes == 6 + affine
    want = none.run(None, {"x": x})[0]
    got = opt.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # The written graph has the fused node and loads back with the same results.
    written = onnx_light.onnx.load(str(path))
    assert [n.op_type for n in written.graph.node] == ["LayerNormalization", "Relu"]
    again = onnx_light.RuntimeSession(path).run(None, {"x": x})[0]
    np.testing.assert_array_equal(again, got)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"axes": (2,)},  # a positive axis: the rank is not known to the pass
        {"axes": (1, 2)},
        {"keepdims": 0},
        {"extra_output": "d"},  # d is read outside the pattern
        {"extra_output": "var"},
        {"eps_input": True},  # epsilon is not a constant
    ],
)
def test_layer_norm_pattern_not_fused(kwargs):
    model = layer_norm_model(**kwargs)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, **ONLY_THIS_PASS)
    if kwargs == {"extra_output": "d"}:
        # No LayerNormalization (d = x - mean is read outside), but what follows d is an
        # RMS normalization of d (times gamma): those 6 nodes become one.
        assert none.planned_nodes - opt.planned_nodes == 5
    else:
        assert opt.planned_nodes == none.planned_nodes
    if kwargs.get("keepdims") == 0:
        return  # the model cannot run (x - mean does not broadcast)
    feeds = {"x": RNG.standard_normal((2, 5, 16)).astype(np.float32)}
    if kwargs.get("eps_input"):
        feeds["eps"] = np.array(1e-5, np.float32)
    for g, w in zip(opt.run(None, feeds), none.run(None, feeds)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def rms_model(form, *, gamma=True, square="Pow", extra_output=None):
    """RMS normalization over the last axis of x [3, 7, 32], as T5 (1 / sqrt then Mul),
    LLaMA-style exports (Reciprocal) or a plain Div write it."""
    d = 32
    inits = [
        numpy_helper.from_array(RNG.standard_normal(d).astype(np.float32), "gamma"),
        scalar("two", 2.0),
        scalar("one", 1.0),
        scalar("eps", 1e-6),
    ]
    sq = (
        helper.make_node("Pow", ["x", "two"], ["sq"])
        if square == "Pow"
        else helper.make_node("Mul", ["x", "x"], ["sq"])
    )
    nodes = [
        sq,
        helper.make_node("ReduceMean", ["sq"], ["var"], axes=[-1], keepdims=1),
        helper.make_node("Add", ["var", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["sd"]),
    ]
    if form == "div":
        nodes.append(helper.make_node("Div", ["x", "sd"], ["n"]))
    else:
        inv = (
            helper.make_node("Div", ["one", "sd"], ["r"])
            if form == "one_over"
            else helper.make_node("Reciprocal", ["sd"], ["r"])
        )
        nodes += [inv, helper.make_node("Mul", ["x", "r"], ["n"])]
    out = "n"
    if gamma:
        nodes.append(helper.make_node("Mul", ["gamma", "n"], ["g"]))
        out = "g"
    nodes.append(helper.make_node("Relu", [out], ["y"]))
    outputs = [helper.make_tensor_value_info("y", F, None)]
    if extra_output:
        outputs.append(helper.make_tensor_value_info(extra_output, F, None))
    graph = helper.make_graph(
        nodes, "rms", [helper.make_tensor_value_info("x", F, [3, 7, d])], outputs, inits
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("form", ["one_over", "reciprocal", "div"])
@pytest.mark.parametrize("gamma", [True, False])
@pytest.mark.parametrize("square", ["Pow", "Mul"])
def test_rms_norm_pattern_fuses(form, gamma, square, tmp_path):
    model = rms_model(form, gamma=gamma, square=square)
    x = RNG.standard_normal((3, 7, 32)).astype(np.float32)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, optimized_model_path=tmp_path / "o.onnx")
    assert opt.planned_nodes == 2  # RMSNormalization, Relu
    got = opt.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, none.run(None, {"x": x})[0], rtol=1e-5, atol=1e-6)
    # numpy, in float64
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt((x64**2).mean(axis=-1, keepdims=True) + 1e-6)
    if gamma:
        want = want * numpy_helper.to_array(model.graph.initializer[0])
    np.testing.assert_allclose(got, np.maximum(want, 0), rtol=1e-5, atol=1e-6)
    written = onnx_light.onnx.load(str(tmp_path / "o.onnx"))
    assert [n.op_type for n in written.graph.node] == ["RMSNormalization", "Relu"]
    again = onnx_light.RuntimeSession(tmp_path / "o.onnx").run(None, {"x": x})[0]
    np.testing.assert_array_equal(again, got)


@pytest.mark.parametrize("extra", ["sq", "sd", "n"])
def test_rms_norm_pattern_not_fused_when_a_value_is_read_outside(extra):
    model = rms_model("one_over", extra_output=extra)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, **ONLY_THIS_PASS)
    if extra == "n":  # the normalized value is an output: fused up to it, gamma stays
        assert none.planned_nodes - opt.planned_nodes == 5
    else:
        assert opt.planned_nodes == none.planned_nodes
    x = RNG.standard_normal((3, 7, 32)).astype(np.float32)
    for g, w in zip(opt.run(None, {"x": x}), none.run(None, {"x": x})):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def gelu_model(form, order, *, half=0.5, extra_output=None):
    """GELU as exporters write it: form "erf_div", "erf_mul", "tanh_pow" or "tanh_mul";
    order of 0.5 * x * (1 + e): "x_then_half", "half_first", "half_of_a"."""
    inits = [
        scalar("one", 1.0),
        scalar("half", half),
        scalar("sqrt2", 1.4142135),
        scalar("inv_sqrt2", 0.70710678),
        scalar("three", 3.0),
        scalar("c", 0.044715),
        scalar("k", 0.7978845608),
    ]
    if form == "erf_div":
        nodes = [
            helper.make_node("Div", ["x", "sqrt2"], ["t"]),
            helper.make_node("Erf", ["t"], ["e"]),
        ]
    elif form == "erf_mul":
        nodes = [
            helper.make_node("Mul", ["x", "inv_sqrt2"], ["t"]),
            helper.make_node("Erf", ["t"], ["e"]),
        ]
    else:
        if form == "tanh_pow":
            cube = [helper.make_node("Pow", ["x", "three"], ["x3"])]
        else:
            cube = [
                helper.make_node("Mul", ["x", "x"], ["x2"]),
                helper.make_node("Mul", ["x", "x2"], ["x3"]),
            ]
        nodes = cube + [
            helper.make_node("Mul", ["x3", "c"], ["q"]),
            helper.make_node("Add", ["x", "q"], ["s"]),
            helper.make_node("Mul", ["s", "k"], ["t"]),
            helper.make_node("Tanh", ["t"], ["e"]),
        ]
    nodes.append(helper.make_node("Add", ["e", "one"], ["a"]))
    if order == "x_then_half":
        nodes += [
            helper.make_node("Mul", ["x", "a"], ["xa"]),
            helper.make_node("Mul", ["xa", "half"], ["g"]),
        ]
    elif order == "half_first":
        nodes += [
            helper.make_node("Mul", ["x", "half"], ["xh"]),
            helper.make_node("Mul", ["xh", "a"], ["g"]),
        ]
    else:
        nodes += [
            helper.make_node("Mul", ["a", "half"], ["ah"]),
            helper.make_node("Mul", ["x", "ah"], ["g"]),
        ]
    nodes.append(helper.make_node("Neg", ["g"], ["y"]))
    outputs = [helper.make_tensor_value_info("y", F, None)]
    if extra_output:
        outputs.append(helper.make_tensor_value_info(extra_output, F, None))
    graph = helper.make_graph(
        nodes, "gelu", [helper.make_tensor_value_info("x", F, [4, 33])], outputs, inits
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("form", ["erf_div", "erf_mul", "tanh_pow", "tanh_mul"])
@pytest.mark.parametrize("order", ["x_then_half", "half_first", "half_of_a"])
def test_gelu_patterns_fuse(form, order, tmp_path):
    model = gelu_model(form, order)
    x = (RNG.standard_normal((4, 33)) * 3).astype(np.float32)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, optimized_model_path=tmp_path / "o.onnx")
    assert opt.planned_nodes == 2  # Gelu, Neg
    got = opt.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, none.run(None, {"x": x})[0], rtol=1e-5, atol=1e-6)
    x64 = x.astype(np.float64)
    if form.startswith("erf"):
        from math import erf

        want = 0.5 * x64 * (1 + np.vectorize(erf)(x64 / np.sqrt(2)))
    else:
        want = 0.5 * x64 * (1 + np.tanh(np.sqrt(2 / np.pi) * (x64 + 0.044715 * x64**3)))
    np.testing.assert_allclose(got, -want, rtol=1e-5, atol=1e-6)
    written = onnx_light.onnx.load(str(tmp_path / "o.onnx"))
    assert [n.op_type for n in written.graph.node] == ["Gelu", "Neg"]


@pytest.mark.parametrize(
    "kwargs", [{"half": 0.6}, {"extra_output": "a"}, {"extra_output": "e"}, {"extra_output": "t"}]
)
def test_gelu_pattern_not_fused(kwargs):
    model = gelu_model("tanh_pow", "half_first", **kwargs)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, **ONLY_THIS_PASS)
    assert opt.planned_nodes == none.planned_nodes


def residual_model(*, activation="Relu", z_after=False, conv_read_twice=False, z_shape=None):
    """x -> Conv -> Add(., z) [-> activation]; z = Sigmoid(x2), computed before the Conv or
    after it (a branch that comes later in the node order)."""
    w = numpy_helper.from_array((RNG.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32), "W")
    b = numpy_helper.from_array(RNG.standard_normal(4).astype(np.float32), "B")
    zn = helper.make_node("Sigmoid", ["x2"], ["z"])
    conv = helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1])
    nodes = [conv, zn] if z_after else [zn, conv]
    nodes.append(helper.make_node("Add", ["c", "z"], ["s"]))
    out = "s"
    if activation:
        nodes.append(helper.make_node(activation, ["s"], ["y"]))
        out = "y"
    outputs = [helper.make_tensor_value_info(out, F, None)]
    if conv_read_twice:
        outputs.append(helper.make_tensor_value_info("c", F, None))
    graph = helper.make_graph(
        nodes,
        "res",
        [
            helper.make_tensor_value_info("x", F, [2, 3, 6, 7]),
            helper.make_tensor_value_info("x2", F, list(z_shape or [2, 4, 6, 7])),
        ],
        outputs,
        [w, b],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("activation", ["Relu", "LeakyRelu", None])
@pytest.mark.parametrize("z_after", [False, True])
@pytest.mark.parametrize("z_shape", [None, (1, 4, 1, 1), (3, 2, 4, 6, 7)])
def test_conv_residual_add_fuses(activation, z_after, z_shape, tmp_path):
    model = residual_model(activation=activation, z_after=z_after, z_shape=z_shape)
    feeds = {
        "x": RNG.standard_normal((2, 3, 6, 7)).astype(np.float32),
        "x2": RNG.standard_normal(z_shape or (2, 4, 6, 7)).astype(np.float32),
    }
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, optimized_model_path=tmp_path / "o.onnx")
    assert none.planned_nodes - opt.planned_nodes == (2 if activation else 1)
    want = none.run(None, feeds)[0]
    got = opt.run(None, feeds)[0]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    written = onnx_light.onnx.load(str(tmp_path / "o.onnx"))
    assert [n.op_type for n in written.graph.node] == ["Sigmoid", "FusedConv"]
    again = onnx_light.RuntimeSession(tmp_path / "o.onnx").run(None, feeds)[0]
    np.testing.assert_array_equal(again, got)


def test_conv_residual_not_fused_when_the_conv_output_is_read_elsewhere():
    model = residual_model(conv_read_twice=True)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, **ONLY_THIS_PASS)
    assert opt.planned_nodes == none.planned_nodes


@pytest.mark.parametrize("threads", [1, 2])
def test_fused_layer_and_rms_norm_rows_split_between_threads(threads):
    # 3000 rows (more than two chunks of 16k values): chunks of rows on two threads give
    # the one-thread values exactly.
    for model in (layer_norm_model(), rms_model("one_over")):
        d = model.graph.input[0].type.tensor_type.shape.dim[-1].dim_value
        x = RNG.standard_normal((3, 1000, d)).astype(np.float32)
        model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 3
        model.graph.input[0].type.tensor_type.shape.dim[1].dim_value = 1000
        one = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
        got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
        np.testing.assert_array_equal(got, one)


@pytest.mark.parametrize("threads", [1, 2])
def test_gelu_split_between_threads_equals_one_thread(threads):
    model = gelu_model("tanh_pow", "half_first")
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1000
    x = (RNG.standard_normal((1000, 33)) * 3).astype(np.float32)
    one = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, one)
