"""ai.onnx.ml CastMap against ONNX Runtime: an int64-keyed map of strings or floats as a
[1, n] tensor in key order, DENSE and SPARSE (max_map, padding, keys past it dropped),
each cast_to; and the bad models and inputs (a negative SPARSE key, a string that is not
a number)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import I64, F, S, assert_same, map_of, ort_run, typed_model
from onnx import helper

import onnx_light

OUT = {"TO_FLOAT": F, "TO_INT64": I64, "TO_STRING": S}


def cast_map(value, cast_to="TO_FLOAT", **attrs):
    return typed_model(
        "CastMap",
        [("m", map_of(I64, value))],
        [("y", helper.make_tensor_type_proto(OUT[cast_to], None))],
        ml_opset=1,
        cast_to=cast_to,
        **attrs,
    )


FLOATS = {5: 2.5, 0: -1.75, 2: 1e10, 9: 3.0}
STRINGS = {3: "1.5", 1: "-2", 0: "7e3", 4: "12abc"}


@pytest.mark.parametrize("cast_to", ["TO_FLOAT", "TO_INT64", "TO_STRING"])
@pytest.mark.parametrize(
    "form", [{}, {"map_form": "SPARSE", "max_map": 6}], ids=["dense", "sparse"]
)
def test_float_values_against_ort(cast_to, form):
    model = cast_map(F, cast_to, **form)
    light = onnx_light.RuntimeSession(model).run(None, {"m": FLOATS})
    assert_same(light, ort_run(model, {"m": FLOATS}), rtol=0, atol=0)


# ORT's Python binding cannot feed a map of strings (it links every dict to float or
# int64 values): these expected rows follow ORT's kernel (cast_map.cc): std::stof /
# std::stoll of the leading number, the text itself for TO_STRING, in key order.
STRING_CASES = [
    ("TO_FLOAT", {}, [[7000.0, -2.0, 1.5, 12.0]]),
    ("TO_STRING", {}, [["7e3", "-2", "1.5", "12abc"]]),
    ("TO_INT64", {}, [[7, -2, 1, 12]]),
    ("TO_FLOAT", {"map_form": "SPARSE", "max_map": 6}, [[7000.0, -2.0, 0, 1.5, 12.0, 0]]),
    (
        "TO_STRING",
        {"map_form": "SPARSE", "max_map": 6},
        [["7e3", "-2", "0.f", "1.5", "12abc", "0.f"]],
    ),
]


@pytest.mark.parametrize("cast_to,form,expected", STRING_CASES)
def test_string_values(cast_to, form, expected):
    y = onnx_light.RuntimeSession(cast_map(S, cast_to, **form)).run(None, {"m": STRINGS})[0]
    assert y.shape == (1, len(expected[0]))
    assert y.tolist() == expected


def test_dense_is_in_key_order():
    y = onnx_light.RuntimeSession(cast_map(F)).run(None, {"m": {3: 30.0, 1: 10.0, 2: 20.0}})[0]
    np.testing.assert_array_equal(y, [[10.0, 20.0, 30.0]])


def test_sparse_pads_and_drops_keys_past_max_map():
    model = cast_map(F, map_form="SPARSE", max_map=4)
    y = onnx_light.RuntimeSession(model).run(None, {"m": {3: 30.0, 1: 10.0, 8: 80.0}})[0]
    np.testing.assert_array_equal(y, [[0.0, 10.0, 0.0, 30.0]])
    s = onnx_light.RuntimeSession(cast_map(F, "TO_STRING", map_form="SPARSE", max_map=2))
    assert s.run(None, {"m": {1: 0.5}})[0].tolist() == [["0.f", "0.500000"]]


def test_a_float_past_int64_casts_as_x86_does():
    y = onnx_light.RuntimeSession(cast_map(F, "TO_INT64")).run(None, {"m": {0: np.nan, 1: 1e30}})
    assert y[0].tolist() == [[np.iinfo(np.int64).min] * 2]


def test_a_negative_key_is_refused_in_sparse_form():
    s = onnx_light.RuntimeSession(cast_map(F, map_form="SPARSE", max_map=3))
    with pytest.raises(ValueError, match="map_form SPARSE takes keys >= 0, got -1"):
        s.run(None, {"m": {-1: 1.0, 2: 2.0}})
    np.testing.assert_array_equal(s.run(None, {"m": {2: 2.0}})[0], [[0, 0, 2]])


@pytest.mark.parametrize(
    "cast_to,text", [("TO_FLOAT", "abc"), ("TO_INT64", "x1"), ("TO_FLOAT", "")]
)
def test_a_string_that_is_not_a_number(cast_to, text):
    s = onnx_light.RuntimeSession(cast_map(S, cast_to))
    with pytest.raises(ValueError, match=f"map value '{text}' is not a"):
        s.run(None, {"m": {0: text}})


@pytest.mark.parametrize(
    "attrs,message",
    [
        ({"map_form": "SPARSE", "max_map": 0}, "max_map must be positive for map_form SPARSE"),
        ({"map_form": "PACKED"}, "map_form 'PACKED' is not one of DENSE, SPARSE"),
    ],
)
def test_bad_attributes(attrs, message):
    s = onnx_light.RuntimeSession(cast_map(F, **attrs))
    with pytest.raises(ValueError, match=message):
        s.run(None, {"m": {0: 1.0}})


def test_a_bad_cast_to_is_refused_at_load():
    model = typed_model(
        "CastMap",
        [("m", map_of(I64, F))],
        [("y", helper.make_tensor_type_proto(F, None))],
        ml_opset=1,
        cast_to="TO_BOOL",
    )
    with pytest.raises(ValueError, match="cast_to 'TO_BOOL' is not one of"):
        onnx_light.RuntimeSession(model)


def test_string_keys_are_refused():
    model = typed_model(
        "CastMap",
        [("m", map_of(S, F))],
        [("y", helper.make_tensor_type_proto(F, None))],
        ml_opset=1,
    )
    s = onnx_light.RuntimeSession(model)
    with pytest.raises(ValueError, match="CastMap takes a map with int64 keys, got STRING keys"):
        s.run(None, {"m": {"a": 1.0}})
