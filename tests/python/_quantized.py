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


def conv_int64(x, w, group=1, pads=(0, 0, 0, 0), strides=(1, 1), dilations=(1, 1)):
    """Exact 2-D convolution of integer arrays (N, C, H, W) * (M, C/group, kh, kw) in int64."""
    m, cg, kh, kw = w.shape
    dh, dw = dilations
    wd = np.zeros((m, cg, (kh - 1) * dh + 1, (kw - 1) * dw + 1), np.int64)
    wd[:, :, ::dh, ::dw] = w
    x = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, c, h, width = x.shape
    kh, kw = wd.shape[2:]
    oh, ow = (h - kh) // strides[0] + 1, (width - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), np.int64)
    mg = m // group
    for oc in range(m):
        g = oc // mg
        for i in range(kh):
            for j in range(kw):
                patch = x[:, g * cg : (g + 1) * cg, i : i + strides[0] * oh : strides[0]]
                patch = patch[..., j : j + strides[1] * ow : strides[1]]
                y[:, oc] += np.einsum("nchw,c->nhw", patch, wd[oc, :, i, j])
    return y


def run_in_child(path: str, selector: str, **env: str) -> str:
    """The tests of `path` that `selector` picks (pytest -k), run by a child pytest with
    `env` added to the environment (settings a process reads once, as the SIMD cap or the
    AMX switch); fails the caller with the child's output unless all pass. Returns that
    output."""
    import os
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", path, "-k", selector],
        capture_output=True,
        text=True,
        env=dict(os.environ, **env),
        cwd=os.path.dirname(os.path.abspath(path)),
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and "failed" not in run.stdout, run.stdout[-500:]
    return run.stdout
