"""ORT's Python API names as onnx_light.ort_compat provides them (issue 30, docs/ort_drop_in.md):
each test runs the same calls on onnxruntime 1.30 and on the drop-in and compares what they
do -- exception classes, OrtValue, IOBinding, run_with_ort_values, run_async, config
entries, free-dimension overrides, overridable initializers, profiling start time. Where the
drop-in differs on purpose, the test says so and checks the difference."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_light.ort_compat as light

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ort():
    import onnxruntime

    onnxruntime.set_default_logger_severity(3)
    return onnxruntime


def model(nodes, inputs, outputs, initializers=(), opset=17) -> bytes:
    g = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m.SerializeToString()


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


RESHAPE = model(
    [helper.make_node("Reshape", ["x", "s"], ["y"])],
    [vi("x", TensorProto.FLOAT, [2, 3]), vi("s", TensorProto.INT64, [2])],
    [vi("y", TensorProto.FLOAT, None)],
)
RELU_NEG = model(
    [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["x"], ["z"])],
    [vi("x", TensorProto.FLOAT, ["N", 3])],
    [vi("y", TensorProto.FLOAT, ["N", 3]), vi("z", TensorProto.FLOAT, ["N", 3])],
)
ADD_INIT = model(
    [helper.make_node("Add", ["x", "b"], ["y"])],
    [vi("x", TensorProto.FLOAT, ["N", 3]), vi("b", TensorProto.FLOAT, [3])],
    [vi("y", TensorProto.FLOAT, None)],
    [numpy_helper.from_array(np.ones(3, np.float32), "b")],
)
X = np.ones((2, 3), np.float32)
S = np.array([3, 2], np.int64)


def raised(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the test looks at what was raised
        return exc
    raise AssertionError("no exception")


# --- exception classes --------------------------------------------------------------------

# (case, ORT's class name, the drop-in's class name, the built-in the drop-in's also is)
ERROR_CASES = [
    ("no such file", "NoSuchFile", "NoSuchFile", FileNotFoundError),
    ("bytes that are no model", "InvalidProtobuf", "InvalidProtobuf", ValueError),
    ("wrong dtype", "InvalidArgument", "InvalidArgument", TypeError),
    ("wrong shape", "InvalidArgument", "InvalidArgument", ValueError),
    ("unknown input", "InvalidArgument", "InvalidArgument", ValueError),
    ("unknown output", "InvalidArgument", "InvalidArgument", ValueError),
    ("a kernel fails", "Fail", "Fail", ValueError),
    ("terminated run", "Fail", "Fail", RuntimeError),
    # Differences (docs/ort_drop_in.md): ORT checks op schemas at load (INVALID_GRAPH);
    # onnx-light finds no kernel (NOT_IMPLEMENTED). A node reading a value nothing makes:
    # ORT INVALID_ARGUMENT, here INVALID_GRAPH.
    ("unknown op", "InvalidGraph", "NotImplemented", RuntimeError),
    ("missing input", "ValueError", "ValueError", ValueError),  # ORT's check and words
    ("dangling node input", "InvalidArgument", "InvalidGraph", ValueError),
]


def error_case(rt, case):
    unknown_op = model(
        [helper.make_node("FooBar", ["x"], ["y"])],
        [vi("x", TensorProto.FLOAT, [2])],
        [vi("y", TensorProto.FLOAT, None)],
    )
    dangling = model(
        [helper.make_node("Relu", ["z"], ["y"])],
        [vi("x", TensorProto.FLOAT, [2])],
        [vi("y", TensorProto.FLOAT, None)],
    )
    if case == "no such file":
        return raised(lambda: rt.InferenceSession("/nonexistent/model.onnx"))
    if case == "bytes that are no model":
        return raised(lambda: rt.InferenceSession(b"garbage\x01\x02"))
    if case == "unknown op":
        return raised(lambda: rt.InferenceSession(unknown_op))
    if case == "dangling node input":
        return raised(lambda: rt.InferenceSession(dangling))
    s = rt.InferenceSession(RESHAPE)
    feeds = {
        "wrong dtype": {"x": X.astype(np.float64), "s": S},
        "wrong shape": {"x": np.ones((3, 3), np.float32), "s": S},
        "missing input": {"x": X},
        "unknown input": {"x": X, "s": S, "q": X},
        "a kernel fails": {"x": X, "s": np.array([4, 4], np.int64)},
    }
    if case == "unknown output":
        return raised(lambda: s.run(["nope"], {"x": X, "s": S}))
    if case == "terminated run":
        ro = rt.RunOptions()
        ro.terminate = True
        return raised(lambda: s.run(None, {"x": X, "s": S}, ro))
    return raised(lambda: s.run(None, feeds[case]))


@pytest.mark.parametrize("case, ort_name, light_name, builtin", ERROR_CASES)
def test_errors_are_orts_classes_and_the_builtins(ort, case, ort_name, light_name, builtin):
    from onnxruntime.capi import onnxruntime_pybind11_state as ort_state

    got_ort = error_case(ort, case)
    assert type(got_ort).__name__ == ort_name
    if hasattr(ort_state, ort_name):
        assert isinstance(got_ort, getattr(ort_state, ort_name))
    got = error_case(light, case)
    cls = getattr(light, light_name, None) or builtin
    assert isinstance(got, cls) and isinstance(got, builtin)
    assert type(got).__name__ == light_name
    if case == "missing input":  # ORT's message, word for word
        assert str(got) == str(got_ort)
    # the session still works afterwards
    assert light.InferenceSession(RESHAPE).run(None, {"x": X, "s": S})[0].shape == (3, 2)


def test_every_ort_exception_name_exists(ort):
    from onnxruntime.capi import onnxruntime_pybind11_state as ort_state

    names = {
        n
        for n in dir(ort_state)
        if isinstance(getattr(ort_state, n), type)
        and issubclass(getattr(ort_state, n), BaseException)
    }
    assert names and all(issubclass(getattr(light, n), Exception) for n in names)


# --- OrtValue -----------------------------------------------------------------------------


def test_ortvalue_from_numpy_shares_memory_and_describes_itself_as_orts(ort):
    for rt in (ort, light):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        v = rt.OrtValue.ortvalue_from_numpy(a)
        assert v.shape() == [2, 3] and v.data_type() == "tensor(float)"
        assert v.element_type() == 1 and v.device_name() == "cpu"
        assert v.is_tensor() and v.has_value() and not v.is_tensor_sequence()
        assert v.data_ptr() == a.ctypes.data and v.tensor_size_in_bytes() == 24
        a[0, 0] = 100
        n = v.numpy()
        assert n[0, 0] == 100
        n[0, 1] = 55
        assert a[0, 1] == 55
        v.update_inplace(np.full((2, 3), 7, np.float32))
        assert (a == 7).all()
        with pytest.raises(RuntimeError, match="size"):
            v.update_inplace(np.ones((3, 3), np.float32))
        # a non-contiguous array is made contiguous (a copy), as ORT does
        nc = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
        w = rt.OrtValue.ortvalue_from_numpy(nc)
        assert w.numpy().tolist() == nc.tolist() and w.data_ptr() != nc.ctypes.data
        z = rt.OrtValue.ortvalue_from_shape_and_type([2, 2], np.int64)
        assert z.shape() == [2, 2] and z.numpy().dtype == np.int64
        assert rt.OrtValue.ortvalue_from_shape_and_type([4], 1).data_type() == "tensor(float)"
        for dtype, code in ((np.bool_, 9), (np.float16, 10), (np.int8, 3), (np.uint64, 13)):
            assert rt.OrtValue.ortvalue_from_numpy(np.zeros(2, dtype)).element_type() == code
        with pytest.raises(RuntimeError):
            rt.OrtValue.ortvalue_from_numpy(a, "cuda")
        with pytest.raises(RuntimeError):
            rt.OrtValue.ortvalue_from_numpy([1.0, 2.0])
        with pytest.raises(ValueError):
            rt.OrtValue(a)


def test_bfloat16_goes_through_ortvalues_as_in_ort(ort):
    # ORT's only bfloat16 route: uint16 bits as ONNX type 16, run_with_ort_values.
    cast = model(
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)],
        [vi("x", TensorProto.BFLOAT16, [4])],
        [vi("y", TensorProto.FLOAT, [4])],
    )
    bits = np.array([0x3F80, 0x4040, 0xBF00, 0x0000], np.uint16)  # 1, 3, -0.5, 0
    results = []
    for rt in (ort, light):
        v = rt.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, 16)
        assert v.data_type() == "tensor(bfloat16)" and v.element_type() == 16
        (y,) = rt.InferenceSession(cast).run_with_ort_values(None, {"x": v})
        assert isinstance(y, rt.OrtValue)
        results.append(y.numpy())
    np.testing.assert_array_equal(results[0], [1.0, 3.0, -0.5, 0.0])
    np.testing.assert_array_equal(results[1], results[0])
    # Difference: ORT cannot give bfloat16 back as numpy; the drop-in gives ml_dtypes'.
    back = light.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, 16).numpy()
    assert str(back.dtype) == "bfloat16" and back.astype(np.float32).tolist() == [1, 3, -0.5, 0]
    with pytest.raises(RuntimeError, match="element sizes differ"):
        light.OrtValue.ortvalue_from_numpy_with_onnx_type(np.zeros(2, np.float32), 16)


def test_run_with_ort_values_reads_in_place_and_returns_ortvalues(ort):
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    got = {}
    for rt in (ort, light):
        s = rt.InferenceSession(RELU_NEG)
        outs = s.run_with_ort_values(None, {"x": rt.OrtValue.ortvalue_from_numpy(x)})
        assert [type(o) for o in outs] == [rt.OrtValue, rt.OrtValue]
        got[rt] = [o.numpy() for o in outs]
        (z,) = s.run_with_ort_values(["z"], {"x": rt.OrtValue.ortvalue_from_numpy(x)})
        np.testing.assert_array_equal(z.numpy(), -x)
        # run() takes OrtValues too
        np.testing.assert_array_equal(
            s.run(["y"], {"x": rt.OrtValue.ortvalue_from_numpy(x)})[0], np.maximum(x, 0)
        )
    for a, b in zip(got[ort], got[light]):
        np.testing.assert_array_equal(a, b)
    # ORT: AttributeError ('numpy.ndarray' has no _get_c_value); the drop-in says what to do.
    with pytest.raises(TypeError, match="takes OrtValues"):
        light.InferenceSession(RELU_NEG).run_with_ort_values(None, {"x": x})


# --- IOBinding ----------------------------------------------------------------------------


def test_iobinding_binds_arrays_pointers_and_ortvalues_as_in_ort(ort):
    x = np.array([[-1, 2, -3]], np.float32)
    for rt in (ort, light):
        s = rt.InferenceSession(RELU_NEG)
        b = s.io_binding()
        b.bind_cpu_input("x", x)
        b.bind_output("y")
        s.run_with_iobinding(b)
        (y,) = b.get_outputs()
        assert isinstance(y, rt.OrtValue)
        np.testing.assert_array_equal(y.numpy(), [[0, 2, 0]])
        (copied,) = b.copy_outputs_to_cpu()
        np.testing.assert_array_equal(copied, [[0, 2, 0]])
        # an output bound to the caller's memory receives the result
        buf = np.zeros((1, 3), np.float32)
        b.bind_output("z", "cpu", 0, np.float32, [1, 3], buf.ctypes.data)
        s.run_with_iobinding(b)
        np.testing.assert_array_equal(buf, -x)
        assert len(b.get_outputs()) == 2
        # an OrtValue as the output's memory
        ov = rt.OrtValue.ortvalue_from_numpy(np.zeros((1, 3), np.float32))
        b.bind_ortvalue_output("y", ov)
        s.run_with_iobinding(b)
        np.testing.assert_array_equal(ov.numpy(), [[0, 2, 0]])
        # input from a raw pointer, read at run time
        x2 = np.array([[5, -6, 7]], np.float32)
        b.bind_input("x", "cpu", 0, np.float32, [1, 3], x2.ctypes.data)
        s.run_with_iobinding(b)
        np.testing.assert_array_equal(ov.numpy(), [[5, 0, 7]])
        b.bind_ortvalue_input("x", rt.OrtValue.ortvalue_from_numpy(-x2))
        s.run_with_iobinding(b)
        np.testing.assert_array_equal(ov.numpy(), [[0, 6, 0]])
        b.synchronize_inputs()
        b.synchronize_outputs()
        with pytest.raises(RuntimeError, match="Failed to find NodeArg with name: q"):
            b.bind_cpu_input("q", x)
        b.clear_binding_outputs()
        b.bind_output("y")
        s.run_with_iobinding(b)
        assert len(b.get_outputs()) == 1
        b.clear_binding_inputs()
        with pytest.raises(Exception):
            s.run_with_iobinding(b)  # ORT: a kernel misses its input; here: missing input 'x'
        b.bind_cpu_input("x", x.astype(np.float64))
        with pytest.raises(Exception, match="(?i)type|float"):
            s.run_with_iobinding(b)


def test_iobinding_refuses_memory_of_the_wrong_shape_and_other_devices():
    s = light.InferenceSession(RELU_NEG)
    b = s.io_binding()
    b.bind_cpu_input("x", np.ones((2, 3), np.float32))
    buf = np.zeros((1, 3), np.float32)
    b.bind_output("y", "cpu", 0, np.float32, [1, 3], buf.ctypes.data)
    with pytest.raises(RuntimeError, match=r"output 'y' is float32\[2, 3\], the memory bound"):
        s.run_with_iobinding(b)
    with pytest.raises(RuntimeError, match="CPU only"):
        b.bind_output("y", "cuda")
    with pytest.raises(ValueError, match="non-null address"):
        b.bind_input("x", "cpu", 0, np.float32, [1, 3], 0)
    with pytest.raises(TypeError, match="this session's io_binding"):
        light.InferenceSession(RELU_NEG).run_with_iobinding(b)
    b.clear_binding_outputs()
    with pytest.raises(RuntimeError, match="no output bound"):
        s.run_with_iobinding(b)


# --- run_async ----------------------------------------------------------------------------


def test_run_async_calls_back_with_results_or_the_error_as_in_ort(ort):
    x = np.array([[-1, 2, -3]], np.float32)
    for rt in (ort, light):
        s = rt.InferenceSession(RELU_NEG)
        done = threading.Event()
        got = {}

        def callback(results, user_data, err):
            got.update(results=results, user_data=user_data, err=err)
            done.set()

        assert s.run_async(None, {"x": x}, callback, "ud") is None
        assert done.wait(10)
        assert got["user_data"] == "ud" and got["err"] == ""
        assert [type(r) for r in got["results"]] == [np.ndarray, np.ndarray]
        np.testing.assert_array_equal(got["results"][1], -x)
        done.clear()
        s.run_async(None, {"x": x.astype(np.float64)}, callback, None)
        assert done.wait(10)
        assert got["results"] == [] and got["err"]


# --- options, config entries, overrides --------------------------------------------------


def test_session_and_run_config_entries_are_kept_as_in_ort(ort):
    for rt in (ort, light):
        so = rt.SessionOptions()
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.add_session_config_entry("custom.key", "v")
        assert so.get_session_config_entry("custom.key") == "v"
        with pytest.raises(RuntimeError, match="does not have configuration with key: nope"):
            so.get_session_config_entry("nope")
        with pytest.raises(TypeError):
            so.add_session_config_entry("k", 1)
        s = rt.InferenceSession(RELU_NEG, so)
        assert s.get_session_options().get_session_config_entry("custom.key") == "v"
        ro = rt.RunOptions()
        ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        assert ro.get_run_config_entry("memory.enable_memory_arena_shrinkage") == "cpu:0"
        with pytest.raises(RuntimeError, match="does not have configuration with key: zz"):
            ro.get_run_config_entry("zz")
        assert s.run(["y"], {"x": X}, ro)[0].shape == (2, 3)


def test_honoured_config_entries_change_what_runs():
    # session.disable_quant_qdq=1 keeps a QDQ group as float ops (ORT's meaning): onnx-light's
    # qdq_to_integer pass no longer turns it into QLinearMatMul.
    w = numpy_helper.from_array(np.arange(-4, 5, dtype=np.int8).reshape(3, 3), "w")
    qdq = model(
        [
            helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
            helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
            helper.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wd"]),
            helper.make_node("MatMul", ["xd", "wd"], ["m"]),
            helper.make_node("QuantizeLinear", ["m", "sy", "zy"], ["yq"]),
            helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["y"]),
        ],
        [vi("x", TensorProto.FLOAT, [2, 3])],
        [vi("y", TensorProto.FLOAT, [2, 3])],
        [
            w,
            numpy_helper.from_array(np.float32(0.05), "sx"),
            numpy_helper.from_array(np.int8(0), "zx"),
            numpy_helper.from_array(np.float32(0.1), "sw"),
            numpy_helper.from_array(np.int8(0), "zw"),
            numpy_helper.from_array(np.float32(0.02), "sy"),
            numpy_helper.from_array(np.int8(0), "zy"),
        ],
        opset=13,
    )
    fused = light.InferenceSession(qdq)
    so = light.SessionOptions()
    so.add_session_config_entry("session.disable_quant_qdq", "1")
    plain = light.InferenceSession(qdq, so)
    assert plain._session.planned_nodes > fused._session.planned_nodes
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(
        plain.run(None, {"x": x})[0], fused.run(None, {"x": x})[0], atol=0.02
    )
    so = light.SessionOptions()
    so.add_session_config_entry("session.load_model_format", "ORT")
    with pytest.raises(light.NotImplemented, match="flatbuffer"):
        light.InferenceSession(qdq, so)


def test_free_dimension_overrides_fix_the_inputs_shape_as_in_ort(ort):
    for rt in (ort, light):
        so = rt.SessionOptions()
        so.add_free_dimension_override_by_name("N", 2)
        s = rt.InferenceSession(RELU_NEG, so)
        assert s.get_inputs()[0].shape == [2, 3]
        assert s.run(["z"], {"x": X})[0].shape == (2, 3)
        with pytest.raises(
            rt.capi.onnxruntime_pybind11_state.InvalidArgument
            if rt is ort
            else light.InvalidArgument
        ):
            s.run(None, {"x": np.ones((3, 3), np.float32)})
    # by denotation (onnx-light's check; ORT needs the denotation in the model too)
    m = onnx.load_from_string(RELU_NEG)
    m.graph.input[0].type.tensor_type.shape.dim[0].denotation = "DATA_BATCH"
    so = light.SessionOptions()
    so.add_free_dimension_override_by_denotation("DATA_BATCH", 4)
    assert light.InferenceSession(m.SerializeToString(), so).get_inputs()[0].shape == [4, 3]
    with pytest.raises(TypeError):
        so.add_free_dimension_override_by_name("N", -1)


def test_initializers_listed_as_inputs_are_overridable_not_inputs_as_in_ort(ort):
    for rt in (ort, light):
        s = rt.InferenceSession(ADD_INIT)
        assert [a.name for a in s.get_inputs()] == ["x"]
        (b,) = s.get_overridable_initializers()
        assert (b.name, b.shape, b.type) == ("b", [3], "tensor(float)")
        np.testing.assert_array_equal(s.run(None, {"x": X})[0], X + 1)
        np.testing.assert_array_equal(s.run(None, {"x": X, "b": np.zeros(3, np.float32)})[0], X)
        assert rt.InferenceSession(RELU_NEG).get_overridable_initializers() == []


def test_profiling_start_time_is_zero_without_profiling_as_in_ort(ort, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import time

    for rt in (ort, light):
        assert rt.InferenceSession(RELU_NEG).get_profiling_start_time_ns() == 0
        so = rt.SessionOptions()
        so.enable_profiling = True
        before = time.time_ns()
        s = rt.InferenceSession(RELU_NEG, so)
        start = s.get_profiling_start_time_ns()
        assert before - 10**9 < start <= time.time_ns()
        s.end_profiling()


def test_module_functions_and_enums_as_in_ort(ort):
    for rt in (ort, light):
        assert rt.get_all_providers()[-1] == "CPUExecutionProvider" or rt is ort
        assert rt.set_default_logger_verbosity(0) is None
        assert rt.set_seed(7) is None
        assert [(k, int(v)) for k, v in rt.ExecutionOrder.__members__.items()] == [
            ("DEFAULT", 0),
            ("PRIORITY_BASED", 1),
            ("MEMORY_EFFICIENT", 2),
        ]
        so = rt.SessionOptions()
        so.execution_order = rt.ExecutionOrder.PRIORITY_BASED
        so.use_deterministic_compute = True
        assert so.execution_order == rt.ExecutionOrder.PRIORITY_BASED
    assert light.get_all_providers() == ["CPUExecutionProvider"]


def test_names_without_an_equivalent_exist_and_say_so_when_used(ort):
    # As in ORT, the names exist (modules importing them load); using one raises ORT's
    # NotImplemented (a RuntimeError too) naming it.
    for name in ("SparseTensor", "LoraAdapter", "register_execution_provider_library"):
        assert hasattr(ort, name) and hasattr(light, name)
        with pytest.raises(
            light.NotImplemented, match=f"onnxruntime.{name} is not supported by onnx-light"
        ):
            getattr(light, name)()
    with pytest.raises(RuntimeError, match="onnxruntime.SparseTensor.sparse_coo_from_numpy"):
        light.SparseTensor.sparse_coo_from_numpy  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        light.no_such_name  # noqa: B018
    so = light.SessionOptions()
    for call in (
        lambda: so.add_external_initializers(["w"], [None]),
        lambda: so.set_load_cancellation_flag(True),
    ):
        with pytest.raises(RuntimeError, match="is not supported by onnx-light"):
            call()
    with pytest.raises(RuntimeError, match="LoRA"):
        light.RunOptions().add_active_adapter(None)


def test_start_up_helpers_and_provider_options_as_in_ort(ort, recwarn):
    for rt in (ort, light):
        assert rt.cuda_version == "" and rt.has_collective_ops() is False
        so = rt.SessionOptions()
        assert so.has_providers() is False
        so.add_provider("CPUExecutionProvider", {})
        assert so.has_providers() is True
        assert so.enable_mem_reuse is True and so.use_per_session_threads is True
        ro = rt.RunOptions()
        assert ro.only_execute_path_to_fetches is False
        ro.only_execute_path_to_fetches = True
        s = rt.InferenceSession(RELU_NEG, so)
        s.disable_fallback()
        s.enable_fallback()
        assert s.run(["y"], {"x": X}, ro)[0].shape == (2, 3)
    assert light.preload_dlls() is None
    so = light.SessionOptions()
    with pytest.warns(UserWarning, match="'CUDAExecutionProvider' is not in available"):
        so.add_provider("CUDAExecutionProvider", {})


def test_node_args_of_maps_and_sequences_show_orts_shape(ort):
    from onnx_light.onnx import TensorProto, helper

    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    graph = helper.make_graph(
        [helper.make_node("SequenceLength", ["s"], ["n"])],
        "g",
        [helper.make_value_info("s", seq)],
        [helper.make_tensor_value_info("n", TensorProto.INT64, [])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    data = model.SerializeToString()
    for get in ("get_inputs", "get_outputs"):
        ours = [(a.name, a.type, a.shape) for a in getattr(light.InferenceSession(data), get)()]
        theirs = [
            (a.name, a.type, a.shape)
            for a in getattr(ort.InferenceSession(data, providers=["CPUExecutionProvider"]), get)()
        ]
        assert ours == theirs


def test_build_info_starts_as_orts(ort):
    assert light.get_build_info().startswith("ORT Build Info: ")
    assert ort.get_build_info().startswith("ORT Build Info: ")


def test_add_initializer_as_orts(ort):
    from onnx_light.onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["y"])],
        "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        [numpy_helper.from_array(np.array([1, 2], np.float32), "b")],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    a = np.ones(2, np.float32)
    got = {}
    for rt in (ort, light):
        results = []
        for name in ("b", "not_an_initializer"):  # the second changes nothing
            so = rt.SessionOptions()
            value = rt.OrtValue.ortvalue_from_numpy(np.array([10, 20], np.float32))
            so.add_initializer(name, value)
            sess = rt.InferenceSession(data, so, providers=["CPUExecutionProvider"])
            results.append(sess.run(None, {"a": a})[0].tolist())
        with pytest.raises(RuntimeError, match="must be an OrtValue"):
            rt.SessionOptions().add_initializer("b", np.ones(2, np.float32))
        got[rt] = results
    assert got[light] == got[ort] == [[11.0, 21.0], [2.0, 3.0]]


GLOBAL_POOLS_PROGRAM = r"""
import sys
import numpy as np
if sys.argv[1] == "light":
    sys.path.insert(0, sys.argv[3])
    import onnx_light.ort_compat as ort
else:
    import onnxruntime as ort
so = ort.SessionOptions()
so.use_per_session_threads = False
def attempt(fn):
    try:
        return repr(fn())
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {str(e).strip()[-60:]}"
make = lambda: ort.InferenceSession(sys.argv[2], so, providers=["CPUExecutionProvider"])
print("R:", attempt(lambda: make() and "session"))
print("R:", attempt(lambda: ort.set_global_thread_pool_sizes(2, 1)))
print("R:", attempt(lambda: make().run(None, {"x": np.ones((1, 2), np.float32)})[0].shape))
print("R:", attempt(lambda: ort.set_global_thread_pool_sizes(3, 1)))
"""


def test_global_thread_pools_as_orts(tmp_path):
    from onnx_light.onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
    )
    path = tmp_path / "relu.onnx"
    path.write_bytes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    )
    runs = {}
    for mode in ("light", "real"):
        done = subprocess.run(
            [sys.executable, "-c", GLOBAL_POOLS_PROGRAM, mode, str(path), str(REPO / "python")],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        # (ORT also prints an "EP Error" banner when a session fails: only our lines count)
        runs[mode] = [l[3:] for l in done.stdout.splitlines() if l.startswith("R: ")]
    assert runs["light"] == runs["real"]
    assert runs["light"][1:] == [
        "None",
        "(1, 2)",
        "Fail: " + "Global thread pools have already been created, cannot replace them"[-60:],
    ]
