"""fold_batch_norm_into_conv (src/onnx_light/runtime/passes/pass_fold_batch_norm_into_conv.cc):
BatchNormalization after a Conv folded into its weights, against level "none" (float32 at
rtol 1e-5, atol 1e-5: scaled weights round differently); and what must not fold."""

from __future__ import annotations

import numpy as np
import pytest
from _conv_graphs import ONLY_THIS_PASS, check, conv_model

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


RNG = np.random.default_rng(11)


@pytest.mark.parametrize("conv_bias", [True, False])
def test_batch_norm_folds_then_activation_fuses(conv_bias):
    m = 6
    bn = [
        numpy_helper.from_array(RNG.uniform(0.5, 2, m).astype(np.float32), "scale"),
        numpy_helper.from_array(RNG.standard_normal(m).astype(np.float32), "shift"),
        numpy_helper.from_array(RNG.standard_normal(m).astype(np.float32), "mean"),
        numpy_helper.from_array(RNG.uniform(0.1, 3, m).astype(np.float32), "var"),
    ]
    tail = [
        helper.make_node(
            "BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["b"], epsilon=1e-3
        ),
        helper.make_node("Relu", ["b"], ["y"]),
    ]
    check(conv_model(tail, extra_inits=bn, bias=conv_bias), fused_away=2)


def test_batch_norm_fed_by_a_graph_input_does_not_fold():
    tail = [helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["y"])]
    model = conv_model(tail)
    for name in "sbmv":
        model.graph.input.append(helper.make_tensor_value_info(name, F, [6]))
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    assert (
        onnx_light.RuntimeSession(model, **ONLY_THIS_PASS).planned_nodes == none.planned_nodes == 2
    )
