"""A float64 reference of scaled dot-product attention with an additive bias, shared by the
com.microsoft attention op tests."""

from __future__ import annotations

import numpy as np


def sdpa(q, k, v, scale, bias=None):
    """q [B, N, S, H], k/v [B, N, T, H] (float64), bias broadcast to [B, N, S, T]."""
    s = scale * np.einsum("bnsh,bnth->bnst", q, k)
    if bias is not None:
        s = s + bias
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bnst,bnth->bnsh", p, v)


def heads(x, n):
    """[B, S, N*H] -> [B, N, S, H]."""
    b, s, d = x.shape
    return x.reshape(b, s, n, d // n).transpose(0, 2, 1, 3)


def merge(x):
    """[B, N, S, H] -> [B, S, N*H]."""
    b, n, s, h = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, s, n * h)


def key_mask_bias(mask, b, s, t, filter_value=-10000.0):
    """The additive [B, 1, S, T] bias of an Attention/MultiHeadAttention int32 mask."""
    out = np.zeros((b, 1, s, t))
    if mask is None:
        return out
    if mask.ndim == 1 and mask.shape[0] in (b, 2 * b):
        for i in range(b):
            out[i, :, :, max(0, mask[i]) :] = filter_value
            if mask.shape[0] == 2 * b:
                out[i, :, :, : min(mask[b + i], t, max(0, mask[i]))] = filter_value
    elif mask.ndim == 2:
        out[:] = np.where(mask[:, None, None, :] > 0, 0, filter_value)
    else:
        out[:] = np.where(mask[:, None, :, :] > 0, 0, filter_value)
    return out
