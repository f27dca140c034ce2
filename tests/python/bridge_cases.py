"""One table of numerical cases for onnx-light's ORT plugin (onnx_light::LeakyRelu and
onnx_light_cpu::Log in four types), run unchanged by two runtimes:

- real ONNX Runtime: tests/python/test_plugin_under_real_ort.py;
- onnx-light's standalone host: tests/python/bridge_ops_ort_called_by_light/
  test_plugin_under_host.py (which must not import onnxruntime, so this module doesn't).

Tolerances, against float64 (long double for float64 Log) references:
- LeakyRelu: exact in every type (float16/bfloat16: alpha*x in float32, rounded once);
- Log: at most 1 ULP of the element type (float16/bfloat16: the float32 result rounded once).
NaN must stay NaN; infinities and signed zeros must match.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import ml_dtypes
import numpy as np

from onnx_light.onnx import helper

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build"))
PLUGIN = BUILD / "lib" / "libonnx_light_ort_bridge_ops_light_called_by_ort.so"

ALPHA = 0.2
OPS = {"LeakyRelu": "onnx_light", "Log": "onnx_light_cpu"}
TYPES = {
    "float16": (10, np.dtype(np.float16)),
    "bfloat16": (16, np.dtype(ml_dtypes.bfloat16)),
    "float32": (1, np.dtype(np.float32)),
    "float64": (11, np.dtype(np.float64)),
}
TOLERANCE_ULP = {"LeakyRelu": 0.0, "Log": 1.0}


def model(op: str, type_name: str, rank: int | None = None, alpha: float | None = ALPHA):
    """A one-node model; rank None leaves the shape unknown, otherwise [N] * rank."""
    elem = TYPES[type_name][0]
    attrs = {"alpha": alpha} if (op == "LeakyRelu" and alpha is not None) else {}
    node = helper.make_node(op, ["x"], ["y"], domain=OPS[op], name="node", **attrs)
    shape = None if rank is None else [f"d{i}" for i in range(rank)]
    graph = helper.make_graph(
        [node],
        "case",
        [helper.make_tensor_value_info("x", elem, shape)],
        [helper.make_tensor_value_info("y", elem, shape)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(OPS[op], 1)], ir_version=9)


def wrong_alpha_model():
    """LeakyRelu whose alpha is an INT: kernel creation must fail with a status."""
    m = model("LeakyRelu", "float32", alpha=None)
    m.graph.node[0].attribute.append(helper.make_attribute("alpha", 3))
    return m


def _bits(dtype: np.dtype):
    return np.uint16 if dtype.itemsize == 2 else (np.uint32 if dtype.itemsize == 4 else np.uint64)


def _next_up(values: np.ndarray) -> np.ndarray:
    """The next representable value toward +inf, in the array's own type."""
    bits = values.view(_bits(values.dtype)).astype(np.int64)
    neg = np.signbit(values.astype(np.float64))
    step = np.where(neg, -1, 1)
    zero = values.astype(np.float64) == 0
    bits = np.where(zero, 1, bits + step)
    return bits.astype(_bits(values.dtype)).view(values.dtype)


def reference(op: str, x: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """float64 (or long double) reference values, not rounded to the type."""
    dtype = x.dtype
    if op == "LeakyRelu":
        if dtype == np.float64:
            return np.where(x < 0, x * np.float64(np.float32(alpha)), x)
        if dtype == np.float32:
            return np.where(x < 0, x * np.float32(alpha), x).astype(np.float64)
        x32 = x.astype(np.float32)
        return np.where(x32 < 0, x32 * np.float32(alpha), x32).astype(dtype).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if dtype == np.float64:
            return np.log(x.astype(np.longdouble))
        return np.log(x.astype(np.float64))


def max_ulp_error(op: str, x: np.ndarray, y: np.ndarray, alpha: float = ALPHA) -> float:
    """Checks NaN/inf/sign agreement and returns the largest error in ULP of x's type."""
    assert y.dtype == x.dtype and y.shape == x.shape, (y.dtype, y.shape, x.dtype, x.shape)
    ref = reference(op, x, alpha)
    y64 = y.astype(np.float64)
    ref64 = ref.astype(np.float64)
    nan = np.isnan(ref64)
    np.testing.assert_array_equal(np.isnan(y64), nan, err_msg=f"{op}: NaN positions")
    inf = np.isinf(ref64)
    np.testing.assert_array_equal(y64[inf], ref64[inf], err_msg=f"{op}: infinities")
    zero = ref64 == 0
    np.testing.assert_array_equal(np.signbit(y64[zero]), np.signbit(ref64[zero]), err_msg="zeros")
    finite = ~nan & ~inf
    if not finite.any():
        return 0.0
    rounded = ref[finite].astype(x.dtype)
    ulp = np.abs(_next_up(np.abs(rounded)).astype(np.float64) - np.abs(rounded).astype(np.float64))
    err = np.abs(y64[finite].astype(np.longdouble) - ref[finite].astype(np.longdouble)) / ulp
    return float(err.max())


@dataclass
class Case:
    name: str
    rank: int | None  # the model's declared rank (None: unknown)
    inputs: Callable[[np.dtype, str], list[np.ndarray]]


def _tails(dtype, op):
    rng = np.random.default_rng(7)
    out = []
    for n in list(range(68)) + [1000, 4099, 65537]:
        v = rng.standard_normal(n) * 4
        if op == "Log":
            v = np.abs(v) + 1e-3
        out.append(v.astype(dtype))
    return out


def _changing_shapes(dtype, op):
    rng = np.random.default_rng(8)
    shapes = [(3,), (2, 5), (1, 1, 7), (0,), (), (4, 0, 2), (33, 3)]
    out = []
    for s in shapes:
        v = rng.standard_normal(s) * 3
        out.append(np.asarray(np.abs(v) + 0.5 if op == "Log" else v, dtype=dtype))
    return out


def _specials(dtype, _op):
    info = ml_dtypes.finfo(dtype)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, float(info.max), -float(info.max)]
    return [np.array(values).astype(dtype)]


def _subnormals(dtype, _op):
    info = ml_dtypes.finfo(dtype)
    tiny = float(info.smallest_subnormal)
    values = [tiny, 2 * tiny, 3 * tiny, float(info.tiny) / 2, float(info.tiny), -tiny]
    return [np.array(values).astype(dtype)]


def _near_one(dtype, _op):
    one = np.ones(12, dtype)
    up = [one]
    down = [one]
    for _ in range(6):
        up.append(_next_up(up[-1]))
        down.append((-_next_up(-down[-1])).astype(dtype))
    return [np.concatenate(up + down)]


def _scalars_and_empty(dtype, op):
    v = 2.5 if op == "Log" else -2.5
    return [np.array(v, dtype), np.zeros((0,), dtype), np.zeros((2, 0, 3), dtype)]


def _read_only(dtype, op):
    x = (
        np.linspace(0.25, 4, 17).astype(dtype)
        if op == "Log"
        else np.linspace(-4, 4, 17).astype(dtype)
    )
    x.flags.writeable = False
    return [x, x[::2]]  # read-only, and read-only non-contiguous


CASES = [
    Case("tails", None, _tails),
    Case("changing_shapes", None, _changing_shapes),
    Case("scalars_and_empty", None, _scalars_and_empty),
    Case("near_one", 1, _near_one),
    Case("subnormals", 1, _subnormals),
    Case("non_finite", 1, _specials),
    Case("read_only", 1, _read_only),
]


def run_table(make_runner, record: dict) -> None:
    """Runs every case through `make_runner(model) -> (run(x) -> y, close())`, checking
    results and the recovery rule, and records the largest error per (op, type)."""
    for op in OPS:
        for type_name, (_, dtype) in TYPES.items():
            worst = 0.0
            for case in CASES:
                run, close = make_runner(model(op, type_name, case.rank))
                try:
                    for x in case.inputs(dtype, op):
                        before = x.copy()
                        y = run(x)
                        assert x.tobytes() == before.tobytes(), "the input was written"
                        err = max_ulp_error(op, x, y)
                        assert err <= TOLERANCE_ULP[op], f"{op} {type_name} {case.name}: {err} ULP"
                        worst = max(worst, err)
                finally:
                    close()
            record[(op, type_name)] = worst


def run_recovery(make_runner, type_error: tuple, rank_error: tuple) -> None:
    """After a type error and a rank error, the same session still runs correctly."""
    for op in OPS:
        for type_name, (_, dtype) in TYPES.items():
            run, close = make_runner(model(op, type_name, rank=1))
            try:
                wrong_type = np.ones(3, np.float64 if dtype != np.float64 else np.float32)
                try:
                    run(wrong_type)
                except type_error:
                    pass
                else:
                    raise AssertionError(f"{op} {type_name}: no error for a wrong type")
                try:
                    run(np.ones((2, 2), dtype))
                except rank_error:
                    pass
                else:
                    raise AssertionError(f"{op} {type_name}: no error for a wrong rank")
                x = np.array([0.5, 2.0, 3.0], dtype)
                assert max_ulp_error(op, x, run(x)) <= TOLERANCE_ULP[op]
            finally:
                close()


def default_alpha_case(make_runner) -> None:
    """LeakyRelu without `alpha` uses ONNX's default 0.01, in every type."""
    for type_name, (_, dtype) in TYPES.items():
        run, close = make_runner(model("LeakyRelu", type_name, alpha=None))
        try:
            x = np.array([-100.0, 3.0], dtype)
            assert max_ulp_error("LeakyRelu", x, run(x), alpha=0.01) == 0.0
        finally:
            close()
