"""Shared by the com.microsoft kernel tests (tests/python/kernels/com_microsoft/): one-node
models of a com.microsoft op, run by onnx-light and by ONNX Runtime (the op's owner: its
contrib CPU kernels define the semantics), with float64 references where the math is
simple enough to write out."""

from __future__ import annotations

import numpy as np

import onnx_light
from onnx_light.onnx import helper, numpy_helper

MS = "com.microsoft"


def ms_model(op, inputs, outputs, initializers=None, opset=17, domain=MS, **attrs):
    """A ModelProto of one `op` node of `domain`. inputs/outputs are (name, elem_type)
    pairs; an input named "" is an absent optional input; one whose elem_type is None is a
    weight from `initializers`."""
    node = helper.make_node(
        op, [n for n, _ in inputs], [n for n, _ in outputs], domain=domain, **attrs
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in inputs if n and t is not None],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs if n],
        [numpy_helper.from_array(a, n) for n, a in (initializers or {}).items()],
    )
    imports = [helper.make_opsetid("", opset)]
    if domain:
        imports.append(helper.make_opsetid(domain, 1))
    return helper.make_model(graph, opset_imports=imports)


def light_run(model, feeds) -> list:
    return onnx_light.RuntimeSession(model.SerializeToString()).run(None, feeds)


def ort_run(model, feeds) -> list:
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    data = model.SerializeToString()
    return ort.InferenceSession(data, so, providers=["CPUExecutionProvider"]).run(None, feeds)


def check_vs_ort(model, feeds, rtol=1e-5, atol=1e-6) -> list:
    """Runs `model` through both runtimes; every output agrees within the tolerances.
    Returns onnx-light's outputs."""
    got, want = light_run(model, feeds), ort_run(model, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return got


def randn(rng, *shape, scale=1.0):
    return np.asarray(rng.standard_normal(shape) * scale, dtype=np.float32)
