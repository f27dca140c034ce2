"""LeakyRelu, Log and Relu (src/onnx_light/kernels/math/unary.cc), in ai.onnx and in the
custom domains onnx_light (LeakyRelu) and onnx_light_cpu (Log) that the bundled default
model uses: float32 against numpy (LeakyRelu and Relu exactly; Log within 2 ULP, the SIMD
form), Relu on integers exactly."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I8, I32, F

import onnx_light
from onnx_light.onnx import helper

X = np.array([-3.5, -1.0, -0.0, 0.0, 0.25, 2.0, 1e30, -1e30], np.float32)


def one_node(op, domain="", elem=F, **attrs):
    graph = helper.make_graph(
        [helper.make_node(op, ["x"], ["y"], domain=domain, **attrs)],
        "g",
        [helper.make_tensor_value_info("x", elem, None)],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    imports = [helper.make_opsetid("", 17)]
    if domain:
        imports.append(helper.make_opsetid(domain, 1))
    return onnx_light.RuntimeSession(helper.make_model(graph, opset_imports=imports))


@pytest.mark.parametrize("domain", ["", "onnx_light"])
def test_leaky_relu(domain):
    (y,) = one_node("LeakyRelu", domain, alpha=0.25).run(None, {"x": X})
    np.testing.assert_array_equal(y, np.where(X < 0, X * np.float32(0.25), X))


@pytest.mark.parametrize("domain", ["", "onnx_light_cpu"])
def test_log(domain):
    x = np.abs(X) + np.float32(1e-3)
    (y,) = one_node("Log", domain).run(None, {"x": x})
    np.testing.assert_array_max_ulp(y, np.log(x), maxulp=2)


@pytest.mark.parametrize("elem,dtype", [(F, np.float32), (I32, np.int32), (I8, np.int8)])
def test_relu(elem, dtype):
    x = np.array([-5, -1, 0, 3, 7], dtype)
    (y,) = one_node("Relu", elem=elem).run(None, {"x": x})
    np.testing.assert_array_equal(y, np.maximum(x, 0))
