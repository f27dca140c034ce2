"""onnx_light.batch on a real Ray cluster on this machine (``ray.init(num_cpus=2)``): Ray Data's
``map_batches`` with BatchPredictor as the callable class, one session per actor. 50,000
rows of MTCNN's P-Net (a real model fetched by the set-up) through two actors, one of them
killed mid-job: Ray restarts it and retries its batch, and the output holds every row once,
equal to one run of the whole array in this process. Ray is a test dependency
(requirements/engines.txt); without it these tests fail, saying what to install."""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
import pytest
from _models import model_path

from onnx_light.batch import BatchPredictor

ROWS = 50_000
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(scope="module")
def ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        pytest.fail("Ray is not installed: run scripts/setup.sh (requirements/engines.txt)")
    paths = [os.path.join(REPO, "python"), HERE] + os.environ.get("PYTHONPATH", "").split(":")
    env = {"PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    if "ONNX_LIGHT_BUILD_DIR" in os.environ:
        env["ONNX_LIGHT_BUILD_DIR"] = os.environ["ONNX_LIGHT_BUILD_DIR"]
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": env},
    )
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()


class KilledOnce(BatchPredictor):
    """A predictor whose actor dies (the process exits) at its third batch, once per job:
    the marker file says it happened."""

    def __init__(self, marker: str, **kwargs):
        super().__init__(**kwargs)
        self.marker, self.calls = marker, 0

    def __call__(self, batch):
        self.calls += 1
        if self.calls == 3 and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)
        out = super().__call__(batch)
        out["pid"] = np.full(len(batch["id"]), os.getpid())
        return out


def test_50000_rows_through_two_actors_one_killed_mid_job(ray, tmp_path):
    pnet = str(model_path("mtcnn_pnet.onnx"))
    x = np.random.default_rng(0).random((ROWS, 12, 12, 3), dtype=np.float32)
    parts = [
        pd.DataFrame({"id": np.arange(i, i + 2500), "image": list(x[i : i + 2500])})
        for i in range(0, ROWS, 2500)
    ]
    ds = ray.data.from_pandas(parts)
    marker = str(tmp_path / "killed")
    out = ds.map_batches(
        KilledOnce,
        fn_constructor_kwargs=dict(
            marker=marker,
            model=pnet,
            inputs={"input_1": "image"},
            outputs={"softmax": "prob", "conv2d_4": "box"},
        ),
        compute=ray.data.ActorPoolStrategy(size=2),
        batch_size=1000,
        batch_format="numpy",
    ).to_pandas()
    assert os.path.exists(marker), "no actor was killed"
    ids = out["id"].to_numpy()
    assert len(ids) == ROWS and np.array_equal(
        np.sort(ids), np.arange(ROWS)
    )  # none lost or doubled
    order = np.argsort(ids)
    prob = np.stack(out["prob"].to_numpy()[order])
    box = np.stack(out["box"].to_numpy()[order])
    ref = BatchPredictor(pnet).predict({"input_1": x})
    assert np.array_equal(prob.reshape(ROWS, -1), ref["softmax"].reshape(ROWS, -1))
    assert np.array_equal(box.reshape(ROWS, -1), ref["conv2d_4"].reshape(ROWS, -1))
    assert out["pid"].nunique() >= 2  # the batches ran in more than one actor process


def test_pandas_batches_of_a_model_without_a_batch_axis(ray):
    path = str(model_path("hello_deepa.onnx"))  # [1,25,96]: row by row
    rows = np.random.default_rng(1).random((2000, 25 * 96), dtype=np.float32)
    ds = ray.data.from_pandas(pd.DataFrame({"id": np.arange(2000), "features": list(rows)}))
    out = (
        ds.map_batches(
            BatchPredictor,
            fn_constructor_kwargs=dict(
                model=path, inputs={"onnx::Flatten_0": "features"}, outputs={"39": "score"}
            ),
            compute=ray.data.ActorPoolStrategy(size=1),
            batch_size=500,
            batch_format="pandas",
        )
        .to_pandas()
        .sort_values("id")
    )
    want = BatchPredictor(path).predict({"onnx::Flatten_0": rows})["39"]
    assert np.array_equal(np.stack(out["score"].to_numpy()), want)
