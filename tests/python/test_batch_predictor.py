"""onnx_light.batch without an engine: whole batches and row by row, column mapping, the
conversions of what engines hand over (float64, read-only, non-contiguous, pandas object and
Arrow-backed columns, pyarrow arrays), sessions that pickle, and sessions used after fork.
The engines themselves: test_batch_ray.py, test_batch_spark.py. References are ORT's outputs
(float tolerance 1e-5 of the largest value) or the same model run once on the whole array."""

from __future__ import annotations

import inspect
import multiprocessing
import os
import pickle
import signal
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from _models import model_path

import onnx_light
from onnx_light import onnx as olx
from onnx_light.batch import BatchPredictor, clear_session_cache, make_predict_fn
from onnx_light.onnx import helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT = os.path.join(REPO, "models", "default.onnx")  # x [N,4] float -> y [N,4]


def default_ref(x: np.ndarray) -> np.ndarray:
    """models/default.onnx in numpy (its ops are onnx-light's own domains, which ORT lacks):
    y = log(LeakyRelu(x, 0.2)^2 + one), in float64, for a float32 tolerance."""
    one = olx.numpy_helper.to_array(olx.load_model(DEFAULT).graph.initializer[0])
    x = x.astype(np.float64)
    h = np.where(x >= 0, x, np.float64(np.float32(0.2)) * x)
    return np.log(h * h + one)


@pytest.fixture(scope="module")
def pnet():
    return str(model_path("mtcnn_pnet.onnx"))  # [N,M1,M2,3] -> [N,.,.,4], [N,.,.,2]


@pytest.fixture(scope="module")
def images():
    return np.random.default_rng(0).random((300, 12, 12, 3), dtype=np.float32)


def ort_outputs(path, feeds):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"]).run(None, feeds)


def ort_outputs_bytes(model: bytes, feeds):
    import onnxruntime as ort

    return ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-5 * max(1.0, float(np.abs(b).max())))


# -- whole batches and row by row ---------------------------------------------------------


def test_a_batch_runs_through_the_batch_axis_in_chunks_and_matches_ort(pnet, images):
    p = BatchPredictor(
        pnet, inputs={"input_1": "image"}, outputs={"softmax": "prob"}, batch_size=128
    )
    assert p.batched
    out = p({"image": images, "id": np.arange(300)})
    assert list(out) == ["image", "id", "prob"]  # the batch's columns stay
    assert out["prob"].shape == (300, 1, 1, 2)
    close(out["prob"], ort_outputs(pnet, {"input_1": images})[1])
    whole = onnx_light.RuntimeSession(pnet).run(["softmax"], {"input_1": images})[0]
    assert np.array_equal(out["prob"], whole)  # 128-row chunks = one run of 300


def test_a_model_without_a_batch_axis_runs_row_by_row():
    path = model_path("hello_deepa.onnx")  # [1,25,96] -> [1,1]
    p = BatchPredictor(path)
    assert not p.batched
    rows = np.random.default_rng(1).random((9, 25, 96), dtype=np.float32)
    out = p.predict({"onnx::Flatten_0": rows})["39"]
    assert out.shape == (9, 1)
    ref = np.concatenate([ort_outputs(path, {"onnx::Flatten_0": r[None]})[0] for r in rows])
    close(out, ref)


def test_batch_axis_none_forces_row_by_row_with_the_same_values(pnet, images):
    rows = BatchPredictor(pnet, batch_axis=None)
    assert not rows.batched
    got = rows.predict({"input_1": images[:20]})
    want = BatchPredictor(pnet).predict({"input_1": images[:20]})
    assert got.keys() == want.keys()
    for k in want:  # per-row runs stack to the batched shape
        assert got[k].shape == (20, 1, 1) + want[k].shape[3:] or got[k].shape == want[k].shape
        close(got[k].reshape(want[k].shape), want[k])


def test_an_output_whose_first_axis_is_not_the_rows_names_the_fix():
    # ReduceSum over the rows: its first dimension is symbolic-looking only when forced
    x = helper.make_tensor_value_info("x", olx.TensorProto.FLOAT, ["N", 3])
    y = helper.make_tensor_value_info("y", olx.TensorProto.FLOAT, [1, 3])
    node = helper.make_node("ReduceSum", ["x"], ["y"], keepdims=1)
    model = helper.make_model(
        helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 13)]
    )
    assert not BatchPredictor(model).batched  # auto: y's fixed first dimension
    forced = BatchPredictor(model, batch_axis=0)
    with pytest.raises(RuntimeError, match="batch_axis=None"):
        forced.predict({"x": np.ones((4, 3), np.float32)})


def test_scalar_columns_stack_into_one_input_and_float64_is_cast():
    table = pd.DataFrame({c: np.arange(6, dtype=np.float64) + i for i, c in enumerate("abcd")})
    p = BatchPredictor(DEFAULT, inputs={"x": ["a", "b", "c", "d"]}, outputs={"y": "pred"})
    out = p(table)
    assert list(out.columns) == ["a", "b", "c", "d", "pred"]
    x = table.to_numpy().astype(np.float32)
    close(np.stack(out["pred"].to_numpy()), default_ref(x))


def test_arrow_backed_read_only_and_non_contiguous_columns():
    rng = np.random.default_rng(2)
    x = rng.random((50, 8), dtype=np.float32)[:, ::2]  # non-contiguous view
    assert not x.flags.c_contiguous
    ref = BatchPredictor(DEFAULT).predict({"x": np.ascontiguousarray(x)})["y"]
    ro = np.ascontiguousarray(x)
    ro.flags.writeable = False
    p = BatchPredictor(DEFAULT)
    assert np.array_equal(p.predict({"x": x})["y"], ref)
    assert np.array_equal(p.predict({"x": ro})["y"], ref)
    arrow_rows = pa.array(list(x), type=pa.list_(pa.float32()))
    assert np.array_equal(p.predict({"x": arrow_rows})["y"], ref)
    arrow_chunked = pa.chunked_array([arrow_rows[:20], arrow_rows[20:]])
    assert np.array_equal(p.predict({"x": arrow_chunked})["y"], ref)
    frame = pd.DataFrame({"x": pd.Series(list(x), dtype=pd.ArrowDtype(pa.list_(pa.float32())))})
    assert np.array_equal(np.stack(p(frame)["y"].to_numpy()), ref)
    cols = pd.DataFrame(
        {c: pd.array(x[:, i], dtype="float32[pyarrow]") for i, c in enumerate("abcd")}
    )
    q = BatchPredictor(DEFAULT, inputs={"x": list("abcd")})
    assert np.array_equal(np.stack(q(cols)["y"].to_numpy()), ref)
    assert ro.flags.writeable is False and np.array_equal(ro, np.ascontiguousarray(x))


def test_flattened_rows_are_reshaped_to_a_fixed_row_shape():
    path = model_path("hello_deepa.onnx")
    rows = np.random.default_rng(3).random((4, 25, 96), dtype=np.float32)
    p = BatchPredictor(path)
    assert np.array_equal(p.predict({"onnx::Flatten_0": rows.reshape(4, -1)})["39"],
                          p.predict({"onnx::Flatten_0": rows})["39"])  # fmt: skip


def test_an_empty_batch_gives_empty_columns(pnet):
    out = BatchPredictor(DEFAULT).predict({"x": np.zeros((0, 4), np.float32)})
    assert out["y"].shape == (0, 4) and out["y"].dtype == np.float32


@pytest.mark.parametrize(
    "kwargs, batch, error, match",
    [
        ({"inputs": {"nope": "x"}}, None, ValueError, "no input 'nope'"),
        ({"outputs": ["nope"]}, None, ValueError, "no output 'nope'"),
        ({"outputs": []}, None, ValueError, "selects no output"),
        ({"batch_size": 0}, None, ValueError, "batch_size"),
        ({"batch_axis": 1}, None, ValueError, "batch_axis"),
        ({"session_options": {"intra_op_threads": 2}}, None, ValueError, "own argument"),
        ({"session_options": {"optimized_model_path": "x"}}, None, ValueError, "every worker"),
        ({"session_options": {"bogus": 1}}, None, TypeError, "bogus"),
        ({}, {"other": np.ones((2, 4))}, ValueError, "no column 'x'"),
        ({}, {"x": np.ones((2, 5), np.float32)}, ValueError, "must hold"),
        ({}, {"x": np.array(["a"] * 8).reshape(2, 4)}, TypeError, "cannot feed a float"),
        ({}, {"x": np.array([np.ones(4), np.ones(3)], dtype=object)}, ValueError, "shapes"),
        ({}, {"x": np.float32(1)}, ValueError, "scalar"),
        ({}, [1, 2], TypeError, "dict of column"),
    ],
)
def test_bad_arguments_and_batches_are_clear_errors(kwargs, batch, error, match):
    with pytest.raises(error, match=match):
        p = BatchPredictor(DEFAULT, **kwargs)
        p(batch)
    assert BatchPredictor(DEFAULT).predict({"x": np.ones((1, 4), np.float32)})["y"].shape == (1, 4)


def test_an_integer_column_out_of_the_inputs_range_is_refused():
    x = helper.make_tensor_value_info("x", olx.TensorProto.INT32, ["N"])
    y = helper.make_tensor_value_info("y", olx.TensorProto.INT32, ["N"])
    model = helper.make_model(
        helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    p = BatchPredictor(model)
    assert p.predict({"x": np.array([1, 2**31 - 1], np.int64)})["y"].dtype == np.int32
    with pytest.raises(ValueError, match="do not fit"):
        p.predict({"x": np.array([2**31], np.int64)})


def test_a_map_output_is_refused_with_the_fix():
    from _sklearn import convert
    from sklearn.linear_model import LogisticRegression

    features = np.random.default_rng(7).random((40, 3), dtype=np.float32)
    labels = (features.sum(axis=1) > 1.5).astype(np.int64)
    model = convert(LogisticRegression().fit(features, labels), features, zipmap=True)
    with pytest.raises(ValueError, match="zipmap"):
        BatchPredictor(model)
    p = BatchPredictor(model, outputs=["output_label"])
    got = p.predict({"X": features})["output_label"]
    assert np.array_equal(got, ort_outputs_bytes(model, {"X": features})[0])


# -- Spark's predict function, without Spark ----------------------------------------------


def test_spark_predict_fn_flattens_rows_and_returns_a_dict_for_several_outputs(pnet, images):
    fn = pickle.loads(pickle.dumps(make_predict_fn(pnet)))()
    got = fn(images)
    ref = ort_outputs(pnet, {"input_1": images})
    assert got["conv2d_4"].shape == (300, 4) and got["softmax"].shape == (300, 2)
    close(got["softmax"], ref[1].reshape(300, 2))
    one = make_predict_fn(pnet, outputs={"softmax": "prob"})()
    assert one(images).shape == (300, 2)
    x = np.random.default_rng(4).random((10, 4))  # float64 rows into a float32 input
    fn = make_predict_fn(DEFAULT)()
    assert len(inspect.signature(fn).parameters) == 1  # Spark counts the model's inputs
    close(fn(x), default_ref(x.astype(np.float32)))
    with pytest.raises(ValueError, match="2 columns"):
        fn(x, x)


# -- pickling -----------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["path", "bytes", "proto"])
def test_a_runtime_session_pickles_with_its_model_and_options(source):
    with open(DEFAULT, "rb") as f:
        data = f.read()
    model = {"path": DEFAULT, "bytes": data, "proto": olx.load_model_from_string(data)}[source]
    s = onnx_light.RuntimeSession(model, intra_op_threads=2, graph_optimization_level="basic")
    copy = pickle.loads(pickle.dumps(s))
    assert copy is not s and copy._options == s._options
    assert copy._options["intra_op_threads"] == 2
    x = np.random.default_rng(5).random((3, 4), dtype=np.float32)
    assert np.array_equal(copy.run(None, {"x": x})[0], s.run(None, {"x": x})[0])
    carried = len(pickle.dumps(s))
    assert (carried > len(data)) == (source != "path")  # a path carries no model


def test_an_inference_session_pickles_with_its_options_and_overrides():
    so = onnx_light.SessionOptions()
    so.intra_op_num_threads = 2
    so.add_free_dimension_override_by_name("N", 3)
    s = onnx_light.InferenceSession(DEFAULT, so)
    copy = pickle.loads(pickle.dumps(s))
    assert copy.get_inputs()[0].shape == [3, 4] == s.get_inputs()[0].shape
    assert copy._sess_options.intra_op_num_threads == 2


def test_what_cannot_travel_says_what_to_do(tmp_path):
    with pytest.raises(TypeError, match="make new RunOptions where the runs happen"):
        pickle.dumps(onnx_light.RunOptions())
    moved = tmp_path / "model.onnx"
    moved.write_bytes(open(DEFAULT, "rb").read())
    blob = pickle.dumps(onnx_light.RuntimeSession(str(moved)))
    moved.unlink()
    with pytest.raises(FileNotFoundError, match="from the model's bytes"):
        pickle.loads(blob)
    proto = olx.load_model(DEFAULT)
    init = proto.graph.initializer.add()
    init.name, init.data_type, init.data_location = "unused", olx.TensorProto.FLOAT, 1
    init.dims.append(1)
    entry = init.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    session = onnx_light.RuntimeSession.__new__(onnx_light.RuntimeSession)
    session._model, session._options = proto, {}
    with pytest.raises(TypeError, match="external files"):
        pickle.dumps(session)


def test_a_pickled_predictor_carries_no_session_and_reuses_its_process_session():
    p = BatchPredictor(DEFAULT)
    blob = pickle.dumps(p)
    assert b"RuntimeSession" not in blob
    a, b = pickle.loads(blob), pickle.loads(blob)
    assert a.session is b.session is p.session  # one per process for one model and options
    assert BatchPredictor(DEFAULT, intra_op_threads=2).session is not p.session
    assert clear_session_cache() >= 2
    fresh = pickle.loads(blob)
    assert fresh.session is not p.session and p.session is a.session  # held ones live on


# -- fork and multiprocessing ---------------------------------------------------------------


def _child_runs(session, x, want) -> int:
    pid = os.fork()
    if pid == 0:
        signal.alarm(60)  # a hang (the pool's old join of absent workers) ends as a failure
        code = 1
        try:
            code = 0 if np.array_equal(session.run(None, {"input_1": x})[1], want) else 2
            del session  # its thread pool's workers were the parent's
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status


@pytest.mark.parametrize("threads", [1, 2])
def test_a_session_is_used_and_dropped_after_fork(pnet, threads):
    x = np.random.default_rng(6).random((64, 24, 24, 3), dtype=np.float32)
    s = onnx_light.RuntimeSession(pnet, intra_op_threads=threads)
    want = s.run(None, {"input_1": x})[1]  # the parent's workers have run
    assert _child_runs(s, x, want) == 0
    unused = onnx_light.RuntimeSession(pnet, intra_op_threads=threads)
    unused.run(None, {"input_1": x})
    pid = os.fork()
    if pid == 0:
        signal.alarm(60)
        del unused  # never run in the child: must not wait for the parent's workers
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    assert np.array_equal(s.run(None, {"input_1": x})[1], want)  # the parent's still run


def _predict_chunk(args):
    predictor, chunk = args
    return os.getpid(), predictor.predict({"input_1": chunk})["softmax"]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_multiprocessing_pool_with_a_pickled_predictor(pnet, images, method):
    predictor = BatchPredictor(pnet, intra_op_threads=1)
    predictor.predict({"input_1": images[:4]})  # the parent has a session too
    chunks = np.array_split(images, 6)
    env = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # for spawn
    try:
        with multiprocessing.get_context(method).Pool(2) as pool:
            results = pool.map(_predict_chunk, [(predictor, c) for c in chunks])
    finally:
        if env is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = env
    got = np.concatenate([r for _, r in results])
    assert len({pid for pid, _ in results} - {os.getpid()}) >= 1
    assert np.array_equal(got, predictor.predict({"input_1": images})["softmax"])
