"""Subgraphs run on their session's one thread pool: a model with nested If nodes (Silero VAD
v5: If branches four levels deep, 20 subgraphs) created with intra_op_threads=4 adds the
session's pool (three workers beside the calling thread) to the process and no thread
more, counted in /proc/self/task; and its outputs are those of a one-thread session, which
test_real_models checks against ONNX Runtime."""

from __future__ import annotations

import os

import numpy as np
import pytest
from _models import model_path

import onnx_light


def thread_count() -> int:
    return len(os.listdir("/proc/self/task"))


def feeds(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "input": rng.standard_normal((1, 512)).astype(np.float32) * 0.1,
        "state": np.zeros((2, 1, 128), np.float32),
        "sr": np.array(16000, np.int64),
    }


@pytest.mark.parametrize("name", ["silero_vad.onnx", "silero_vad_16k_op15.onnx"])
def test_nested_subgraphs_share_the_session_pool(name):
    path = str(model_path(name))
    # A first session and run start what the process starts once (the BLAS library's own
    # threads, if any), so that the count below is the new session's alone.
    reference = onnx_light.RuntimeSession(path, intra_op_threads=1)
    want = [reference.run(None, feeds(seed)) for seed in range(3)]
    before = thread_count()
    session = onnx_light.RuntimeSession(path, intra_op_threads=4)
    got = [session.run(None, feeds(seed)) for seed in range(3)]
    assert thread_count() - before == 3, "the session's pool has 3 workers; subgraphs add none"
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    del session
