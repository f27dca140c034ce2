"""onnx_light.RuntimeSession against numpy references (float64 math, rounded once), and
its error behaviour. Tolerances: float32 ≤ 1 ULP-ish relative 2e-7 (Log ≤ 1 ULP),
float64 relative 1e-15, float16/bfloat16 exact to the rounded float32 result (1 ULP of the
16-bit type allowed)."""

from __future__ import annotations

import threading

import ml_dtypes
import numpy as np
import pytest
from _graphs import LEVELS_X, levels_model

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

# The float64 references overflow, divide by zero and meet NaN on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

FLOAT_TYPES = {
    TensorProto.FLOAT: np.float32,
    TensorProto.DOUBLE: np.float64,
    TensorProto.FLOAT16: np.float16,
    TensorProto.BFLOAT16: ml_dtypes.bfloat16,
}


def unary_model(op, domain, elem_type, **attrs):
    node = helper.make_node(op, ["x"], ["y"], domain=domain, **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", elem_type, None)],
        [helper.make_tensor_value_info("y", elem_type, None)],
    )
    opsets = [helper.make_opsetid("", 17)]
    if domain:
        opsets.append(helper.make_opsetid(domain, 1))
    return helper.make_model(graph, opset_imports=opsets)


def special_inputs(dtype):
    info = ml_dtypes.finfo(dtype)
    base = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5, 2.0, 1e-3, 123.25]
    base += [float(info.smallest_subnormal), float(info.tiny), float(info.max), -float(info.max)]
    near_one = np.nextafter(np.ones(8, dtype), np.full(8, 2, dtype))
    return np.concatenate([np.array(base).astype(dtype), near_one.astype(dtype)])


def leaky_reference(x, alpha):
    x64 = x.astype(np.float64)
    return np.where(x64 < 0, x64 * np.float64(np.float32(alpha)), x64)


@pytest.mark.parametrize("elem_type,dtype", list(FLOAT_TYPES.items()))
@pytest.mark.parametrize("domain", ["onnx_light", ""])
def test_leaky_relu_every_tail_and_specials(domain, elem_type, dtype):
    session = onnx_light.RuntimeSession(unary_model("LeakyRelu", domain, elem_type, alpha=0.3))
    rng = np.random.default_rng(elem_type)
    for n in list(range(0, 68)) + [1000, 4099]:
        x = (rng.standard_normal(n) * 10).astype(dtype)
        (y,) = session.run(None, {"x": x})
        assert y.dtype == dtype and y.shape == (n,)
        if dtype in (np.float32, np.float64):
            # alpha * x in the element type, as the kernel computes it
            want = np.where(x < 0, x * dtype(np.float32(0.3)), x)
        else:
            want = np.where(
                x < 0, (x.astype(np.float32) * np.float32(0.3)), x.astype(np.float32)
            ).astype(dtype)
        np.testing.assert_array_equal(y, want)
    x = special_inputs(dtype)
    (y,) = session.run(None, {"x": x})
    want = (
        leaky_reference(x, 0.3).astype(np.float32).astype(dtype)
        if dtype not in (np.float64,)
        else leaky_reference(x, np.float64(np.float32(0.3)))
    )
    np.testing.assert_array_equal(np.isnan(y), np.isnan(x))
    ok = ~np.isnan(x)
    np.testing.assert_allclose(y[ok].astype(np.float64), want[ok].astype(np.float64), rtol=1e-6)
    np.testing.assert_array_equal(np.signbit(y[ok]), np.signbit(x[ok]))


def ulp_error(y, ref64, dtype):
    ref = ref64.astype(dtype)
    spacing = np.abs(np.spacing(ref.astype(np.float64).astype(dtype)).astype(np.float64))
    finite = np.isfinite(ref64)
    err = np.zeros(y.shape)
    err[finite] = np.abs(y[finite].astype(np.float64) - ref64[finite]) / spacing[finite]
    return err


@pytest.mark.parametrize("elem_type,dtype", list(FLOAT_TYPES.items()))
@pytest.mark.parametrize("domain", ["onnx_light_cpu", ""])
def test_log_against_float64_reference(domain, elem_type, dtype):
    session = onnx_light.RuntimeSession(unary_model("Log", domain, elem_type))
    rng = np.random.default_rng(100 + elem_type)
    for n in list(range(0, 68)) + [5000]:
        x = np.exp(rng.uniform(-20, 20, n)).astype(dtype)
        (y,) = session.run(None, {"x": x})
        ref = np.log(x.astype(np.float64))
        if dtype in (np.float16, ml_dtypes.bfloat16):
            # float32 log rounded once: within 1 ULP of the 16-bit type
            assert ulp_error(y, ref, dtype).max(initial=0.0) <= 1.0
        else:
            assert ulp_error(y, ref, dtype).max(initial=0.0) <= 1.0, n
    with np.errstate(divide="ignore", invalid="ignore"):
        x = special_inputs(dtype)
        (y,) = session.run(None, {"x": x})
        ref = np.log(x.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(y), np.isnan(ref))
    np.testing.assert_array_equal(np.isinf(y), np.isinf(ref))
    finite = np.isfinite(ref)
    assert ulp_error(y[finite], ref[finite], dtype).max(initial=0.0) <= 1.0


def test_binary_broadcasting_and_multinode_against_numpy():
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, "K", 3])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, ["K", 1])
    y = helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)
    c = numpy_helper.from_array(np.array([2.0], np.float32), "c")
    nodes = [
        helper.make_node("Add", ["a", "b"], ["s"]),
        helper.make_node("Div", ["s", "c"], ["d"]),
        helper.make_node("Sub", ["d", "b"], ["e"]),
        helper.make_node("Mul", ["e", "e"], ["m"]),
        helper.make_node("Relu", ["m"], ["r"]),
        helper.make_node("Cast", ["r"], ["y"], to=TensorProto.DOUBLE),
    ]
    model = helper.make_model(
        helper.make_graph(nodes, "g", [a, b], [y], [c]), opset_imports=[helper.make_opsetid("", 17)]
    )
    session = onnx_light.RuntimeSession(model)
    rng = np.random.default_rng(0)
    for k in (1, 4, 7):
        av = rng.standard_normal((2, k, 3)).astype(np.float32)
        bv = rng.standard_normal((k, 1)).astype(np.float32)
        (out,) = session.run(["y"], {"a": av, "b": bv})
        e = (av + bv) / np.float32(2) - bv
        np.testing.assert_array_equal(out, np.maximum(e * e, 0).astype(np.float64))


def test_integer_ops_and_cast():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [5])
    y = helper.make_tensor_value_info("y", TensorProto.INT32, [5])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT16, [5])
    nodes = [
        helper.make_node("Cast", ["x"], ["i"], to=TensorProto.INT32),
        helper.make_node("Mul", ["i", "i"], ["y"]),
        helper.make_node("Cast", ["x"], ["z"], to=TensorProto.FLOAT16),
    ]
    model = helper.make_model(
        helper.make_graph(nodes, "g", [x], [y, z]), opset_imports=[helper.make_opsetid("", 17)]
    )
    xv = np.array([1.9, -2.7, 3e9, np.nan, 65520.0], np.float32)
    yv, zv = onnx_light.RuntimeSession(model).run(None, {"x": xv})
    # truncation toward zero, saturation at int32's range, NaN -> 0; then a wrapping square
    ints = np.array([1, -2, 2**31 - 1, 0, 65520], np.int64)
    np.testing.assert_array_equal(yv, (ints * ints).astype(np.int32))
    np.testing.assert_array_equal(zv.view(np.uint16), xv.astype(np.float16).view(np.uint16))


def test_metadata_and_inputs_of_every_kind():
    session = onnx_light.RuntimeSession(unary_model("Relu", "", TensorProto.FLOAT))
    (arg,) = session.get_inputs()
    assert arg.name == "x" and arg.type == "tensor(float)" and arg.shape is None
    model = helper.make_model(
        helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])],
            "g",
            [helper.make_tensor_value_info("x", TensorProto.INT64, ["N", 3, None])],
            [helper.make_tensor_value_info("y", TensorProto.INT64, ["N", 3, None])],
        ),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    for source in (model, model.SerializeToString()):
        s = onnx_light.RuntimeSession(source)
        assert s.get_inputs()[0].shape == ["N", 3, None]
        assert s.get_outputs()[0].dtype == np.int64
        x = np.arange(6, dtype=np.int64).reshape(2, 3, 1)
        (y,) = s.run(None, {"x": x})
        np.testing.assert_array_equal(y, x)
        assert not np.shares_memory(y, x)  # outputs never alias inputs


def test_read_only_noncontiguous_scalar_and_empty_inputs():
    session = onnx_light.RuntimeSession(unary_model("LeakyRelu", "onnx_light", TensorProto.FLOAT))
    x = np.arange(-5, 5, dtype=np.float32).reshape(2, 5)
    x.flags.writeable = False
    (y,) = session.run(None, {"x": x[:, ::2]})
    np.testing.assert_array_equal(
        y, np.where(x[:, ::2] < 0, x[:, ::2] * np.float32(0.01), x[:, ::2])
    )
    (s,) = session.run(None, {"x": np.array(-2.0, np.float32)})
    assert s.shape == () and s == np.float32(-0.02)
    (e,) = session.run(None, {"x": np.zeros((3, 0), np.float32)})
    assert e.shape == (3, 0)


def test_errors_name_the_input():
    model = helper.make_model(
        helper.make_graph(
            [helper.make_node("Relu", ["x"], ["y"])],
            "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, "B"])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        ),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    s = onnx_light.RuntimeSession(model)
    good = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match="input 'x': expected float32, got float64"):
        s.run(None, {"x": good.astype(np.float64)})
    with pytest.raises(ValueError, match="input 'x': expected rank 2, got shape \\[6\\]"):
        s.run(None, {"x": good.ravel()})
    with pytest.raises(ValueError, match="input 'x': dimension 0 must be 2"):
        s.run(None, {"x": np.zeros((3, 3), np.float32)})
    with pytest.raises(ValueError, match="missing input 'x'"):
        s.run(None, {})
    with pytest.raises(ValueError, match="unknown input 'q'"):
        s.run(None, {"q": good})
    with pytest.raises(ValueError, match="unknown output 'z'"):
        s.run(["z"], {"x": good})
    with pytest.raises(TypeError, match="expected a numpy array"):
        s.run(None, {"x": [[1.0]]})
    with pytest.raises(TypeError):
        onnx_light.RuntimeSession(42)
    with pytest.raises(ValueError):
        onnx_light.RuntimeSession(b"\x08")  # truncated bytes
    with pytest.raises(FileNotFoundError):
        onnx_light.RuntimeSession("/nonexistent/model.onnx")
    with pytest.raises(ValueError, match="intra_op_threads must be 0"):
        onnx_light.RuntimeSession(model, intra_op_threads=-1)
    with pytest.raises(ValueError, match="intra_op_threads"):
        onnx_light.RuntimeSession(model, intra_op_threads=True)
    # 0: one thread per physical core, as in ONNX Runtime.
    (y0,) = onnx_light.RuntimeSession(model, intra_op_threads=0).run(None, {"x": good - 1})
    assert (y0 == 0).all()
    # and the session still works
    (y,) = s.run(None, {"x": good - 1})
    assert (y == 0).all()


def test_no_kernel_and_bad_attribute_errors():
    bad_type = unary_model("Log", "", TensorProto.INT64)
    with pytest.raises(RuntimeError, match="no kernel for node .*op Log.*INT64.*Supported"):
        onnx_light.RuntimeSession(bad_type)
    node = helper.make_node("LeakyRelu", ["x"], ["y"], domain="onnx_light", alpha=3)
    model = unary_model("LeakyRelu", "onnx_light", TensorProto.FLOAT)
    model.graph.node[0].CopyFrom(node)
    s = onnx_light.RuntimeSession(model)
    with pytest.raises(ValueError, match="attribute 'alpha' has type INT, expected FLOAT"):
        s.run(None, {"x": np.ones(2, np.float32)})


def test_threads_and_intra_op():
    model = unary_model("Log", "onnx_light_cpu", TensorProto.FLOAT)
    s1 = onnx_light.RuntimeSession(model)
    s2 = onnx_light.RuntimeSession(model, intra_op_threads=2)
    x = np.linspace(0.1, 100, 1 << 20, dtype=np.float32)
    np.testing.assert_array_equal(s1.run(None, {"x": x})[0], s2.run(None, {"x": x})[0])
    errors = []

    def worker(k):
        v = np.full(1000, k + 1, np.float32)
        for _ in range(50):
            (y,) = s2.run(None, {"x": v})
            if not np.allclose(y, np.log(v)):
                errors.append(k)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


F = TensorProto.FLOAT


def test_only_the_nodes_the_requested_outputs_need_run():
    # 'z' needs Relu and Sigmoid; a failing node on the other branch must not run for it.
    model = levels_model()
    bad = helper.make_node("Reshape", ["d", "bad_shape"], ["rs"], name="bad")
    model.graph.node.append(bad)
    model.graph.initializer.append(numpy_helper.from_array(np.array([7], np.int64), "bad_shape"))
    model.graph.node[5].input[0] = "rs"  # Add reads the Reshape: y now fails to compute
    s = onnx_light.RuntimeSession(model)
    (z,) = s.run(["z"], {"x": LEVELS_X})
    np.testing.assert_array_equal(z, 1 / (1 + np.exp(-np.maximum(LEVELS_X, 0))))
    with pytest.raises(ValueError, match="Reshape"):
        s.run(["y"], {"x": LEVELS_X})
