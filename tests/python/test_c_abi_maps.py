"""Maps through the C ABI (libonnx_light.so, called with ctypes as a C caller would): a
map input fed to DictVectorizer as a pair of tensors and a ZipMap's sequence of maps read
back as views, through OnnxLightRunValues; OnnxLightRun refuses such a model by name, and
every misuse is a code and a message that leaves the library usable."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from _c_abi import Map, Tensor, load_library

from onnx_light.onnx import TensorProto, helper

F, I64, S = TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING
VALUE_TENSOR, VALUE_MAP, VALUE_MAP_SEQUENCE = 0, 3, 4


@pytest.fixture(scope="module")
def lib():
    return load_library()


def map_type(key, value):
    return helper.make_map_type_proto(key, helper.make_tensor_type_proto(value, None))


def vectorize_then_zip() -> bytes:
    """m: map(int64, float) -> DictVectorizer(1, 2, 3) -> y [1, 3] -> ZipMap(10, 20, 30) -> z;
    m is also returned as it is (a map output)."""
    nodes = [
        helper.make_node(
            "DictVectorizer", ["m"], ["y"], domain="ai.onnx.ml", int64_vocabulary=[1, 2, 3]
        ),
        helper.make_node(
            "ZipMap", ["y"], ["z"], domain="ai.onnx.ml", classlabels_int64s=[10, 20, 30]
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_value_info("m", map_type(I64, F))],
        [
            helper.make_tensor_value_info("y", F, None),
            helper.make_value_info("z", helper.make_sequence_type_proto(map_type(I64, F))),
            helper.make_value_info("m", map_type(I64, F)),
        ],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)]
    )
    model.ir_version = 8
    return model.SerializeToString()


def c_tensor(array: np.ndarray, keep: list) -> Tensor:
    array = np.ascontiguousarray(array)
    shape = (ctypes.c_int64 * array.ndim)(*array.shape)
    keep += [array, shape]
    code = {np.dtype(np.float32): F, np.dtype(np.int64): I64, np.dtype(np.float64): 11}
    return Tensor(None, array.ctypes.data, code[array.dtype], array.size, array.ndim, shape, None)


def c_map(name: bytes, keys, values, keep: list) -> Map:
    return Map(name, c_tensor(np.asarray(keys), keep), c_tensor(np.asarray(values), keep))


def as_array(t: Tensor) -> np.ndarray:
    dtype = {F: np.float32, I64: np.int64}[t.element_type]
    shape = [t.shape[i] for i in range(t.rank)]
    return (
        np.ctypeslib.as_array(
            ctypes.cast(t.data, ctypes.POINTER(np.ctypeslib.as_ctypes_type(dtype))),
            shape=(t.element_count,),
        )
        .reshape(shape)
        .copy()
    )


@pytest.fixture()
def session(lib):
    data = vectorize_then_zip()
    handle = ctypes.c_void_p()
    rc = lib.OnnxLightSessionCreate(data, ctypes.c_size_t(len(data)), ctypes.byref(handle))
    assert rc == 0, lib.OnnxLightLastErrorMessage()
    yield handle
    lib.OnnxLightSessionRelease(handle)


def run_values(lib, session, maps, tensors=()):
    keep: list = []
    outputs = (ctypes.c_void_p * 3)()
    map_array = (Map * max(len(maps), 1))(*[c_map(*m, keep) for m in maps])
    tensor_array = (Tensor * max(len(tensors), 1))(*tensors)
    rc = lib.OnnxLightRunValues(
        session, tensor_array, len(tensors), map_array, len(maps), outputs, None
    )
    return rc, lib.OnnxLightLastErrorMessage().decode(), outputs


def test_a_map_in_and_maps_out(lib, session):
    rc, message, outputs = run_values(
        lib, session, [(b"m", np.array([3, 1, 7]), np.array([0.5, 2.0, 9.0], np.float32))]
    )
    assert rc == 0, message
    y, z, m = outputs
    assert [lib.OnnxLightValueKind(v) for v in outputs] == [
        VALUE_TENSOR,
        VALUE_MAP_SEQUENCE,
        VALUE_MAP,
    ]
    t = Tensor()
    assert lib.OnnxLightValueGetTensor(y, ctypes.byref(t)) == 0
    np.testing.assert_array_equal(as_array(t), [[2.0, 0.0, 0.5]])
    assert lib.OnnxLightValueMapCount(z) == 1
    keys, values = Tensor(), Tensor()
    assert lib.OnnxLightValueGetMap(z, 0, ctypes.byref(keys), ctypes.byref(values)) == 0
    assert as_array(keys).tolist() == [10, 20, 30]
    np.testing.assert_array_equal(as_array(values), [2.0, 0.0, 0.5])
    assert lib.OnnxLightValueMapCount(m) == 1  # the input map, returned as it was fed
    assert lib.OnnxLightValueGetMap(m, 0, ctypes.byref(keys), ctypes.byref(values)) == 0
    assert as_array(keys).tolist() == [3, 1, 7]
    for v in outputs:
        lib.OnnxLightValueRelease(v)


def test_misuse_of_values(lib, session):
    rc, message, (y, z, m) = run_values(
        lib, session, [(b"m", np.array([1]), np.array([1.0], np.float32))]
    )
    assert rc == 0, message
    t, k = Tensor(), Tensor()
    assert lib.OnnxLightValueGetMap(z, 1, ctypes.byref(t), ctypes.byref(k)) == 1
    assert lib.OnnxLightLastErrorMessage() == b"map 1 of 1"
    assert lib.OnnxLightValueGetTensor(z, ctypes.byref(t)) == 1
    assert lib.OnnxLightLastErrorMessage() == b"the value is a map, not a tensor"
    assert lib.OnnxLightValueGetMap(y, 0, ctypes.byref(t), ctypes.byref(k)) == 1
    assert lib.OnnxLightLastErrorMessage() == b"the value is a tensor, not a map"
    assert lib.OnnxLightValueKind(None) == -1 and lib.OnnxLightValueMapCount(None) == 0
    for v in (y, z, m):
        lib.OnnxLightValueRelease(v)
    lib.OnnxLightValueRelease(None)


@pytest.mark.parametrize(
    "maps,code,message",
    [
        ([], 1, "missing input 'm'"),
        (
            [(b"m", np.array([1.5]), np.array([1.0], np.float32))],
            2,
            "input 'm': map keys must be int64 or string, got DOUBLE",
        ),
        (
            [(b"m", np.array([1]), np.array([1.0]))],
            2,
            "input 'm': expected FLOAT map values, got DOUBLE",
        ),
        (
            [(b"m", np.array([1, 1]), np.array([1.0, 2.0], np.float32))],
            1,
            "input 'm': a map key appears more than once",
        ),
        ([(b"x", np.array([1]), np.array([1.0], np.float32))], 1, "unknown input 'x'"),
        (
            [(b"m", np.array([[1]]), np.array([[1.0]], np.float32))],
            1,
            "input 'm': a map's keys and values must be 1-D and of one length",
        ),
    ],
)
def test_bad_map_feeds(lib, session, maps, code, message):
    rc, got, outputs = run_values(lib, session, maps)
    assert rc == code and got.startswith(message), got
    assert list(outputs) == [None, None, None]
    rc, got, outputs = run_values(
        lib, session, [(b"m", np.array([2]), np.array([4.0], np.float32))]
    )
    assert rc == 0, got  # still usable
    for v in outputs:
        lib.OnnxLightValueRelease(v)


def test_a_tensor_fed_for_the_map(lib, session):
    keep: list = []
    t = c_tensor(np.array([1.0], np.float32), keep)
    t.name = b"m"
    rc, message, _ = run_values(lib, session, [], [t])
    assert rc == 2 and message == "input 'm': expected a map, got a tensor"


def test_a_bad_key_buffer(lib, session):
    keep: list = []
    m = c_map(b"m", np.array([1, 2]), np.array([1.0, 2.0], np.float32), keep)
    m.keys.element_count = 5  # more than the shape says
    outputs = (ctypes.c_void_p * 3)()
    rc = lib.OnnxLightRunValues(session, None, 0, ctypes.byref(m), 1, outputs, None)
    assert rc == 1
    assert lib.OnnxLightLastErrorMessage().startswith(b"map input 'm' keys: element_count 5")


def test_run_refuses_a_map_model_by_name(lib, session):
    outputs = (Tensor * 3)()
    rc = lib.OnnxLightRun(session, None, 0, outputs)
    assert rc == 5
    assert (
        lib.OnnxLightLastErrorMessage() == b"'m' is a map: run this model with OnnxLightRunValues"
    )


def test_null_arguments(lib, session):
    outputs = (ctypes.c_void_p * 3)()
    assert lib.OnnxLightRunValues(None, None, 0, None, 0, outputs, None) == 1
    assert lib.OnnxLightRunValues(session, None, 1, None, 0, outputs, None) == 1
    assert lib.OnnxLightRunValues(session, None, 0, None, 1, outputs, None) == 1
    assert lib.OnnxLightRunValues(session, None, 0, None, 0, None, None) == 1
    assert lib.OnnxLightLastErrorMessage() == b"null argument"
