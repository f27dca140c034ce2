"""Cast from bool and integers up to 32 bits to float and double, and between float and
double, converts directly (one rounding): exactly numpy's astype, including integers past
2^24 that float cannot hold, negative values, NaN and infinities."""

from __future__ import annotations

import ml_dtypes as md
import numpy as np
import pytest
from _graphs import F, I, run_one
from _narrow import FLOATS, INTS, all_codes, same_codes
from onnx import numpy_helper as onnx_numpy_helper  # the ONNX reference: an oracle only

import onnx_light
from onnx_light.onnx import TensorProto, helper

ELEM = {
    np.bool_: TensorProto.BOOL,
    np.int8: TensorProto.INT8,
    np.uint16: TensorProto.UINT16,
    np.int32: TensorProto.INT32,
    np.int64: TensorProto.INT64,
    np.uint32: TensorProto.UINT32,
    np.float32: TensorProto.FLOAT,
    np.float64: TensorProto.DOUBLE,
    np.float16: TensorProto.FLOAT16,
}


def cast(x, to, threads=1):
    node = helper.make_node("Cast", ["x"], ["y"], to=ELEM[to])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", ELEM[x.dtype.type], None)],
        [helper.make_tensor_value_info("y", ELEM[to], None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]


@pytest.mark.parametrize("src", [np.bool_, np.int8, np.uint16, np.int32, np.uint32])
@pytest.mark.parametrize("dst", [np.float32, np.float64])
def test_small_integers_to_floats(src, dst):
    rng = np.random.default_rng(1)
    if src is np.bool_:
        x = rng.integers(0, 2, 1000).astype(np.bool_)
    else:
        info = np.iinfo(src)
        x = rng.integers(info.min, info.max, 1000, dtype=np.int64, endpoint=True).astype(src)
        if src in (np.int32, np.uint32):
            x[:4] = [2**24 + 1, 2**24 + 3, 2**31 - 1 if src is np.int32 else 2**32 - 1, 0]
    np.testing.assert_array_equal(cast(x, dst), x.astype(dst))


def test_float_and_double_both_ways():
    x = np.array([1e-40, 1e300, -1e300, np.nan, np.inf, -0.0, 1 / 3, 2.5e-8], np.float64)
    with np.errstate(over="ignore"):  # 1e300 overflows to inf in float, as intended
        want = x.astype(np.float32)
    np.testing.assert_array_equal(cast(x, np.float32), want)
    y = want
    np.testing.assert_array_equal(cast(y, np.float64), y.astype(np.float64))


@pytest.mark.parametrize(
    "src,dst", [(np.bool_, np.float32), (np.int32, np.float64), (np.float64, np.float32)]
)
def test_large_casts_split_across_threads(src, dst):
    # 300k elements: chunks on two threads; the same values as on one.
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(300_001) * 1000).astype(src)
    want = x.astype(dst)
    np.testing.assert_array_equal(cast(x, dst, threads=2), want)
    np.testing.assert_array_equal(cast(x, dst), want)


@pytest.mark.parametrize("threads", [1, 2])
def test_int64_to_float_rounds_once_at_every_magnitude(threads):
    # The vector path goes through double where every lane is below 2^53; a lane above
    # sends its vector lane by lane (int64 -> double -> float would round twice there).
    # Values near 2^24, ties at 2^53 + 2^29 (exact halfway between floats), int64's ends,
    # and random values of every width, in runs of odd lengths (vectors and tails).
    rng = np.random.default_rng(7)
    special = [0, 1, -1, 2**24 + 1, -(2**24) - 3, 2**53 - 1, 2**53 + 1, -(2**53) - 1]
    special += [
        2**53 + 2**29,
        2**53 + 2**29 + 1,
        2**53 + 3 * 2**29,
        2**62 + 2**38 + 1,
        2**63 - 1,
        -(2**63),
    ]
    widths = rng.integers(1, 64, 300_000)
    rand = rng.integers(-(2**62), 2**62, 300_000) >> (64 - widths - 1).clip(0, 63)
    for x in (np.array(special, np.int64), rand.astype(np.int64)):
        np.testing.assert_array_equal(cast(x, np.float32, threads), x.astype(np.float32))


@pytest.mark.parametrize("threads", [1, 2])
def test_float_to_int64_of_int32_range_values(threads):
    # Whole vectors of values inside +-2^31 take the int32 conversion and a widening (the
    # fast path); a vector with one value outside (here -2^31 exactly, 2^40, NaN) takes the
    # saturating one. Toward zero either way; every length up to 3 vectors of 16 (tails).
    rng = np.random.default_rng(9)
    edge = [2147483520.0, -2147483520.0, -0.75, 0.75, -1.5, 1e-30, -0.0, 65535.9]
    for n in range(0, 49):
        x = (rng.standard_normal(n) * 1e6).astype(np.float32)
        x[: min(n, len(edge))] = edge[: min(n, len(edge))]
        np.testing.assert_array_equal(cast(x, np.int64, threads), np.trunc(x).astype(np.int64))
    x = (rng.standard_normal(4099) * 3e8).astype(np.float32)
    x[100], x[2000], x[3001] = -(2.0**31), 2.0**40, np.nan
    want = np.trunc(np.nan_to_num(x, nan=0.0).astype(np.float64)).astype(np.int64)
    np.testing.assert_array_equal(cast(x, np.int64, threads), want)


@pytest.mark.parametrize("threads", [1, 2])
def test_float_to_int64_truncates_and_saturates(threads):
    # Toward zero; beyond int64 (inf included) the end of the range; NaN 0 (Cast's rule;
    # ONNX leaves these undefined). Random values up to 2^70 in magnitude.
    edge = [0.5, -0.5, -1.75, 2.0**24 + 2, 2.0**62, -(2.0**63), 2.0**63, -(2.0**64), 1e30]
    edge += [np.inf, -np.inf, np.nan, -0.0, 9.2233715e18]
    x = np.array(edge, np.float32)
    got = cast(x, np.int64, threads)
    imax, imin = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    want = [0, 0, -1, 2**24 + 2, 2**62, imin, imax, imin, imax, imax, imin, 0, 0]
    want.append(int(np.float32(9.2233715e18)))
    np.testing.assert_array_equal(got, np.array(want, np.int64))
    rng = np.random.default_rng(8)
    y = (rng.standard_normal(200_003) * 2.0 ** rng.integers(0, 70, 200_003)).astype(np.float32)
    inside = np.abs(y.astype(np.float64)) < 2.0**63
    expect = np.where(y > 0, imax, imin).astype(np.int64)
    expect[inside] = np.trunc(y[inside].astype(np.float64)).astype(np.int64)
    np.testing.assert_array_equal(cast(y, np.int64, threads), expect)


def cast_session(src, dst, opset=25, **attrs):
    node = helper.make_node("Cast", ["x"], ["y"], to=dst, **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", src, None)],
        [helper.make_tensor_value_info("y", dst, None)],
    )
    return onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    )


def probe_values(dtype):
    """Every finite value of the type, the midpoints between neighbours (ties), values just
    either side of them, beyond the range, specials and random float32s."""
    vals = np.unique(all_codes(dtype).astype(np.float64))
    vals = vals[np.isfinite(vals)]
    mids = (vals[1:] + vals[:-1]) / 2
    rng = np.random.default_rng(0)
    top = float(vals.max())
    rand = rng.uniform(-1.5 * top, 1.5 * top, 4000)
    tiny = rng.uniform(-2 * float(np.min(np.abs(vals[vals != 0]))), 0, 500)
    x = np.concatenate(
        [vals, mids, np.nextafter(mids, 0), np.nextafter(mids, np.inf), rand, tiny, -rand]
    ).astype(np.float32)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e30, -1e30], np.float32)
    return np.concatenate([x, specials])


def test_bitcast_float_to_int32_and_width_mismatch():
    x = np.array([1.0, -0.0, np.inf], np.float32)
    (y,) = run_one(
        "BitCast",
        [("x", F)],
        {"x": x},
        outputs=[("y", TensorProto.INT32)],
        opset=26,
        to=TensorProto.INT32,
    )
    np.testing.assert_array_equal(y, x.view(np.int32))
    with pytest.raises(ValueError, match="equal bit widths"):
        run_one("BitCast", [("x", F)], {"x": x}, outputs=[("y", I)], opset=26, to=I)


@pytest.mark.parametrize("onnx_type", list(FLOATS) + list(INTS))
def test_every_code_decodes_like_ml_dtypes(onnx_type):
    dtype = FLOATS.get(onnx_type) or INTS[onnx_type]
    codes = all_codes(dtype)
    got = cast_session(onnx_type, F).run(None, {"x": codes})[0]
    want = codes.astype(np.float32)
    np.testing.assert_array_equal(got, want)  # NaN positions must match too


@pytest.mark.parametrize("onnx_type", list(FLOATS))
@pytest.mark.parametrize("saturate", [1, 0])
def test_float32_encodes_like_ml_dtypes(onnx_type, saturate):
    dtype = FLOATS[onnx_type]
    x = probe_values(dtype)
    got = cast_session(F, onnx_type, saturate=saturate).run(None, {"x": x})[0]
    assert got.dtype == dtype
    if saturate and onnx_type != TensorProto.FLOAT4E2M1:
        info = md.finfo(dtype)
        want = np.clip(x, float(info.min), float(info.max)).astype(dtype)
    else:
        want = x.astype(dtype)
    ok = same_codes(got, want)
    assert ok.all(), [(x[i], got[i], want[i]) for i in np.flatnonzero(~ok)[:5]]


@pytest.mark.parametrize("onnx_type", list(INTS))
def test_float32_to_packed_int_truncates_and_wraps_like_ml_dtypes(onnx_type):
    dtype = INTS[onnx_type]
    x = np.array([0, 1.5, 2.5, -1.7, 7.9, 8, 9.5, -9.5, 20, -20, 1e10], np.float32)
    x = np.concatenate([x, np.random.default_rng(1).uniform(-40, 40, 999).astype(np.float32)])
    got = cast_session(F, onnx_type).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got.astype(np.int32), x.astype(dtype).astype(np.int32))
    # NaN and infinities become 0.
    got = cast_session(F, onnx_type).run(None, {"x": np.array([np.nan, np.inf], np.float32)})[0]
    np.testing.assert_array_equal(got.astype(np.int32), [0, 0])


@pytest.mark.parametrize("mode", ["up", "down", "nearest"])
@pytest.mark.parametrize("saturate", [1, 0])
def test_e8m0_rounding_matches_onnx_reference(mode, saturate):
    rng = np.random.default_rng(2)
    x = np.concatenate(
        [
            np.ldexp(1.0, np.arange(-140, 128)).astype(np.float32),
            rng.uniform(0, 8, 500).astype(np.float32),
            np.ldexp(rng.uniform(1, 2, 500), rng.integers(-130, 128, 500)).astype(np.float32),
            np.array([1.5, 1.25, 1.75, 3.0, 0.0, np.inf, np.nan, -2.0, 3.4e38], np.float32),
        ]
    )
    got = cast_session(F, TensorProto.FLOAT8E8M0, saturate=saturate, round_mode=mode).run(
        None, {"x": x}
    )[0]
    want = onnx_numpy_helper.to_float8e8m0(x, bool(saturate), mode)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_bad_round_mode_is_an_error_and_the_process_stays_usable():
    s = cast_session(F, TensorProto.FLOAT8E8M0, round_mode="sideways")
    with pytest.raises(ValueError, match="round_mode 'sideways'"):
        s.run(None, {"x": np.ones(3, np.float32)})
    ok = cast_session(F, TensorProto.FLOAT8E8M0).run(None, {"x": np.ones(3, np.float32)})[0]
    np.testing.assert_array_equal(ok.astype(np.float32), [1, 1, 1])


def test_packed_int4_to_int8_sign_extends():
    x = np.array([-8, -1, 0, 7, 3], md.int4)
    got = cast_session(TensorProto.INT4, TensorProto.INT8).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, [-8, -1, 0, 7, 3])


INTEGERS = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
]


def integer_values(src, n, rng):
    """Every type's extremes and its neighbours of 0 and of each narrower type's range
    (where a narrowing cast wraps), then random values: the bits of every width."""
    if src is np.bool_:
        return rng.integers(0, 2, n).astype(np.bool_)
    info = np.iinfo(src)
    edges = [info.min, info.max, 0, 1]
    for bits in (8, 16, 32):
        for v in (2 ** (bits - 1), 2**bits):
            edges += [v - 1, v, v + 1, -v - 1, -v, -v + 1]
    edges = [e for e in edges if info.min <= e <= info.max]
    x = rng.integers(info.min, info.max, n, dtype=src, endpoint=True)
    x[: len(edges)] = np.array(edges, dtype=object).astype(src)
    return x


@pytest.mark.parametrize("src", INTEGERS)
@pytest.mark.parametrize("dst", INTEGERS)
def test_every_pair_of_integer_types_matches_numpy(src, dst):
    # A cast between integers runs on the types that give the same bits (cast.cc CastAs):
    # wrapping narrowings, sign- and zero-extending widenings, same-width copies, != 0 to
    # bool: numpy's astype for each of the 81 pairs, on one thread and split on two.
    rng = np.random.default_rng(11)
    elem = {t: helper.np_dtype_to_tensor_dtype(np.dtype(t)) for t in (src, dst)}
    ELEM.setdefault(src, elem[src])
    ELEM.setdefault(dst, elem[dst])
    for n, threads in ((1000, 1), (300_001, 2)):
        x = integer_values(src, n, rng)
        y = cast(x, dst, threads)
        assert y.dtype == np.dtype(dst)
        np.testing.assert_array_equal(y, x.astype(dst), err_msg=f"{src.__name__} -> {dst.__name__}")


@pytest.mark.parametrize("threads", [1, 2])
def test_float32_to_float16_matches_numpy_bit_for_bit(threads):
    # F16C where the CPU has it, the core's conversion elsewhere and for vectors holding a
    # NaN: numpy's astype either way (round to nearest-even, ties, overflow to inf,
    # subnormals, -0); NaN stays NaN with its sign.
    rng = np.random.default_rng(21)
    special = np.array(
        [0.0, -0.0, 65504.0, 65519.99, 65520.0, -65520.0, 1e-8, -6e-8, 5.96e-8, 2.98e-8]
        + [6.1e-5, 6.097e-5, 1.0009765625, 1.00048828125, 1.00146484375, np.inf, -np.inf],
        np.float32,
    )
    x = np.concatenate(
        [
            special,
            rng.standard_normal(300_001).astype(np.float32) * 10.0 ** rng.integers(-9, 6, 300_001),
        ]
    ).astype(np.float32)
    x[1000:1003] = [np.nan, -np.nan, np.nan]  # NaN lanes inside one vector
    with np.errstate(over="ignore"):
        want = x.astype(np.float16)
    got = cast(x, np.float16, threads)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(np.signbit(got[nan]), np.signbit(want[nan]))
    np.testing.assert_array_equal(got[~nan].view(np.uint16), want[~nan].view(np.uint16))


def test_every_float16_to_float32_matches_numpy():
    codes = np.arange(65536, dtype=np.uint16).view(np.float16)
    x = np.concatenate([codes, codes[::-1]])  # NaN codes in whole vectors and mixed ones
    got, want = cast(x, np.float32), x.astype(np.float32)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))
