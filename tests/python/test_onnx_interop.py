"""onnx_light.onnx against the onnx package (the oracle, imported only here).

- every model and test-data file of the onnx==1.22.0 wheel's backend test data is read by
  onnx-light and written back byte-identical;
- models built with onnx_light.onnx.helper serialize to the same bytes as the same models
  built with onnx.helper, and onnx reads them to an equal message;
- numpy_helper agrees with onnx.numpy_helper on every element type.
"""

from __future__ import annotations

import glob
import os

import ml_dtypes
import numpy as np
import onnx
import onnx.helper
import onnx.numpy_helper
import pytest

import onnx_light.onnx as ol
from onnx_light.onnx import helper as olh
from onnx_light.onnx import numpy_helper as olnp

DATA = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
# "real" holds only download links (data.json), no models.
FOLDERS = ["node", "simple", "pytorch-converted", "pytorch-operator", "light"]


def _cases(folder):
    if folder == "light":  # flat: light_<net>.onnx beside light_<net>_output_0.pb
        return sorted(glob.glob(os.path.join(DATA, folder, "*.onnx")))
    return sorted(glob.glob(os.path.join(DATA, folder, "*", "model.onnx")))


def _data_files(model_path):
    if os.path.basename(model_path) == "model.onnx":
        pattern = os.path.join(os.path.dirname(model_path), "test_data_set_*", "*.pb")
        return [(p, os.path.basename(p)[:-3]) for p in sorted(glob.glob(pattern))]
    stem = model_path[: -len(".onnx")]
    return [(p, p[len(stem) + 1 : -3]) for p in sorted(glob.glob(stem + "_*.pb"))]


def _value_kind(type_proto) -> str:
    return type_proto.WhichOneof("value") or "tensor_type"


_PB_CLASS = {
    "tensor_type": ol.TensorProto,
    "sequence_type": ol.SequenceProto,
    "optional_type": ol.OptionalProto,
    "map_type": ol.MapProto,
    "sparse_tensor_type": ol.SparseTensorProto,
}


def test_onnx_version_is_the_pinned_oracle():
    assert onnx.__version__ == "1.22.0"


@pytest.mark.parametrize("folder", FOLDERS)
def test_backend_data_round_trips_byte_identical(folder, record_property):
    models = _cases(folder)
    assert models, f"no test data under {DATA}/{folder}: is onnx==1.22.0 installed?"
    n_models = n_pb = 0
    mismatches = []
    for model_path in models:
        raw = open(model_path, "rb").read()
        model = ol.load(model_path)
        if model.SerializeToString() != raw:
            mismatches.append(model_path)
        n_models += 1
        graph = model.graph
        kinds = {v.name: _value_kind(v.type) for v in list(graph.input) + list(graph.output)}
        inputs = [v.name for v in graph.input if v.name not in {t.name for t in graph.initializer}]
        outputs = [v.name for v in graph.output]
        for pb, stem in _data_files(model_path):
            role, index = stem.rsplit("_", 1)
            names = inputs if role == "input" else outputs
            kind = (
                kinds.get(names[int(index)], "tensor_type")
                if int(index) < len(names)
                else "tensor_type"
            )
            data = open(pb, "rb").read()
            message = _PB_CLASS[kind].FromString(data)
            if message.SerializeToString() != data:
                mismatches.append(pb)
            n_pb += 1
    record_property("models", n_models)
    record_property("pb_files", n_pb)
    print(f"\n{folder}: {n_models} models, {n_pb} .pb files, {len(mismatches)} mismatches")
    assert mismatches == []


def test_loaded_model_equals_onnx_parse():
    # Field-by-field: onnx-light's view of a model re-parsed by onnx equals onnx's own parse.
    for model_path in _cases("node")[::25] + _cases("light"):
        theirs = onnx.load(model_path)
        ours = ol.load(model_path)
        assert onnx.load_from_string(ours.SerializeToString()) == theirs, model_path


def _build_both(h):
    """The same models built with either helper module `h`."""
    x = h.make_tensor_value_info("x", 1, [2, "N", None])
    y = h.make_tensor_value_info("y", 1, [])
    body_in = h.make_tensor_value_info("b_in", 9, [])
    body = h.make_graph(
        [h.make_node("Identity", ["b_in"], ["b_out"], name="id")],
        "body",
        [body_in],
        [h.make_tensor_value_info("b_out", 9, None)],
    )
    nodes = [
        h.make_node("LeakyRelu", ["x"], ["t0"], alpha=0.125, name="n0", doc_string="doc"),
        h.make_node(
            "Custom",
            ["t0"],
            ["t1", ""],
            domain="my.domain",
            ints=[1, -2, 3],
            floats=[0.5, -1.25],
            strings=["a", b"b\x00c"],
            s="text",
            i=-7,
            g=body,
            graphs=[body, body],
            t=h.make_tensor("t", 7, [3], [1, -1, 2**40]),
            tensors=[h.make_tensor("u", 1, [2], [1.5, float("inf")])],
            tp=h.make_tensor_type_proto(10, [3, "K"]),
        ),
        h.make_node("Relu", ["t1"], ["y"], overload="v1"),
    ]
    inits = [
        h.make_tensor("w_f16", 10, [2, 2], [1.0, -0.5, 65504.0, 1e-7]),
        h.make_tensor("w_bf16", 16, [3], [1.0, 3.14159, -2.5e38]),
        h.make_tensor("w_raw", 1, [2], np.array([1.0, 2.0], np.float32).tobytes(), raw=True),
        h.make_tensor("w_str", 8, [2], ["hello", "wörld"]),
        h.make_tensor("w_bool", 9, [3], [True, False, True]),
        h.make_tensor("w_u64", 13, [2], [0, 2**64 - 1]),
        h.make_tensor("w_c64", 14, [2], [1 + 2j, -3j]),
        h.make_tensor("w_i4", 22, [3], [-8, 7, -1]),
        h.make_tensor("w_u2", 25, [5], [0, 1, 2, 3, 1]),
        h.make_tensor("w_f8", 17, [3], [1.0, 500.0, -0.1]),
        h.make_tensor("w_empty", 1, [0, 3], []),
        h.make_tensor("w_scalar", 11, [], [2.5]),
    ]
    graph = h.make_graph(
        nodes,
        "g",
        [x],
        [y],
        initializer=inits,
        doc_string="graph doc",
        value_info=[
            h.make_tensor_value_info("t0", 1, [2, "N", None], shape_denotation=["A", "B", "C"])
        ],
        sparse_initializer=[
            h.make_sparse_tensor(
                h.make_tensor("sv", 1, [2], [1.0, 2.0]), h.make_tensor("si", 7, [2], [0, 3]), [4]
            )
        ],
    )
    func = h.make_function(
        "my.domain",
        "Fn",
        ["a"],
        ["b"],
        [h.make_node("Neg", ["a"], ["b"])],
        [h.make_opsetid("", 17)],
        attributes=["alpha"],
        attribute_protos=[h.make_attribute("beta", 2.0)],
    )
    model = h.make_model(
        graph,
        opset_imports=[h.make_opsetid("", 17), h.make_opsetid("my.domain", 1)],
        functions=[func],
        producer_name="onnx-light-test",
        model_version=3,
    )
    h.set_model_props(model, {"k": "v", "empty": ""})
    seq_type = h.make_sequence_type_proto(h.make_tensor_type_proto(1, [1]))
    opt_type = h.make_optional_type_proto(seq_type)
    map_type = h.make_map_type_proto(7, h.make_tensor_type_proto(1, None))
    return [model, seq_type, opt_type, map_type, h.make_attribute("e", [], attr_type=7)]


def test_helper_built_models_match_onnx_bytes():
    ours = _build_both(olh)
    theirs = _build_both(onnx.helper)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.SerializeToString() == b.SerializeToString()
        assert type(b).FromString(a.SerializeToString()) == b


def test_save_and_load_files_read_by_onnx(tmp_path):
    model = _build_both(olh)[0]
    path = tmp_path / "m.onnx"
    ol.save(model, str(path))
    assert onnx.load(str(path)) == onnx.load_from_string(model.SerializeToString())
    with open(path, "rb") as fh:
        assert ol.load(fh) == model


@pytest.mark.parametrize("data_type", [t for t in onnx.helper.get_all_tensor_dtypes() if t != 8])
def test_numpy_helper_agrees_on_every_type(data_type):
    rng = np.random.default_rng(data_type)
    np_dtype = onnx.helper.tensor_dtype_to_np_dtype(data_type)
    if (
        np_dtype.kind in "iu"
        and np_dtype.itemsize >= 1
        and np_dtype.type
        in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
    ):
        info = np.iinfo(np_dtype)
        values = rng.integers(info.min, info.max, size=(3, 5), dtype=np_dtype, endpoint=True)
    elif np_dtype == np.bool_:
        values = rng.integers(0, 2, size=(3, 5)).astype(bool)
    elif np_dtype.kind == "c":
        values = (rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))).astype(np_dtype)
    else:
        # ml_dtypes types (bfloat16, float8, int4, float4 ...) and numpy floats
        raw = rng.integers(
            0,
            256,
            size=(3, 5) + ((np_dtype.itemsize,) if np_dtype.itemsize > 1 else ()),
            dtype=np.uint8,
        )
        values = raw.view(np_dtype).reshape(3, 5) if np_dtype.itemsize > 1 else raw.view(np_dtype)
        if data_type in (21, 22, 23, 25, 26):  # sub-byte: keep valid codes only
            bits = 4 if data_type in (21, 22, 23) else 2
            values = (raw & ((1 << bits) - 1)).view(np_dtype)
    ours = olnp.from_array(values, name="v")
    theirs = onnx.numpy_helper.from_array(values, name="v")
    assert ours.SerializeToString() == theirs.SerializeToString()
    back_ours = olnp.to_array(ol.TensorProto.FromString(theirs.SerializeToString()))
    back_theirs = onnx.numpy_helper.to_array(theirs)
    assert back_ours.dtype == back_theirs.dtype
    assert back_ours.shape == back_theirs.shape
    np.testing.assert_array_equal(back_ours.view(np.uint8), back_theirs.view(np.uint8))
    # the typed-field form (no raw_data) that onnx.helper.make_tensor writes
    if data_type not in (21, 22, 23, 25, 26):
        flat = back_theirs.flatten()
        typed = onnx.helper.make_tensor("t", data_type, back_theirs.shape, flat)
        ours_typed = olh.make_tensor("t", data_type, back_theirs.shape, flat)
        assert ours_typed.SerializeToString() == typed.SerializeToString()
        a = olnp.to_array(ol.TensorProto.FromString(typed.SerializeToString()))
        b = onnx.numpy_helper.to_array(typed)
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def test_numpy_helper_strings_and_containers():
    strings = np.array(["a", "héllo", ""], dtype=object)
    ours = olnp.from_array(strings, "s")
    assert (
        ours.SerializeToString() == onnx.numpy_helper.from_array(strings, "s").SerializeToString()
    )
    np.testing.assert_array_equal(olnp.to_array(ours), strings)
    seq = [np.arange(3, dtype=np.int64), np.ones((2, 2), np.float32)]
    assert (
        olnp.from_list(seq, "l").SerializeToString()
        == onnx.numpy_helper.from_list(seq, "l").SerializeToString()
    )
    d = {1: np.arange(2.0), 5: np.zeros(1)}
    assert (
        olnp.from_dict(d, "d").SerializeToString()
        == onnx.numpy_helper.from_dict(d, "d").SerializeToString()
    )
    back = olnp.to_dict(olnp.from_dict(d))
    assert list(back) == [1, 5]
    opt = olnp.from_optional(np.array([1.0, 2.0]), "o")
    assert (
        opt.SerializeToString()
        == onnx.numpy_helper.from_optional(np.array([1.0, 2.0]), "o").SerializeToString()
    )
    assert olnp.to_optional(ol.OptionalProto()) is None


@pytest.mark.parametrize(
    "first, second",
    [("dim_param", "dim_value"), ("dim_value", "dim_param")],
)
def test_setting_a_oneof_member_clears_the_other_as_protobuf_does(first, second):
    values = {"dim_param": "N", "dim_value": 3}
    ours, theirs = ol.TensorShapeProto.Dimension(), onnx.TensorShapeProto.Dimension()
    for message in (ours, theirs):
        setattr(message, first, values[first])
        setattr(message, second, values[second])
    assert ours.WhichOneof("value") == theirs.WhichOneof("value") == second
    assert getattr(ours, first) == getattr(theirs, first)  # cleared: "" or 0
    assert ours.SerializeToString() == theirs.SerializeToString()
    # the same through keyword arguments, set in order
    kw = ol.TensorShapeProto.Dimension(**{first: values[first], second: values[second]})
    assert kw.SerializeToString() == theirs.SerializeToString()
