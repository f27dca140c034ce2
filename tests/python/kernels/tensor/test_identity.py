"""Identity (src/onnx_light/kernels/tensor/identity.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _narrow import FLOATS, INTS, all_codes

import onnx_light
from onnx_light.onnx import TensorProto, helper


@pytest.mark.parametrize("onnx_type", [TensorProto.INT4, TensorProto.UINT2, TensorProto.FLOAT4E2M1])
@pytest.mark.parametrize("n", [0, 1, 3, 7, 8, 1001])
def test_packed_tensors_round_trip_at_the_python_boundary(onnx_type, n):
    dtype = FLOATS.get(onnx_type) or INTS[onnx_type]
    codes = all_codes(dtype)
    x = np.resize(codes, n).reshape(n, 1)
    node = helper.make_node("Identity", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", onnx_type, None)],
        [helper.make_tensor_value_info("y", onnx_type, None)],
    )
    s = onnx_light.RuntimeSession(helper.make_model(graph))
    got = s.run(None, {"x": x})[0]
    assert got.dtype == dtype and got.shape == (n, 1)
    np.testing.assert_array_equal(got.view(np.uint8), x.view(np.uint8))


def _sequence_identity_model(opset):
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
        helper.make_node("Identity", ["s"], ["t"]),
        helper.make_node("SequenceAt", ["t", "i"], ["u"]),
        helper.make_node("Identity", ["u"], ["v"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
        ],
        [
            helper.make_value_info("t", seq),
            helper.make_tensor_value_info("v", TensorProto.FLOAT, None),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("opset", [14, 17, 21])
def test_identity_passes_a_sequence_from_opset_14(opset):
    """Identity-14 takes a sequence of tensors (ONNX's test_identity_sequence): the output
    is the same sequence, feeding a sequence op; a tensor through the next Identity."""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([-1.5, 2.5], dtype=np.float32)
    s = onnx_light.RuntimeSession(_sequence_identity_model(opset))
    t, v = s.run(None, {"a": a, "b": b, "i": np.array(1)})
    assert len(t) == 2
    np.testing.assert_array_equal(t[0], a)
    np.testing.assert_array_equal(t[1], b)
    np.testing.assert_array_equal(v, b)


def test_identity_before_opset_14_refuses_a_sequence():
    """Identity-1/13 takes tensors only: a sequence input is refused at load (as every op
    that takes no sequence refuses one), and the process goes on."""
    with pytest.raises(RuntimeError, match="Identity.*is a sequence where this op takes a tensor"):
        onnx_light.RuntimeSession(_sequence_identity_model(13))
    s = onnx_light.RuntimeSession(_sequence_identity_model(14))
    assert (
        len(
            s.run(
                None, {"a": np.ones(1, np.float32), "b": np.ones(1, np.float32), "i": np.array(0)}
            )[0]
        )
        == 2
    )
