"""onnx_light.batch on a real Spark (``local[2]``: two executor threads, whose Python workers
are forked from Spark's Python daemon): ``predict_batch_udf`` with make_predict_fn over
50,000 rows of MTCNN's P-Net (a real model fetched by the set-up) and 50,000 rows of four
double columns into models/default.onnx, and ``mapInPandas`` with a model that runs row by
row. Outputs equal one run of the whole array in this process (P-Net, bit for bit) or a
numpy reference (default.onnx, float32 tolerance). PySpark and a Java runtime are test
dependencies (requirements/engines.txt, Debian's default-jre-headless): without them these
tests fail, saying what to install."""

from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pandas as pd
import pytest
from _models import model_path
from test_batch_predictor import DEFAULT, default_ref

from onnx_light.batch import BatchPredictor, spark_predict_udf

ROWS = 50_000
# PySpark 4.3 warns that it does not fully support pandas 3 (the test venv's): what these
# tests use works, and is checked value by value
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def spark():
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        pytest.fail("PySpark is not installed: run scripts/setup.sh (requirements/engines.txt)")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.fail(
            "PySpark needs a Java runtime: apt-get install default-jre-headless "
            "(scripts/setup.sh does)"
        )
    # Spark's Python workers: this interpreter, seeing the checkout's package
    os.environ["PYSPARK_PYTHON"] = sys.executable
    paths = [os.path.join(REPO, "python")] + os.environ.get("PYTHONPATH", "").split(":")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("onnx-light-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_predict_batch_udf_50000_images_two_outputs(spark):
    from pyspark.sql.types import ArrayType, FloatType, StructField, StructType

    pnet = str(model_path("mtcnn_pnet.onnx"))
    x = np.random.default_rng(0).random((ROWS, 12, 12, 3), dtype=np.float32)
    frame = pd.DataFrame({"id": np.arange(ROWS), "image": list(x.reshape(ROWS, -1))})
    df = spark.createDataFrame(frame).repartition(4)
    udf = spark_predict_udf(
        pnet,
        outputs={"softmax": "prob", "conv2d_4": "box"},
        return_type=StructType(
            [
                StructField("prob", ArrayType(FloatType())),
                StructField("box", ArrayType(FloatType())),
            ]
        ),
        batch_size=1000,
        input_tensor_shapes=[[12, 12, 3]],
    )
    out = df.withColumn("out", udf("image")).select("id", "out.prob", "out.box").toPandas()
    ids = out["id"].to_numpy()
    assert len(ids) == ROWS and np.array_equal(np.sort(ids), np.arange(ROWS))
    order = np.argsort(ids)
    ref = BatchPredictor(pnet).predict({"input_1": x})
    prob = np.stack(out["prob"].to_numpy()[order])
    box = np.stack(out["box"].to_numpy()[order])
    assert np.array_equal(prob, ref["softmax"].reshape(ROWS, 2))
    assert np.array_equal(box, ref["conv2d_4"].reshape(ROWS, 4))


def test_predict_batch_udf_50000_rows_of_scalar_double_columns(spark):
    from pyspark.sql.functions import array
    from pyspark.sql.types import ArrayType, FloatType

    x = np.random.default_rng(1).standard_normal((ROWS, 4))
    frame = pd.DataFrame({"id": np.arange(ROWS), **{c: x[:, i] for i, c in enumerate("abcd")}})
    df = spark.createDataFrame(frame)  # DoubleType columns; the model takes float32 [N, 4]
    udf = spark_predict_udf(DEFAULT, return_type=ArrayType(FloatType()), batch_size=4096)
    features = array("a", "b", "c", "d")  # Spark's way to make one [N, 4] input of columns
    out = df.select("id", udf(features).alias("y")).toPandas().sort_values("id")
    got = np.stack(out["y"].to_numpy())
    want = default_ref(x.astype(np.float32))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * max(1.0, float(np.abs(want).max())))


def test_map_in_pandas_with_a_model_that_runs_row_by_row(spark):
    path = str(model_path("hello_deepa.onnx"))
    rows = np.random.default_rng(2).random((1000, 25 * 96), dtype=np.float32)
    df = spark.createDataFrame(pd.DataFrame({"id": np.arange(1000), "features": list(rows)}))
    predictor = BatchPredictor(
        path, inputs={"onnx::Flatten_0": "features"}, outputs={"39": "score"}
    )

    def predict(frames):  # the ids travel beside the scores; the features stay behind
        for frame in predictor.map_in_pandas(frames):
            yield frame[["id", "score"]]

    out = df.mapInPandas(predict, "id long, score array<float>").toPandas().sort_values("id")
    want = BatchPredictor(path).predict({"onnx::Flatten_0": rows})["39"]
    assert len(out) == 1000
    assert np.array_equal(np.stack(out["score"].to_numpy()), want)
