"""Scatter, ScatterElements, ScatterND (src/onnx_light/kernels/tensor/scatter.cc):
ScatterND's values equal to the ONNX reference's loop in numpy (slices and elements,
duplicate indices: the later update wins; every item size, strings); bad inputs refused
with a ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _item_types import TYPES, values
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import TensorProto, helper

BAD_INPUTS = [
    (
        "ScatterElements",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[2, 0, 0]]), "u": f32(1, 3)},
        "index 2 is out of range",
    ),
    (
        "ScatterND",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[0, 0, 0]]), "u": f32(1)},
        "must end in a dimension",
    ),
    (
        "ScatterND",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[1]]), "u": f32(1, 2)},
        "do not match indices and data",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize(
    "shape,ishape", [((1000, 256), (500, 1)), ((4, 5, 6), (3, 2)), ((4, 5), (6, 2)), ((9,), (9, 1))]
)
def test_scatter_nd_matches_the_reference(shape, ishape, dtype):
    from _graphs import run_node

    x = values(shape, dtype)
    q = ishape[-1]
    rng = np.random.default_rng(3)
    idx = np.stack([rng.integers(-shape[k], shape[k], ishape[:-1]) for k in range(q)], -1)
    upd = values(ishape[:-1] + shape[q:], dtype, seed=4)
    (y,) = run_node(
        "ScatterND",
        [("x", TYPES[dtype]), ("i", TensorProto.INT64), ("u", TYPES[dtype])],
        {"x": x, "i": idx, "u": upd},
        [("y", TYPES[dtype])],
    )
    want = x.copy()
    for t in np.ndindex(idx.shape[:-1]):
        want[tuple(idx[t])] = upd[t]
    np.testing.assert_array_equal(y, want)


UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def scatter_elements_reference(data, idx, upd, axis, reduction):
    """The ONNX reference's loop as numpy's unbuffered ufunc.at (every duplicate index
    combined in order); "none": the later update wins."""
    out = data.copy()
    where = list(np.indices(idx.shape))
    where[axis] = np.where(idx < 0, idx + data.shape[axis], idx)
    if reduction == "none":
        out[tuple(where)] = upd
    else:
        UFUNCS[reduction].at(out, tuple(where), upd)
    return out


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize(
    "dshape,ishape,axis,dtype,itype",
    [
        # a GNN's message sum, many per node: columns split between threads
        ((192, 48), (768, 48), 0, np.float32, np.int64),
        ((6, 7, 5), (6, 9, 4), 1, np.float64, np.int32),  # shorter than data off the axis
        ((5, 12), (3, 30), -1, np.int64, np.int64),  # the last axis, wrapping integers
        ((40,), (100,), 0, np.int32, np.int32),
        ((4, 3, 8), (2, 3, 8), 0, np.float16, np.int64),
    ],
)
def test_scatter_elements_reductions_match_the_reference(
    dshape, ishape, axis, dtype, itype, reduction, threads
):
    rng = np.random.default_rng(sum(dshape) + len(reduction))
    data = (rng.standard_normal(dshape) * 3).astype(dtype)
    n = dshape[axis]
    idx = rng.integers(-n, n, ishape).astype(itype)  # negatives count from the end
    upd = (rng.standard_normal(ishape) * 3).astype(dtype)
    if reduction == "none":  # one update per place (the spec leaves duplicates' order open)
        idx = np.broadcast_to(
            np.arange(ishape[axis]).reshape(
                [-1 if d == axis % len(ishape) else 1 for d in range(len(ishape))]
            )
            % n,
            ishape,
        ).astype(itype)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    ielem = helper.np_dtype_to_tensor_dtype(np.dtype(itype))
    graph = helper.make_graph(
        [
            helper.make_node(
                "ScatterElements", ["d", "i", "u"], ["y"], axis=axis, reduction=reduction
            )
        ],
        "g",
        [
            helper.make_tensor_value_info("d", elem, None),
            helper.make_tensor_value_info("i", ielem, None),
            helper.make_tensor_value_info("u", elem, None),
        ],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    got = onnx_light.RuntimeSession(model.SerializeToString(), intra_op_threads=threads).run(
        None, {"d": data, "i": idx, "u": upd}
    )[0]
    want = scatter_elements_reference(data, idx, upd, axis, reduction)
    if np.issubdtype(dtype, np.integer) or reduction in ("none", "max", "min"):
        np.testing.assert_array_equal(got, want)
    else:  # float sums and products in the same order, each rounded to the type
        np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_gather_elements_matches_take_along_axis(axis, itype):
    rng = np.random.default_rng(5)
    data = rng.standard_normal((7, 9, 5)).astype(np.float32)
    ishape = [4, 6, 3]
    ishape[axis] = 11  # longer than data on the axis, shorter elsewhere
    n = data.shape[axis]
    idx = rng.integers(-n, n, ishape).astype(itype)
    graph = helper.make_graph(
        [helper.make_node("GatherElements", ["d", "i"], ["y"], axis=axis)],
        "g",
        [
            helper.make_tensor_value_info("d", TensorProto.FLOAT, None),
            helper.make_tensor_value_info(
                "i", helper.np_dtype_to_tensor_dtype(np.dtype(itype)), None
            ),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    got = onnx_light.RuntimeSession(model.SerializeToString()).run(None, {"d": data, "i": idx})[0]
    sl = tuple(slice(0, s) if d != axis % 3 else slice(None) for d, s in enumerate(ishape))
    want = np.take_along_axis(data[sl], np.where(idx < 0, idx + n, idx).astype(np.int64), axis)
    np.testing.assert_array_equal(got, want)
