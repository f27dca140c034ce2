"""Several Python threads run one RuntimeSession at once (run() releases the GIL): real
models, different input shapes per thread, and the Silero VAD export whose LSTM sits in
nested If subgraphs. Every concurrent result must equal, bit for bit, what a lone run
computes for the same input (same kernels, same data). The models are fetched by
scripts/setup.sh; a missing one fails with what to run."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from _models import model_path

import onnx_light


def hammer(session, cases, threads=6, rounds=12):
    """Runs every case from `threads` threads; returns the mismatches and errors seen."""
    want = [session.run(None, feeds) for feeds in cases]
    problems = []

    def worker(t):
        for r in range(rounds):
            k = (t + r) % len(cases)
            try:
                got = session.run(None, cases[k])
            except Exception as e:  # noqa: BLE001 - reported below
                problems.append(f"case {k}: {type(e).__name__}: {e}")
                continue
            for g, w in zip(got, want[k]):
                if g.shape != w.shape or not np.array_equal(g, w):
                    problems.append(f"case {k}: result differs from the lone run")

    pool = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for p in pool:
        p.start()
    for p in pool:
        p.join()
    return problems


@pytest.mark.parametrize("intra_op_threads", [1, 2])
def test_one_cnn_session_many_threads_different_shapes(intra_op_threads):
    s = onnx_light.RuntimeSession(
        str(model_path("ch_ppocr_mobile_v2.0_cls_infer.onnx")), intra_op_threads=intra_op_threads
    )
    rng = np.random.default_rng(5)
    shapes = [(1, 3, 48, 192), (2, 3, 48, 100), (3, 3, 48, 64), (1, 3, 48, 320)]
    cases = [{"x": rng.uniform(-1, 1, sh).astype(np.float32)} for sh in shapes]
    assert hammer(s, cases) == []


def test_one_session_with_subgraphs_many_threads():
    s = onnx_light.RuntimeSession(str(model_path("silero_vad_16k_op15.onnx")))
    rng = np.random.default_rng(6)
    cases = []
    for batch in (1, 2, 1, 3):  # the export takes 512-sample chunks, any batch
        cases.append(
            {
                "input": (rng.standard_normal((batch, 512)) * 0.3).astype(np.float32),
                "state": (rng.standard_normal((2, batch, 128)) * 0.1).astype(np.float32),
                "sr": np.array(16000, np.int64),
            }
        )
    assert hammer(s, cases) == []
