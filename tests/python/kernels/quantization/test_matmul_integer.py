"""MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv on shapes and zero points the
backend data leaves out (per-row/per-column/per-channel), and their errors. Outputs must
match exactly.

The oracle is an exact reference in numpy (int64 accumulation, then the requantization the
ONNX spec and onnx.reference define: the scale product in float32, the product with the
accumulator in float64, y_zero_point added, rounded half to even, saturated). ONNX Runtime
is no oracle here: its AVX2 u8 x s8 kernel adds pairs of products in int16 and saturates
when weights use the full int8 range, so its answer depends on the CPU (it matches on
AVX-512 VNNI machines and is off by up to 51 on AVX2-only ones)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I8, I32, U8, F
from _quantized import light, model, requantize, run_in_child

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper


def test_matmul_integer_per_row_zero_point_and_batch():
    rng = np.random.default_rng(16)
    a = rng.integers(0, 256, (2, 5, 7), dtype=np.uint8)
    b = rng.integers(0, 256, (7, 3), dtype=np.uint8)
    feeds = {"a": a, "b": b, "az": np.array(12, np.uint8), "bz": np.array(200, np.uint8)}
    data = model("MatMulInteger", [("a", U8), ("b", U8), ("az", U8), ("bz", U8)], I32, opset=10)
    want = (a.astype(np.int64) - 12) @ (b.astype(np.int64) - 200)
    np.testing.assert_array_equal(light(data, feeds), want)


@pytest.mark.parametrize("qtype, np_type", [(U8, np.uint8), (I8, np.int8)])
def test_qlinear_matmul_matches_exact_reference(qtype, np_type):
    rng = np.random.default_rng(18)
    info = np.iinfo(np_type)
    a = rng.integers(info.min, info.max + 1, (6, 9)).astype(np_type)
    b = rng.integers(info.min, info.max + 1, (9, 4)).astype(np_type)
    feeds = {
        "a": a,
        "as": np.array(0.02, np.float32),
        "az": np.array(3, np_type),
        "b": b,
        "bs": np.array(0.03, np.float32),
        "bz": np.array(-2 if qtype == I8 else 7, np_type),
        "ys": np.array(0.5, np.float32),
        "yz": np.array(5, np_type),
    }
    inputs = [
        ("a", qtype),
        ("as", F),
        ("az", qtype),
        ("b", qtype),
        ("bs", F),
        ("bz", qtype),
        ("ys", F),
        ("yz", qtype),
    ]
    acc = (a.astype(np.int64) - feeds["az"]) @ (b.astype(np.int64) - feeds["bz"])
    scale = feeds["as"] * feeds["bs"] / feeds["ys"]  # float32, as the spec computes it
    want = requantize(acc, scale, feeds["yz"], np_type)
    got = light(model("QLinearMatMul", inputs, qtype, opset=10), feeds)
    np.testing.assert_array_equal(got, want)
    # Full-range operands: the case that saturates in int16 pair sums on some CPUs.
    assert np.abs(acc).max() > 32767


@pytest.mark.parametrize("threads", [1, 2])
def test_qlinear_matmul_per_row_scales_requantized_by_threads(threads):
    # The requantization's rows split between the threads, each part computing its rows'
    # scales (a_scale per row here): exact against the spec's arithmetic at 1 and 2 threads.
    rng = np.random.default_rng(9)
    m, k, n = 128, 64, 300
    feeds = {
        "a": rng.integers(0, 256, (m, k)).astype(np.uint8),
        "as": (rng.random(m) * 0.05 + 0.01).astype(np.float32),
        "az": np.array(3, np.uint8),
        "b": rng.integers(-128, 128, (k, n)).astype(np.int8),
        "bs": np.array(0.03, np.float32),
        "bz": np.array(-2, np.int8),
        "ys": np.array(0.7, np.float32),
        "yz": np.array(5, np.uint8),
    }
    inputs = [("a", U8), ("as", F), ("az", U8), ("b", I8), ("bs", F), ("bz", I8), ("ys", F)]
    data = model("QLinearMatMul", inputs + [("yz", U8)], U8, opset=10)
    got = onnx_light.RuntimeSession(data, intra_op_threads=threads).run(None, feeds)[0]
    acc = (feeds["a"].astype(np.int64) - 3) @ (feeds["b"].astype(np.int64) + 2)
    scale = (feeds["as"][:, None] * feeds["bs"]) / feeds["ys"]  # float32, per row
    np.testing.assert_array_equal(got, requantize(acc, scale, 5, np.uint8))


def test_matmul_integer_errors():
    a = np.ones((2, 3), np.uint8)
    with pytest.raises(ValueError, match="do not align"):
        onnx_light.RuntimeSession(
            model("MatMulInteger", [("a", U8), ("b", U8)], I32, opset=10)
        ).run(None, {"a": a, "b": np.ones((2, 3), np.uint8)})
    with pytest.raises(ValueError, match="zero points must be scalars"):
        onnx_light.RuntimeSession(
            model("MatMulInteger", [("a", U8), ("b", U8), ("az", U8)], I32, opset=10)
        ).run(None, {"a": a, "b": np.ones((3, 2), np.uint8), "az": np.ones(5, np.uint8)})


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "m,k,n,a_type,b_type,per_column",
    [
        (64, 512, 1024, np.uint8, np.int8, False),  # a dynamically quantized layer
        (13, 37, 45, np.uint8, np.uint8, True),  # odd k, partial tiles, per-column zb
        (9, 1, 70, np.int8, np.int8, False),  # k = 1
        (3, 1024, 33, np.int8, np.uint8, True),  # long k at the extremes
        (20, 300, 96, np.uint8, np.int8, True),
        (1, 257, 130, np.uint8, np.int8, True),  # a decode step: one row, odd k
        (5, 64, 40, np.int8, np.uint8, False),  # a row tile and one row left
    ],
)
def test_matmul_integer_exact_at_the_extremes(m, k, n, a_type, b_type, per_column, threads):
    # The int16 kernel sums pairs of products in int32 (vpmaddwd): exact for every 8-bit
    # value and zero point, including |a - za| = |b - zb| = 255 everywhere (the worst
    # case for a saturating kernel). B is a constant: packed once (int8 pairs widened in
    # registers, or VNNI quads), the zero points applied after the sums. Against numpy in
    # int64.
    rng = np.random.default_rng(m * n + k)
    ia, ib = np.iinfo(a_type), np.iinfo(b_type)
    a = rng.integers(ia.min, ia.max + 1, (m, k)).astype(a_type)
    b = rng.integers(ib.min, ib.max + 1, (k, n)).astype(b_type)
    a[0, :] = ia.max  # extremes against the opposite zero point
    b[:, 0] = ib.min
    za = np.array(ia.min, a_type)
    zb = (
        rng.integers(ib.min, ib.max + 1, n).astype(b_type)
        if per_column
        else np.array(ib.max, b_type)
    )
    zb_full = np.broadcast_to(zb, (n,)).copy()
    zb_full[0] = ib.max
    if not per_column:
        zb_full[:] = ib.max
    inits = [
        numpy_helper.from_array(b, "b"),
        numpy_helper.from_array(za, "za"),
        numpy_helper.from_array(zb_full if per_column else zb, "zb"),
    ]
    node = helper.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"])
    elem = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8}
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("a", elem[a_type], None)],
        [helper.make_tensor_value_info("y", TensorProto.INT32, None)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"a": a})[0]
    want = (a.astype(np.int64) - int(za)) @ (b.astype(np.int64) - zb_full.astype(np.int64))
    np.testing.assert_array_equal(got, want)


# u8 x s8 products (dynamically quantized layers): on AVX-512 VNNI CPUs the byte kernel, on
# CPUs with AMX its tiles from 8 rows (blocks of 32 rows, the one holding the last row
# copied; k in steps of 64 against panels zero-padded to whole tiles; 32-column panels).
# Shapes at those edges: 8 and 31-33 rows, k = 5 (not whole quads), 100 and 130 (not
# whole tiles), n = 7, 33, 70 (partial panels).
TILE_SHAPES = [(8, 64, 32), (31, 100, 33), (32, 768, 64), (33, 5, 70), (70, 130, 7), (128, 768, 96)]


@pytest.mark.parametrize("m,k,n", TILE_SHAPES)
@pytest.mark.parametrize("b_const", [True, False])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("b_type", [np.int8, np.uint8])
def test_matmul_integer_u8s8_tiles_exact(m, k, n, b_const, threads, b_type):
    """Against numpy in int64, every value at the extremes somewhere: a per-row a zero
    point, per-column b zero points, B a constant (packed once) or a graph input (packed
    per run); B int8, or uint8 (a constant one packed as int8 B - 128 with its zero points
    moved, on VNNI CPUs)."""
    rng = np.random.default_rng(m * 1000 + k + n)
    info = np.iinfo(b_type)
    a = rng.integers(0, 256, (m, k)).astype(np.uint8)
    b = rng.integers(info.min, info.max + 1, (k, n)).astype(b_type)
    a[0, :] = 255
    b[:, 0] = info.min
    b[:, -1] = info.max
    za = rng.integers(0, 256, m).astype(np.uint8)
    zb = rng.integers(info.min, info.max + 1, n).astype(b_type)
    inits = [numpy_helper.from_array(za, "za"), numpy_helper.from_array(zb, "zb")]
    inputs = [helper.make_tensor_value_info("a", TensorProto.UINT8, None)]
    feeds = {"a": a}
    if b_const:
        inits.append(numpy_helper.from_array(b, "b"))
    else:
        elem = TensorProto.INT8 if b_type == np.int8 else TensorProto.UINT8
        inputs.append(helper.make_tensor_value_info("b", elem, None))
        feeds["b"] = b
    node = helper.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"])
    graph = helper.make_graph(
        [node], "g", inputs, [helper.make_tensor_value_info("y", TensorProto.INT32, None)], inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, feeds)[0]
    want = (a.astype(np.int64) - za.astype(np.int64)[:, None]) @ (
        b.astype(np.int64) - zb.astype(np.int64)
    )
    np.testing.assert_array_equal(got, want)


def test_matmul_integer_u8s8_tiles_exact_without_amx():
    """The same products with AMX turned off (ONNX_LIGHT_NO_AMX=1, read once per process:
    a child pytest), so an AMX CPU checks its vector kernels too."""
    out = run_in_child(__file__, "tiles_exact[", ONNX_LIGHT_NO_AMX="1")
    assert "48 passed" in out, out[-500:]
