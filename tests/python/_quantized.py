"""Shared by the integer-kernel tests (MatMulInteger, ConvInteger, QLinear*): one-node
models and the spec's requantization, computed exactly in float64 as the reference."""

from __future__ import annotations

import numpy as np
from _graphs import node_bytes

import onnx_light


def model(op, inputs, out_type, opset=21, **attrs):
    return node_bytes(op, inputs, [("y", out_type)], opset, **attrs)


def light(data: bytes, feeds) -> np.ndarray:
    return onnx_light.RuntimeSession(data).run(None, feeds)[0]


def requantize(acc, scale, zero_point, dtype):
    """The spec's requantization: acc * scale (scale already float32, product in float64)
    + zero_point, rounded half to even, saturated to dtype."""
    info = np.iinfo(dtype)
    v = acc.astype(np.float64) * scale.astype(np.float64) + float(zero_point)
    return np.clip(np.rint(v), info.min, info.max).astype(dtype)
