"""ai.onnx.ml ZipMap against ONNX Runtime: a classifier's score rows as a list of
{label: score} dicts (int64 and string labels, [N, C] and [C] inputs, no rows), the
NodeArg type string, and the bad models and inputs (tests/python/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import I64, F, S, assert_same_dict, ort_run, seq_of_maps, typed_model
from onnx import TensorProto, helper

import onnx_light

SCORES = np.random.default_rng(3).random((6, 3)).astype(np.float32)


def zipmap(key=I64, x_shape=None, **labels):
    return typed_model(
        "ZipMap",
        [("x", helper.make_tensor_type_proto(F, x_shape))],
        [("z", seq_of_maps(key, F))],
        ml_opset=1,
        **labels,
    )


def same_as_ort(model, x):
    light = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
    ref = ort_run(model, {"x": x})[0]
    assert isinstance(light, list) and len(light) == len(ref)
    for a, b in zip(light, ref):
        assert isinstance(a, dict)
        assert_same_dict(a, b, rtol=0, atol=0)  # copies: exact
    return light


def test_int64_labels():
    z = same_as_ort(zipmap(classlabels_int64s=[0, 7, -2]), SCORES)
    assert z[1] == {0: float(SCORES[1, 0]), 7: float(SCORES[1, 1]), -2: float(SCORES[1, 2])}


def test_string_labels():
    z = same_as_ort(zipmap(S, classlabels_strings=["cat", "dog", "émeu"]), SCORES)
    assert list(z[0]) == ["cat", "dog", "émeu"]


def test_one_row_of_scores_is_one_map():
    z = same_as_ort(zipmap(classlabels_int64s=[1, 2, 3]), SCORES[2])
    assert len(z) == 1


def test_no_rows_is_an_empty_list():
    x = np.zeros((0, 3), np.float32)
    assert onnx_light.RuntimeSession(zipmap(classlabels_int64s=[1, 2, 3])).run(None, {"x": x}) == [
        []
    ]


def test_nan_and_inf_scores_pass_through():
    x = np.array([[np.nan, np.inf, -0.0]], np.float32)
    z = onnx_light.RuntimeSession(zipmap(classlabels_int64s=[1, 2, 3])).run(None, {"x": x})[0]
    assert np.isnan(z[0][1]) and z[0][2] == np.inf and str(z[0][3]) == "-0.0"


def test_node_arg_type_is_ort_s():
    import onnxruntime as ort

    for key, labels in ((I64, {"classlabels_int64s": [1]}), (S, {"classlabels_strings": ["a"]})):
        model = zipmap(key, **labels)
        ours = onnx_light.RuntimeSession(model).get_outputs()[0].type
        theirs = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).get_outputs()[0]
        assert ours == theirs.type


def test_many_runs_and_threads_share_nothing():
    from concurrent.futures import ThreadPoolExecutor

    s = onnx_light.RuntimeSession(zipmap(classlabels_int64s=[0, 1, 2]))

    def one(i):
        x = SCORES + np.float32(i)
        return s.run(None, {"x": x})[0] == [
            {0: float(r[0]), 1: float(r[1]), 2: float(r[2])} for r in x
        ]

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(one, range(64)))


def test_a_label_count_that_does_not_match_the_scores():
    s = onnx_light.RuntimeSession(zipmap(classlabels_int64s=[1, 2]))
    with pytest.raises(ValueError, match="X has 3 scores per row but the node has 2 class labels"):
        s.run(None, {"x": SCORES})
    assert len(s.run(None, {"x": SCORES[:, :2].copy()})[0]) == 6  # still usable


@pytest.mark.parametrize(
    "labels",
    [{}, {"classlabels_int64s": [1, 2, 3], "classlabels_strings": ["a", "b", "c"]}],
)
def test_labels_must_be_one_list(labels):
    s = onnx_light.RuntimeSession(zipmap(**labels))
    with pytest.raises(
        ValueError, match="exactly one of classlabels_strings and classlabels_int64s"
    ):
        s.run(None, {"x": SCORES})


def test_rank_3_scores():
    s = onnx_light.RuntimeSession(zipmap(classlabels_int64s=[1, 2, 3]))
    with pytest.raises(ValueError, match=r"X must be \[N, C\] or \[C\]"):
        s.run(None, {"x": SCORES.reshape(2, 3, 3)})


def test_an_output_declared_a_tensor_is_refused():
    model = typed_model(
        "ZipMap",
        [("x", helper.make_tensor_type_proto(F, None))],
        [("z", helper.make_tensor_type_proto(F, None))],
        ml_opset=1,
        classlabels_int64s=[1, 2, 3],
    )
    with pytest.raises(ValueError, match="declared a tensor but computed as a sequence of maps"):
        onnx_light.RuntimeSession(model)


def test_the_c_abi_refuses_string_labels_at_creation():
    # The C ABI passes no strings: a ZipMap with string labels is refused when its session
    # is made, with a code and a message (int64 labels pass: tests/python/test_c_abi_maps.py).
    import ctypes

    from _c_abi import load_library

    lib = load_library()
    model = zipmap(S, classlabels_strings=["a", "b", "c"])
    handle = ctypes.c_void_p()
    rc = lib.OnnxLightSessionCreate(model, ctypes.c_size_t(len(model)), ctypes.byref(handle))
    assert rc == 5 and not handle  # NOT_IMPLEMENTED
    message = lib.OnnxLightLastErrorMessage().decode()
    assert "'z' is a map with string keys: the C ABI passes numeric" in message


def test_a_string_score_input_has_no_kernel():
    model = typed_model(
        "ZipMap",
        [("x", helper.make_tensor_type_proto(TensorProto.DOUBLE, None))],
        [("z", seq_of_maps(I64, F))],
        ml_opset=1,
        classlabels_int64s=[1],
    )
    with pytest.raises(RuntimeError, match="no kernel for node"):
        onnx_light.RuntimeSession(model)


def test_a_sequence_of_maps_fed_and_returned():
    # A graph whose input is its output: a list of dicts in, the same list out (copied);
    # the feed itself is the reference (ORT 1.30's binding refuses a sequence of maps as an
    # input: "tensor type 0 is not supported"). What is not a list of dicts is refused by
    # name.
    graph = helper.make_graph(
        [],
        "g",
        [helper.make_value_info("z", seq_of_maps(I64, F))],
        [helper.make_value_info("z", seq_of_maps(I64, F))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    data = model.SerializeToString()
    feed = [{1: 0.5, 2: 1.5}, {7: -1.0}]
    s = onnx_light.RuntimeSession(data)
    assert s.get_inputs()[0].type == "seq(map(int64,tensor(float)))"
    assert s.run(None, {"z": feed}) == [feed]
    assert s.run(None, {"z": [{}, {3: 2.0}]}) == [[{}, {3: 2.0}]]  # an empty map is a map
    with pytest.raises(TypeError, match="input 'z': expected a list of dicts, got dict"):
        s.run(None, {"z": feed[0]})
    with pytest.raises(TypeError, match="input 'z': expected a dict, got int"):
        s.run(None, {"z": [1]})
    with pytest.raises(TypeError, match="map keys do not convert to INT64"):
        s.run(None, {"z": [{"a": 1.0}]})
