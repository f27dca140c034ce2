"""onnx_light_ort.CustomOpSession: the independent example and the test plugins through
the standalone host. References are numpy; tolerances: exact (the plugins compute in the
element type, so every value is bit-exact)."""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from onnx_light.onnx import TensorProto, helper
from onnx_light_ort import MAX_MODEL_BYTES, CustomOpSession

TYPES = {
    TensorProto.FLOAT16: np.float16,
    TensorProto.BFLOAT16: ml_dtypes.bfloat16,
    TensorProto.FLOAT: np.float32,
    TensorProto.DOUBLE: np.float64,
}


def model(op="LeakyRelu", domain="ort_custom_ops", elem=TensorProto.FLOAT, opset=1, **attrs):
    node = helper.make_node(op, ["x"], ["y"], domain=domain, name="custom", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", elem, None)],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(domain, opset)])


def leaky(x, alpha):
    return np.where(x < 0, x * np.float32(alpha), x).astype(np.float32)


def test_example_changing_shapes_scalars_and_empty(example_plugin):
    with CustomOpSession(example_plugin, model(alpha=0.25)) as s:
        assert s.dtype == np.float32
        rng = np.random.default_rng(0)
        for shape in [(5,), (2, 3), (1, 1, 7), (), (0,), (4, 0, 2), (3, 1000)]:
            x = rng.standard_normal(shape).astype(np.float32)
            y = s.run(x)
            assert y.shape == x.shape and y.dtype == np.float32
            np.testing.assert_array_equal(y, leaky(x, 0.25))


def test_example_missing_alpha_uses_the_default(example_plugin):
    with CustomOpSession(example_plugin, model()) as s:
        np.testing.assert_array_equal(s.run(np.array([-100.0], np.float32)), [-1.0])


def test_read_only_and_noncontiguous_inputs_are_never_written(example_plugin):
    with CustomOpSession(example_plugin, model(alpha=0.5)) as s:
        x = np.arange(-6, 6, dtype=np.float32).reshape(3, 4)
        before = x.copy()
        x.flags.writeable = False
        np.testing.assert_array_equal(s.run(x), leaky(x, 0.5))
        view = np.arange(-10, 10, dtype=np.float32)[::3]
        np.testing.assert_array_equal(s.run(view), leaky(view, 0.5))
        fortran = np.asfortranarray(before)
        np.testing.assert_array_equal(s.run(fortran), leaky(before, 0.5))
        np.testing.assert_array_equal(x, before)


def test_outputs_are_independent(example_plugin):
    with CustomOpSession(example_plugin, model(alpha=0.5)) as s:
        x = np.array([-2.0, 2.0], np.float32)
        a = s.run(x)
        b = s.run(x)
        a[0] = 123
        assert b[0] == -1.0 and a.flags.writeable and a.flags.owndata
        assert not np.shares_memory(a, x)


@pytest.mark.parametrize("elem,dtype", list(TYPES.items()))
def test_every_type_through_the_test_plugin(test_plugin, elem, dtype):
    with CustomOpSession(test_plugin("good"), model("Double", "test.plugin", elem)) as s:
        assert s.dtype == np.dtype(dtype)
        x = np.array([[1, -2], [3.5, 0]], dtype=dtype)
        y = s.run(x)
        assert y.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(y.astype(np.float64), 2 * x.astype(np.float64))


def test_dtype_is_checked_not_converted(test_plugin):
    with CustomOpSession(test_plugin("good"), model("Double", "test.plugin")) as s:
        with pytest.raises(
            TypeError, match="input dtype float64 does not match the model's float32"
        ):
            s.run(np.zeros(3, np.float64))
        with pytest.raises(TypeError, match="bfloat16"):
            s.run(np.zeros(3, ml_dtypes.bfloat16))
        with pytest.raises(TypeError, match="expected a numpy array"):
            s.run([1.0, 2.0])
        np.testing.assert_array_equal(s.run(np.ones(2, np.float32)), [2, 2])  # still usable


def test_retained_kernel_state_and_independent_sessions(test_plugin):
    m = model("Counter", "test.plugin")  # y = x + number of earlier calls on the kernel
    a = CustomOpSession(test_plugin("good"), m)
    b = CustomOpSession(test_plugin("good"), m)
    try:
        np.testing.assert_array_equal(a.run(np.zeros(1, np.float32)), [0])
        np.testing.assert_array_equal(a.run(np.zeros((2, 2), np.float32)), [[1, 1], [1, 1]])
        np.testing.assert_array_equal(a.run(np.zeros((), np.float32)), 2)
        np.testing.assert_array_equal(b.run(np.zeros(1, np.float32)), [0])
    finally:
        a.close()
        b.close()


def read_log(path):
    return path.read_text().split() if path.exists() else []


def test_close_releases_kernels_before_unloading(test_plugin, tmp_path, monkeypatch):
    log = tmp_path / "plugin.log"
    monkeypatch.setenv("ONNX_LIGHT_TEST_PLUGIN_LOG", str(log))
    s = CustomOpSession(test_plugin("good"), model("Counter", "test.plugin"))
    s.run(np.zeros(1, np.float32))
    s.close()
    assert " ".join(read_log(log)) == "create Counter destroy Counter unload"
    assert s.closed
    s.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        s.run(np.zeros(1, np.float32))
    with CustomOpSession(test_plugin("good"), model("Counter", "test.plugin")) as t:
        t.run(np.zeros(1, np.float32))
    once = ["create", "Counter", "destroy", "Counter", "unload"]
    assert read_log(log) == once + once


def test_finalizer_releases_abandoned_sessions(test_plugin, tmp_path, monkeypatch):
    log = tmp_path / "plugin.log"
    monkeypatch.setenv("ONNX_LIGHT_TEST_PLUGIN_LOG", str(log))

    def abandon():
        s = CustomOpSession(test_plugin("good"), model("Counter", "test.plugin"))
        s.run(np.zeros(1, np.float32))

    abandon()
    gc.collect()
    assert " ".join(read_log(log)) == "create Counter destroy Counter unload"


def test_runs_and_close_are_serialized(example_plugin):
    s = CustomOpSession(example_plugin, model(alpha=0.5))
    errors = []

    def worker(k):
        x = np.full(1000, -2.0 * (k + 1), np.float32)
        for _ in range(100):
            try:
                y = s.run(x)
            except RuntimeError:
                return  # closed under our feet: a clean error, never a crash
            if not (y == -(k + 1)).all():
                errors.append(k)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    s.close()
    for t in threads:
        t.join()
    assert errors == []


def test_plugin_errors_become_exceptions(test_plugin):
    with CustomOpSession(test_plugin("good"), model("FailCompute", "test.plugin")) as s:
        with pytest.raises(RuntimeError, match="deliberate failure in FailCompute"):
            s.run(np.ones(2, np.float32))
        with pytest.raises(RuntimeError, match="deliberate failure"):
            s.run(np.ones(2, np.float32))
    with CustomOpSession(test_plugin("good"), model("NeedsScale", "test.plugin")) as s:
        with pytest.raises(RuntimeError, match="no attribute named 'scale'"):
            s.run(np.ones(2, np.float32))
    with CustomOpSession(test_plugin("good"), model("NeedsScale", "test.plugin", scale=3)) as s:
        np.testing.assert_array_equal(s.run(np.ones(2, np.float32)), [3, 3])


@pytest.mark.parametrize(
    "make,error,message",
    [
        (lambda: model(domain=""), ValueError, "is not a custom op"),
        (lambda: model(op="Nope"), RuntimeError, "no kernel for node 'custom': op Nope"),
        (lambda: model(elem=TensorProto.DOUBLE), RuntimeError, "input types (DOUBLE)"),
        (lambda: model(elem=TensorProto.INT64), ValueError, "INT64 is not supported"),
    ],
)
def test_unsupported_graphs_names_versions_and_types(example_plugin, make, error, message):
    m = make()
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        CustomOpSession(example_plugin, m)


def test_incompatible_opset(test_plugin):
    # The test plugin's ops declare opset 1 only.
    with pytest.raises(RuntimeError, match="opset 2.*Supported:\n  opset 1; T: FLOAT16"):
        CustomOpSession(test_plugin("good"), model("Double", "test.plugin", opset=2))


def test_graph_shape_rules(example_plugin):
    m = model()
    m.graph.node.append(m.graph.node[0])
    with pytest.raises(ValueError, match="exactly one custom node"):
        CustomOpSession(example_plugin, m)
    m = model()
    m.graph.initializer.append(helper.make_tensor("w", TensorProto.FLOAT, [1], [1.0]))
    with pytest.raises(ValueError, match="must not have initializers"):
        CustomOpSession(example_plugin, m)
    m = model()
    m.functions.add(name="f", domain="d")
    with pytest.raises(ValueError, match="local functions"):
        CustomOpSession(example_plugin, m)


@pytest.mark.parametrize(
    "variant,error,message",
    [
        ("version_17", ValueError, "descriptor version 17 is not supported"),
        ("cuda", ValueError, "CUDAExecutionProvider"),
        ("duplicate", ValueError, "duplicate registration"),
        ("shape_inference", ValueError, "shape-inference"),
        ("optional_input", ValueError, "optional or variadic"),
        ("undefined_type", ValueError, "UNDEFINED"),
        ("bad_opset_range", ValueError, "invalid opset range 3..1"),
        ("domain_twice", ValueError, "domain 'test.plugin' added twice"),
    ],
)
def test_registration_refusals(test_plugin, variant, error, message):
    with pytest.raises(error, match=message):
        CustomOpSession(test_plugin(variant), model("Double", "test.plugin"))


def test_api_negotiation_failure(example_plugin):
    path = example_plugin.parent / "test_plugins" / "libort_custom_ops_api29.so"
    with pytest.raises(
        RuntimeError, match="asked for OrtApi version 29; this host offers version 18 only"
    ):
        CustomOpSession(path, model())


def test_limits(example_plugin, tmp_path):
    # model size: checked before anything is parsed (bytes) or serialized (ModelProto)
    with pytest.raises(ValueError, match=r"16777216 bytes \(checked before parsing\)"):
        CustomOpSession(example_plugin, b"\0" * (MAX_MODEL_BYTES + 1))
    big = model()
    big.doc_string = "x" * (MAX_MODEL_BYTES + 1)
    with pytest.raises(ValueError, match=r"16777216 bytes \(checked before parsing\)"):
        CustomOpSession(example_plugin, big)
    with CustomOpSession(example_plugin, model(alpha=0.5)) as s:
        # The wrapper's own checks (the C library's messages differ: these fail if the
        # checks before the copy go away).
        with pytest.raises(ValueError, match=r"rank 17 exceeds the limit of 16 \(checked before"):
            s.run(np.zeros((1,) * 17, np.float32))
        with pytest.raises(ValueError, match=r"67108864 bytes \(checked before copying\)"):
            s.run(np.zeros((16 << 20) + 1, np.float32))
        y = s.run(np.full(16 << 20, -2.0, np.float32))  # exactly 64 MiB is allowed
        assert y.shape == (16 << 20,) and y[-1] == -1.0
        np.testing.assert_array_equal(s.run(np.zeros((1,) * 16, np.float32)), np.zeros((1,) * 16))


def test_bad_arguments(example_plugin, tmp_path):
    with pytest.raises(TypeError):
        CustomOpSession(42, model())
    with pytest.raises(ValueError, match="empty"):
        CustomOpSession("", model())
    with pytest.raises(FileNotFoundError):
        CustomOpSession(tmp_path / "missing.so", model())
    with pytest.raises(TypeError, match="ModelProto or bytes"):
        CustomOpSession(example_plugin, "model.onnx")
    with pytest.raises(ValueError, match="ModelProto"):
        CustomOpSession(example_plugin, b"\x3a\xff")
    # a relative path is resolved before loading
    rel = os.path.relpath(example_plugin)
    with CustomOpSession(rel, model()) as s:
        assert s.run(np.ones(1, np.float32))[0] == 1


def plugin_model(op, **attrs):
    return model(op=op, domain="test.plugin", **attrs)


def test_a_plugin_that_writes_its_input_never_touches_the_callers_array(test_plugin):
    # The C ABI passes buffers through (host.h); CustomOpSession copies first.
    with CustomOpSession(test_plugin("good"), plugin_model("WritesInput")) as s:
        x = np.array([[1, -2], [3, -4]], np.float32)
        before = x.copy()
        np.testing.assert_array_equal(s.run(x), before)
        np.testing.assert_array_equal(x, before)
        ro = before.copy()
        ro.flags.writeable = False
        np.testing.assert_array_equal(s.run(ro), before)
        np.testing.assert_array_equal(ro, before)
        strided = np.arange(8, dtype=np.float32)[::2]
        np.testing.assert_array_equal(s.run(strided), [0, 2, 4, 6])
        np.testing.assert_array_equal(strided, [0, 2, 4, 6])


@pytest.mark.parametrize(
    "case, message",
    [
        (0, "negative dimension -3"),
        (1, "needs 67108868 bytes, over the limit of 67108864"),
        (2, "rank 17 exceeds the limit of 16"),
    ],
)
def test_plugin_outputs_beyond_the_limits_are_clean_errors(test_plugin, case, message):
    with CustomOpSession(test_plugin("good"), plugin_model("BadOutput", case=case)) as s:
        for _ in range(2):
            with pytest.raises(ValueError, match=message):
                s.run(np.ones(1, np.float32))
    with CustomOpSession(test_plugin("good"), plugin_model("Double")) as s:
        np.testing.assert_array_equal(s.run(np.ones(2, np.float32)), [2, 2])


def test_a_library_without_register_custom_ops_is_a_value_error():
    from onnx_light_ort import bridge_library_path

    with pytest.raises(ValueError, match="does not export RegisterCustomOps"):
        CustomOpSession(bridge_library_path(), model())


def test_paths_are_encoded_with_fsencode(example_plugin, tmp_path):
    # A file name that is not UTF-8: reachable as bytes and as its fsdecode'd str.
    raw = os.fsencode(tmp_path) + b"/plugin-\xff.so"
    os.symlink(os.fsencode(os.path.abspath(example_plugin)), raw)
    for path in (raw, os.fsdecode(raw)):
        with CustomOpSession(path, model(alpha=0.5)) as s:
            np.testing.assert_array_equal(s.run(np.array([-2], np.float32)), [-1])


def test_memoryview_models_are_measured_in_bytes(example_plugin):
    data = model(alpha=0.5).SerializeToString()
    with CustomOpSession(example_plugin, memoryview(data)) as s:
        np.testing.assert_array_equal(s.run(np.array([-2], np.float32)), [-1])
    # 2 Mi + 1 float64 items: few items, but more bytes than the limit
    wide = memoryview(np.zeros((MAX_MODEL_BYTES // 8) + 1, np.float64))
    assert len(wide) < MAX_MODEL_BYTES < wide.nbytes
    # Python's own message (the C side's differs): refused before the view is copied or
    # handed to the C ABI.
    python_check = (
        f"^model of {wide.nbytes} bytes exceeds the limit of {MAX_MODEL_BYTES} bytes "
        r"\(checked before parsing\)$"
    )
    with pytest.raises(ValueError, match=python_check):
        CustomOpSession(example_plugin, wide)


def test_the_bridge_runs_from_the_checkout_not_site_packages():
    """Spec 000: the bridge's Python package and its library come from the source checkout
    (python/ and the build folder), and nothing of the project from any site-packages."""
    import onnx_light
    import onnx_light_ort
    from onnx_light_ort import bridge_library_path

    repo = Path(__file__).resolve().parents[3]
    build = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", repo / "build"))

    checkout = {
        "onnx_light_ort": Path(onnx_light_ort.__file__).resolve(),
        "onnx_light": Path(onnx_light.__file__).resolve(),
    }
    for name, where in checkout.items():
        assert where.is_relative_to(repo / "python"), (name, where)
    library = bridge_library_path().resolve()
    assert library.is_relative_to(build.resolve()), library
    for path in [*checkout.values(), library]:
        assert "site-packages" not in path.parts and "dist-packages" not in path.parts, path
