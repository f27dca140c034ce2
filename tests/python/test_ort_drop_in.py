"""onnx_light as a drop-in for onnxruntime (docs/runtime.md): a program written for ORT
runs unchanged but for its import, on a real model (PP-OCR's direction classifier, and
Silero VAD with its state and sample-rate inputs), and gives ORT's outputs; the
options and providers ORT users pass are honoured or refused, never silently lost."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _models import model_path

import onnx_light
from onnx_light.onnx import TensorProto

REPO = Path(__file__).resolve().parents[2]

# Written for onnxruntime; the tests run it as is and with "import onnx_light as ort".
PROGRAM = """
import json
import sys
import numpy as np
import onnxruntime as ort

path, out, symbols = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
so = ort.SessionOptions()
so.intra_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
sess = ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"])
assert "CPUExecutionProvider" in ort.get_available_providers()
rng = np.random.default_rng(0)
feeds = {}
for arg in sess.get_inputs():
    shape = [d if isinstance(d, int) else symbols.get(d, 1) for d in arg.shape]
    if arg.type == "tensor(float)":
        feeds[arg.name] = rng.standard_normal(shape).astype(np.float32) * 0.1
    elif arg.type == "tensor(int64)":
        feeds[arg.name] = np.full(shape, 16000, np.int64)
    else:
        raise SystemExit("unexpected input type " + arg.type)
names = [o.name for o in sess.get_outputs()]
results = sess.run(names, feeds)
np.savez(out, **dict(zip(names, results)))
print("ran", len(names), "outputs")
"""


def run_program(tmp_path, module, model, symbols):
    source = PROGRAM.replace("import onnxruntime as ort", f"import {module} as ort")
    script = tmp_path / f"program_{module}.py"
    script.write_text(source)
    out = tmp_path / f"{module}.npz"
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    done = subprocess.run(
        [sys.executable, str(script), str(model), str(out), json.dumps(symbols)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return dict(np.load(out))


@pytest.mark.parametrize(
    "name,symbols",
    [
        (
            "ch_ppocr_mobile_v2.0_cls_infer.onnx",
            {"p2o.DynamicDimension.1": 48, "p2o.DynamicDimension.2": 192},
        ),
        ("silero_vad_16k_op15.onnx", {"sequence": 512}),
    ],
)
def test_an_ort_program_runs_unchanged_but_for_its_import(tmp_path, name, symbols):
    model = model_path(name)
    want = run_program(tmp_path, "onnxruntime", model, symbols)
    got = run_program(tmp_path, "onnx_light", model, symbols)
    assert want.keys() == got.keys()
    for key in want:  # float32 outputs: absolute 1e-4 (as the real-model tests)
        np.testing.assert_allclose(got[key], want[key], atol=1e-4, err_msg=key)


@pytest.mark.parametrize(
    "providers",
    [
        ["CUDAExecutionProvider", "CPUExecutionProvider"],
        ["CUDAExecutionProvider"],
        [("CUDAExecutionProvider", {"device_id": 0}), "CPUExecutionProvider"],
    ],
)
def test_an_unavailable_provider_warns_and_the_cpu_runs_as_in_ort(providers):
    # The most common line in ORT tutorials and apps: ORT warns (UserWarning) that the GPU
    # provider is not available and runs on the CPU; so does onnx-light, in ORT's words.
    import onnxruntime as ort

    model = str(model_path("ch_ppocr_mobile_v2.0_cls_infer.onnx"))
    x = np.random.default_rng(0).random((1, 3, 48, 192), dtype=np.float32)
    prefix = "Specified provider 'CUDAExecutionProvider' is not in available provider names."
    results = []
    for runtime in (ort, onnx_light):
        with pytest.warns(UserWarning, match=re.escape(prefix)):
            s = runtime.InferenceSession(model, providers=providers)
        assert s.get_providers() == ["CPUExecutionProvider"]
        results.append(s.run(None, {"x": x})[0])
    np.testing.assert_allclose(results[1], results[0], atol=1e-4)


def test_provider_arguments_that_are_not_names_are_type_errors():
    model = str(model_path("ch_ppocr_mobile_v2.0_cls_infer.onnx"))
    with pytest.raises(TypeError, match="not one string"):
        onnx_light.InferenceSession(model, providers="CPUExecutionProvider")
    with pytest.raises(TypeError, match="a name or a \\(name, options\\) pair, got int"):
        onnx_light.InferenceSession(model, providers=[3])
    s = onnx_light.InferenceSession(model, providers=[("CPUExecutionProvider", {})])
    assert s.get_providers() == ["CPUExecutionProvider"]
    assert onnx_light.get_available_providers() == ["CPUExecutionProvider"]
    import onnxruntime as ort

    assert onnx_light.get_device() == ort.get_device() == "CPU"


def test_session_options_refuse_a_misspelt_option_and_pass_the_rest(tmp_path):
    so = onnx_light.SessionOptions()
    with pytest.raises(AttributeError, match="no option 'intra_op_threads'.*intra_op_num_threads"):
        so.intra_op_threads = 2
    so.graph_optimization_level = onnx_light.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.optimized_model_filepath = str(tmp_path / "opt.onnx")
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "prof_")
    so.inter_op_num_threads = 4  # accepted, no effect
    model = str(model_path("ch_ppocr_mobile_v2.0_cls_infer.onnx"))
    s = onnx_light.InferenceSession(model, sess_options=so)
    assert (tmp_path / "opt.onnx").exists()
    x = np.zeros((1, 3, 48, 192), np.float32)
    assert s.run(None, {"x": x})[0].shape == (1, 2)
    profile = Path(s.end_profiling())
    assert profile.exists() and profile.name.startswith("prof_")
    assert [int(v) for v in onnx_light.GraphOptimizationLevel] == [0, 1, 2, 99]
    with pytest.raises(
        TypeError, match="sess_options must be an onnx_light.ort_compat.SessionOptions"
    ):
        onnx_light.InferenceSession(model, sess_options={"intra_op_num_threads": 1})


def test_get_modelmeta_matches_ort_including_the_custom_metadata_map(tmp_path):
    # rapidocr keeps its character list in custom_metadata_map, detectors their class
    # names: every field as ORT reads it, from a path and from bytes.
    import onnxruntime as ort

    from onnx_light.onnx import helper as lh

    graph = lh.make_graph(
        [lh.make_node("Relu", ["x"], ["y"])],
        "the_graph",
        [lh.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [lh.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        doc_string="graph doc",
    )
    model = lh.make_model(
        graph,
        opset_imports=[lh.make_opsetid("", 17)],
        producer_name="pytorch",
        domain="ai.example",
        model_version=7,
        doc_string="model doc ü",
    )
    model.ir_version = 8
    lh.set_model_props(model, {"character": "a\nb\nc", "names": "{0: 'cat', 1: 'dög'}"})
    path = tmp_path / "meta.onnx"
    path.write_bytes(model.SerializeToString())
    fields = [
        "custom_metadata_map",
        "description",
        "domain",
        "graph_description",
        "graph_name",
        "producer_name",
        "version",
    ]
    want = ort.InferenceSession(str(path)).get_modelmeta()
    for source in (str(path), path.read_bytes()):
        got = onnx_light.InferenceSession(source).get_modelmeta()
        for field in fields:
            assert getattr(got, field) == getattr(want, field), field
    assert want.custom_metadata_map["names"] == "{0: 'cat', 1: 'dög'}"
    # A model without any: empty strings, version 0, an empty map (as ORT).
    plain = onnx_light.InferenceSession(str(model_path("ch_ppocr_mobile_v2.0_cls_infer.onnx")))
    assert plain.get_modelmeta().custom_metadata_map == {}


def test_module_level_names_apps_call_at_start_up_behave_as_in_ort():
    # magika calls disable_telemetry_events(), rapidocr get_device(); others set the
    # default logger's severity and pick an ExecutionMode. Each side by side with ORT.
    import onnxruntime as ort

    for runtime in (ort, onnx_light):
        members = runtime.ExecutionMode.__members__
        assert [(k, int(v)) for k, v in members.items()] == [
            ("ORT_SEQUENTIAL", 0),
            ("ORT_PARALLEL", 1),
        ]
        for level in range(5):
            assert runtime.set_default_logger_severity(level) is None
        for bad in (5, -1):
            with pytest.raises(RuntimeError, match="Invalid logging severity"):
                runtime.set_default_logger_severity(bad)
        runtime.set_default_logger_severity(3)
        assert runtime.disable_telemetry_events() is None
        assert runtime.enable_telemetry_events() is None
        assert isinstance(runtime.get_version_string(), str) and runtime.get_version_string()
        assert isinstance(runtime.get_build_info(), str) and runtime.get_build_info()
        so = runtime.SessionOptions()
        assert so.execution_mode == runtime.ExecutionMode.ORT_SEQUENTIAL
        assert so.log_severity_level == -1
        with pytest.raises(TypeError):
            so.execution_mode = 5
        so.execution_mode = runtime.ExecutionMode.ORT_PARALLEL
        assert so.execution_mode == runtime.ExecutionMode.ORT_PARALLEL
        model = str(model_path("ch_ppocr_mobile_v2.0_cls_infer.onnx"))
        s = runtime.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        x = np.ones((1, 3, 48, 192), np.float32)
        assert s.run(None, {"x": x})[0].shape == (1, 2)
    # The version of ORT's API the drop-in follows, so that apps gating code paths on
    # ORT's version take the ones written for it; build info names onnx-light's version.
    assert onnx_light.get_version_string() == ort.__version__ == "1.30.0"
    assert f"onnx-light {onnx_light.__version__}" in onnx_light.get_build_info()


def test_python_lists_are_converted_to_the_declared_type_as_in_ort():
    # magika feeds a plain list; ORT converts it to the input's element type.
    import onnxruntime as ort

    from onnx_light.onnx import helper as lh

    def identity(elem, shape):
        graph = lh.make_graph(
            [lh.make_node("Identity", ["x"], ["y"])],
            "g",
            [lh.make_tensor_value_info("x", elem, shape)],
            [lh.make_tensor_value_info("y", elem, shape)],
        )
        model = lh.make_model(graph, opset_imports=[lh.make_opsetid("", 17)])
        model.ir_version = 8
        return model.SerializeToString()

    converted = [
        (TensorProto.FLOAT, [2, 2], [[1, 2], [3.5, 4]]),
        (TensorProto.INT64, [3], [1, 2, 3]),
        (TensorProto.INT64, [2], [1.7, 2.2]),  # truncated, as numpy (and ORT) cast
        (TensorProto.FLOAT, [2], [True, False]),
        (TensorProto.STRING, [2], ["a", "bé"]),
    ]
    for elem, shape, value in converted:
        data = identity(elem, shape)
        (want,) = ort.InferenceSession(data).run(None, {"x": value})
        (got,) = onnx_light.InferenceSession(data).run(None, {"x": value})
        assert got.dtype == want.dtype and got.shape == want.shape, value
        np.testing.assert_array_equal(got, want)
    # Tuples, bare scalars and numpy arrays of another dtype are errors in both.
    for elem, shape, value in [
        (TensorProto.INT64, [3], (1, 2, 3)),
        (TensorProto.DOUBLE, [], 2.5),
        (TensorProto.FLOAT, [2], np.ones(2, np.float64)),
    ]:
        data = identity(elem, shape)
        with pytest.raises(Exception):
            ort.InferenceSession(data).run(None, {"x": value})
        with pytest.raises(TypeError):
            onnx_light.InferenceSession(data).run(None, {"x": value})


def test_fixed_width_void_arrays_are_strings_as_in_ort():
    """np.void arrays (fixed-width bytes, as some readers of binary records make) feed a
    string input as ORT reads them: each element's bytes, NULs kept. A structured dtype
    (fields) is refused with the dtype named, where ORT makes strings of its raw bytes."""
    import onnxruntime as ort

    from onnx_light.onnx import helper as lh

    graph = lh.make_graph(
        [lh.make_node("Identity", ["x"], ["y"])],
        "g",
        [lh.make_tensor_value_info("x", TensorProto.STRING, None)],
        [lh.make_tensor_value_info("y", TensorProto.STRING, None)],
    )
    model = lh.make_model(graph, opset_imports=[lh.make_opsetid("", 17)])
    model.ir_version = 8
    data = model.SerializeToString()
    light = onnx_light.InferenceSession(data)
    for x in (
        np.array([b"a\x00", b"\x00b", b"xy"], dtype="V2"),
        np.array([[b"abc", b"d"]], dtype="V3"),
    ):
        (want,) = ort.InferenceSession(data).run(None, {"x": x})
        (got,) = light.run(None, {"x": x})
        assert got.dtype == object and got.shape == x.shape
        assert got.tolist() == want.tolist()  # NULs kept, as ORT keeps them
    assert light.run(None, {"x": np.array([b"a\x00"], "V2")})[0].tolist() == ["a\x00"]
    with pytest.raises(TypeError, match=r"input 'x': expected object, got \[\('a', '<i4'\)"):
        light.run(None, {"x": np.zeros(2, dtype=[("a", "i4"), ("b", "f4")])})
    assert light.run(None, {"x": np.array(["ok"], object)})[0][0] == "ok"  # still usable


def test_sparse_tensors_are_refused_by_name():
    """Sparse tensors (a Constant's sparse_value, a sparse graph input) are not supported:
    the session is refused at load with an error that names them (ORT loads the Constant
    and fails at its first run), and the process goes on."""
    from onnx_light.onnx import helper as lh

    sparse = lh.make_sparse_tensor(
        lh.make_tensor("v", TensorProto.FLOAT, [2], [1, 2]),
        lh.make_tensor("i", TensorProto.INT64, [2], [0, 3]),
        [5],
    )
    graph = lh.make_graph(
        [lh.make_node("Constant", [], ["y"], sparse_value=sparse)],
        "g",
        [],
        [lh.make_tensor_value_info("y", TensorProto.FLOAT, [5])],
    )
    model = lh.make_model(graph, opset_imports=[lh.make_opsetid("", 17)])
    with pytest.raises(RuntimeError, match="attribute 'sparse_value' is not supported"):
        onnx_light.InferenceSession(model.SerializeToString())
    graph = lh.make_graph(
        [lh.make_node("Identity", ["x"], ["y"])],
        "g",
        [lh.make_value_info("x", lh.make_sparse_tensor_type_proto(TensorProto.FLOAT, [5]))],
        [lh.make_tensor_value_info("y", TensorProto.FLOAT, [5])],
    )
    model = lh.make_model(graph, opset_imports=[lh.make_opsetid("", 17)])
    with pytest.raises(RuntimeError, match="graph input 'x' has a sparse tensor type"):
        onnx_light.InferenceSession(model.SerializeToString())
    test_fixed_width_void_arrays_are_strings_as_in_ort()  # still usable


def test_provider_and_session_option_getters_match_ort():
    import onnxruntime as ort

    model = str(model_path("ch_ppocr_mobile_v2.0_cls_infer.onnx"))
    x = np.ones((1, 3, 48, 192), np.float32)
    for runtime in (ort, onnx_light):
        so = runtime.SessionOptions()
        so.intra_op_num_threads = 2
        s = runtime.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        assert s.get_provider_options() == {"CPUExecutionProvider": {}}
        copy = s.get_session_options()
        assert copy is not so and copy.intra_op_num_threads == 2
        prefix = "Specified provider 'CUDAExecutionProvider' is not in available provider names."
        with pytest.warns(UserWarning, match=re.escape(prefix)):
            s.set_providers(["CUDAExecutionProvider", "CPUExecutionProvider"])
        s.set_providers()
        assert s.get_providers() == ["CPUExecutionProvider"]
        assert s.run(None, {"x": x})[0].shape == (1, 2)
