"""The float64 reference of Skip(Simplified)LayerNormalization, shared by their tests."""

from __future__ import annotations

import numpy as np


def skip_norm(x, skip, gamma, beta=None, bias=None, eps=1e-12, rms=False):
    """(output, mean, inv_std_var, input_skip_bias_sum) in float64."""
    s = x.astype(np.float64) + skip
    if bias is not None:
        s = s + bias
    mu = np.zeros(s.shape[:-1] + (1,)) if rms else s.mean(-1, keepdims=True)
    inv = 1 / np.sqrt(((s - mu) ** 2).mean(-1, keepdims=True) + eps)
    y = (s - mu) * inv * gamma
    if beta is not None:
        y = y + beta
    return y, mu, inv, s
