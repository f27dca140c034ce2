"""ai.onnx.ml DictVectorizer against ONNX Runtime: a dict fed as a map input, laid out along
the vocabulary as a [1, V] tensor, for each key and value type ORT registers; and the bad
models and inputs (a dict that is not one, keys or values that do not convert)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import I64, D, F, S, assert_same, map_of, ort_run, typed_model
from onnx import helper

import onnx_light


def vectorizer(key, value, **vocabulary):
    return typed_model(
        "DictVectorizer",
        [("m", map_of(key, value))],
        [("y", helper.make_tensor_type_proto(value, None))],
        ml_opset=1,
        **vocabulary,
    )


# (key, value, vocabulary, feed, expected [1, V] row). ORT's Python binding links a dict to
# map(string or int64 -> float) only, so it is the oracle for those two; the others are
# checked against the row ORT's kernel (dictvectorizer.h) makes.
CASES = [
    (S, F, {"string_vocabulary": ["a", "b", "c", "d"]}, {"b": 2.5, "d": -1.0, "zz": 9.0}, None),
    (I64, F, {"int64_vocabulary": [5, 1, 3]}, {1: 0.5, 3: 1.5, 99: 7.0}, None),
    (S, D, {"string_vocabulary": ["x", "y"]}, {"y": 1e300, "x": -2.0}, [-2.0, 1e300]),
    (S, I64, {"string_vocabulary": ["x", "y", "z"]}, {"z": 2**40, "x": -3}, [-3, 0, 2**40]),
    (I64, D, {"int64_vocabulary": [-1, 0]}, {0: 3.25}, [0.0, 3.25]),
    (I64, S, {"int64_vocabulary": [2, 4, 6]}, {4: "four", 6: "six"}, ["", "four", "six"]),
]


@pytest.mark.parametrize("key,value,vocabulary,feed,expected", CASES)
def test_each_map_type(key, value, vocabulary, feed, expected):
    model = vectorizer(key, value, **vocabulary)
    light = onnx_light.RuntimeSession(model).run(None, {"m": feed})
    assert light[0].shape == (1, len(next(iter(vocabulary.values()))))
    if expected is None:
        assert_same(light, ort_run(model, {"m": feed}), rtol=0, atol=0)
    else:
        assert light[0].tolist() == [expected]


def test_values_land_on_their_vocabulary_positions():
    model = vectorizer(S, F, string_vocabulary=["a", "b", "c"])
    y = onnx_light.RuntimeSession(model).run(None, {"m": {"c": 3.0, "a": 1.0}})[0]
    np.testing.assert_array_equal(y, [[1.0, 0.0, 3.0]])


def test_a_repeated_vocabulary_key_fills_each_position():
    model = vectorizer(S, F, string_vocabulary=["a", "b", "a"])
    light = onnx_light.RuntimeSession(model).run(None, {"m": {"a": 4.0}})
    np.testing.assert_array_equal(light[0], [[4.0, 0.0, 4.0]])
    assert_same(light, ort_run(model, {"m": {"a": 4.0}}))


def test_an_empty_dict_gives_zeros():
    # ORT's Python binding refuses an empty dict ("Size of dictionary is empty"); an empty
    # map is a map, and every vocabulary position is then missing.
    model = vectorizer(I64, F, int64_vocabulary=[1, 2])
    light = onnx_light.RuntimeSession(model).run(None, {"m": {}})
    np.testing.assert_array_equal(light[0], [[0.0, 0.0]])


def test_python_numbers_convert_to_the_declared_types():
    # An int value for a float map, a numpy integer key for an int64 map: converted.
    model = vectorizer(I64, F, int64_vocabulary=[1, 2])
    y = onnx_light.RuntimeSession(model).run(None, {"m": {np.int32(2): 3, 1: True}})[0]
    np.testing.assert_array_equal(y, [[1.0, 3.0]])


def test_node_arg_type_is_ort_s():
    import onnxruntime as ort

    model = vectorizer(S, F, string_vocabulary=["a"])
    ours = onnx_light.RuntimeSession(model).get_inputs()[0]
    theirs = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).get_inputs()[0]
    assert ours.type == theirs.type == "map(string,tensor(float))"


@pytest.mark.parametrize(
    "feed,error,message",
    [
        (np.zeros(2, np.float32), TypeError, "input 'm': expected a dict, got ndarray"),
        ([{"a": 1.0}], TypeError, "input 'm': expected a dict, got list"),
        ({1: 1.0}, TypeError, "map keys must be str, got int"),
        ({"a": "x"}, TypeError, "map values do not convert to FLOAT"),
        ({"a": [1.0, 2.0]}, ValueError, r"a map's keys and values must be 1-D"),
    ],
)
def test_bad_feeds(feed, error, message):
    s = onnx_light.RuntimeSession(vectorizer(S, F, string_vocabulary=["a"]))
    with pytest.raises(error, match=message):
        s.run(None, {"m": feed})
    assert s.run(None, {"m": {"a": 2.0}})[0].tolist() == [[2.0]]  # still usable


def test_int_keys_for_a_string_map():
    s = onnx_light.RuntimeSession(vectorizer(I64, F, int64_vocabulary=[1]))
    with pytest.raises(TypeError, match="map keys do not convert to INT64"):
        s.run(None, {"m": {"a": 1.0}})


@pytest.mark.parametrize("vocabulary", [{}, {"string_vocabulary": ["a"], "int64_vocabulary": [1]}])
def test_vocabulary_must_be_one_list(vocabulary):
    s = onnx_light.RuntimeSession(vectorizer(S, F, **vocabulary))
    with pytest.raises(ValueError, match="exactly one of string_vocabulary and int64_vocabulary"):
        s.run(None, {"m": {"a": 1.0}})


def test_a_vocabulary_of_the_other_key_type():
    s = onnx_light.RuntimeSession(vectorizer(S, F, int64_vocabulary=[1]))
    with pytest.raises(ValueError, match="the map's keys are STRING but the vocabulary is INT64"):
        s.run(None, {"m": {"a": 1.0}})


def test_a_tensor_where_the_op_takes_a_map():
    model = typed_model(
        "DictVectorizer",
        [("m", helper.make_tensor_type_proto(F, None))],
        [("y", helper.make_tensor_type_proto(F, None))],
        ml_opset=1,
        string_vocabulary=["a"],
    )
    with pytest.raises(ValueError, match="is a tensor where this op takes a map"):
        onnx_light.RuntimeSession(model)


def test_through_the_ort_drop_in():
    # onnx_light.ort_compat.InferenceSession (the drop-in for onnxruntime's) feeds the dict
    # and returns ZipMap's list of dicts as ORT's own session does.
    from _ml import seq_of_maps

    from onnx_light import ort_compat

    nodes = [
        helper.make_node(
            "DictVectorizer", ["m"], ["y"], domain="ai.onnx.ml", string_vocabulary=["a", "b"]
        ),
        helper.make_node(
            "ZipMap", ["y"], ["z"], domain="ai.onnx.ml", classlabels_strings=["A", "B"]
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_value_info("m", map_of(S, F))],
        [helper.make_value_info("z", seq_of_maps(S, F))],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)]
    )
    model.ir_version = 8
    data = model.SerializeToString()
    session = ort_compat.InferenceSession(data, providers=["CPUExecutionProvider"])
    feed = {"m": {"b": 2.5, "a": 1.0, "c": 7.0}}
    assert session.run(None, feed) == ort_run(data, feed) == [[{"A": 1.0, "B": 2.5}]]
