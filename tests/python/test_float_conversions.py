"""onnx-light's float16/bfloat16 conversions against numpy and ml_dtypes.

Tolerance: none. Every comparison is bit-exact, except where a reference is known to
differ by design (stated at each test):
- numpy float16 uses onnx-light's NaN rule exactly, so NaNs are compared bit for bit;
- ml_dtypes bfloat16 returns the canonical NaN 0x7fc0 (with the sign) where onnx-light
  keeps the payload, so bfloat16 NaNs are compared by NaN-ness and sign;
- ml_dtypes rounds float64 to bfloat16 through float32 (double rounding), so float64 ->
  bfloat16 is checked against an exact nearest-even reference computed here instead.
"""

import ml_dtypes
import numpy as np
import pytest

from onnx_light import _core

# The references' own casts overflow to inf and meet NaNs on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in cast:RuntimeWarning")

RNG_SEED = 20261129
N_RANDOM = 10_000_000

ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def convert(bits, kind):
    return _core.convert_float_bits(np.ascontiguousarray(bits), kind)


def f16_nan(bits):
    return (bits & 0x7FFF) > 0x7C00


def bf16_nan(bits):
    return (bits & 0x7FFF) > 0x7F80


def boundary_f32_for(narrow_mant_bits, all_narrow_as_f32):
    """Every float32 pattern at or next to a rounding boundary of a narrow format.

    For each pair of adjacent finite narrow values: the exact midpoint and its float32
    neighbours; plus each narrow value and its neighbours, and the specials.
    """
    v = all_narrow_as_f32.view(np.uint32).astype(np.int64)
    finite = (v & 0x7F800000) != 0x7F800000
    v = v[finite]
    step = 1 << (23 - narrow_mant_bits)
    mids = v + step // 2  # for values with the float32 exponent, midpoint toward +|x|
    cands = np.concatenate([v - 1, v, v + 1, mids - 1, mids, mids + 1])
    specials = np.array(
        [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF, 1, 0x80000001],
        dtype=np.int64,
    )
    cands = np.concatenate([cands, specials]) & 0xFFFFFFFF
    return np.unique(cands.astype(np.uint32))


@pytest.fixture(scope="module")
def random_f32_bits():
    rng = np.random.default_rng(RNG_SEED)
    return rng.integers(0, 1 << 32, size=N_RANDOM, dtype=np.uint64).astype(np.uint32)


# --- widening: all 65,536 patterns ------------------------------------------------------


def test_float16_to_float32_all_patterns_match_numpy():
    ours = convert(ALL16, "float16->float32")
    ref = ALL16.view(np.float16).astype(np.float32).view(np.uint32)
    np.testing.assert_array_equal(ours, ref)  # NaN payloads included


def test_float16_to_float64_all_patterns_match_numpy():
    ours = convert(ALL16, "float16->float64")
    ref = ALL16.view(np.float16).astype(np.float64).view(np.uint64)
    np.testing.assert_array_equal(ours, ref)


def test_bfloat16_to_float32_and_float64_all_patterns_match_ml_dtypes():
    ref32 = ALL16.view(ml_dtypes.bfloat16).astype(np.float32)
    np.testing.assert_array_equal(convert(ALL16, "bfloat16->float32"), ref32.view(np.uint32))
    ours64 = convert(ALL16, "bfloat16->float64").view(np.float64)
    ref64 = ref32.astype(np.float64)  # float32 -> float64 is exact
    nan = np.isnan(ref64)
    np.testing.assert_array_equal(ours64[~nan], ref64[~nan])
    assert np.isnan(ours64[nan]).all()


@pytest.mark.parametrize("wide", ["float32", "float64"])
@pytest.mark.parametrize("narrow", ["float16", "bfloat16"])
def test_all_patterns_round_trip_bit_exactly(narrow, wide):
    wide_bits = convert(ALL16, f"{narrow}->{wide}")
    np.testing.assert_array_equal(convert(wide_bits, f"{wide}->{narrow}"), ALL16)


# --- float32 -> float16 ------------------------------------------------------------------


def test_float32_to_float16_boundaries_match_numpy():
    cands = boundary_f32_for(10, ALL16.view(np.float16).astype(np.float32))
    assert cands.size > 300_000
    ours = convert(cands, "float32->float16")
    ref = cands.view(np.float32).astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(ours, ref)


def test_float32_to_float16_random_patterns_match_numpy(random_f32_bits):
    ours = convert(random_f32_bits, "float32->float16")
    with np.errstate(over="ignore", invalid="ignore"):
        ref = random_f32_bits.view(np.float32).astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(ours, ref)


# --- float32 -> bfloat16 -----------------------------------------------------------------


def assert_bf16_equal_modulo_nan_payload(ours, ref):
    nan = bf16_nan(ref)
    np.testing.assert_array_equal(ours[~nan], ref[~nan])
    assert bf16_nan(ours[nan]).all()
    np.testing.assert_array_equal(ours[nan] & 0x8000, ref[nan] & 0x8000)


def test_float32_to_bfloat16_boundaries_match_ml_dtypes():
    cands = boundary_f32_for(7, ALL16.view(ml_dtypes.bfloat16).astype(np.float32))
    assert cands.size > 300_000
    ours = convert(cands, "float32->bfloat16")
    with np.errstate(invalid="ignore"):
        ref = cands.view(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)
    assert_bf16_equal_modulo_nan_payload(ours, ref)


def test_float32_to_bfloat16_random_patterns_match_ml_dtypes(random_f32_bits):
    ours = convert(random_f32_bits, "float32->bfloat16")
    with np.errstate(invalid="ignore"):
        ref = random_f32_bits.view(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)
    assert_bf16_equal_modulo_nan_payload(ours, ref)


def test_float32_nan_payload_rule():
    nans = np.array([0x7F800001, 0x7FC00000, 0xFF802000, 0x7FFFFFFF], dtype=np.uint32)
    np.testing.assert_array_equal(
        convert(nans, "float32->float16"), np.array([0x7C01, 0x7E00, 0xFC01, 0x7FFF], np.uint16)
    )
    np.testing.assert_array_equal(
        convert(nans, "float32->bfloat16"), np.array([0x7F81, 0x7FC0, 0xFF81, 0x7FFF], np.uint16)
    )


# --- float64 -> float16 / bfloat16 ---------------------------------------------------------


@pytest.fixture(scope="module")
def random_f64():
    """Doubles spread over the exponents where 16-bit rounding happens, plus the
    double-rounding traps (ties in float32 that are not ties in float64)."""
    rng = np.random.default_rng(RNG_SEED + 1)
    n = 2_000_000
    mant = rng.random(n) + 1.0
    exps = rng.integers(-140, 130, size=n)
    signs = rng.choice([-1.0, 1.0], size=n)
    x = signs * np.ldexp(mant, exps)
    # Exact ties of both narrow formats, nudged up by far less than a float32 ulp: rounding
    # through float32 would land on the tie and then round to even (down).
    traps = []
    for dtype in (np.float16, ml_dtypes.bfloat16):
        bits = ALL16[(ALL16 & 0x7FFF) < 0x7F00 if dtype is ml_dtypes.bfloat16 else ALL16 < 0x7BFF]
        lo = bits.view(dtype).astype(np.float64)
        hi = (bits + 1).view(dtype).astype(np.float64)
        step = hi - lo
        traps.append(lo + step / 2 + np.abs(step) * 2.0**-30)
    traps = np.concatenate(traps)
    return np.concatenate([x, traps, [0.0, -0.0, np.inf, -np.inf, 1e300, -1e-300]])


def test_float64_to_float16_matches_numpy(random_f64):
    ours = convert(random_f64.view(np.uint64), "float64->float16")
    with np.errstate(over="ignore"):
        ref = random_f64.astype(np.float16).view(np.uint16)
    assert (ours != random_f64.astype(np.float32).astype(np.float16).view(np.uint16)).sum() > 1000
    np.testing.assert_array_equal(ours, ref)


def exact_bf16_reference(x):
    """Nearest-even bfloat16 of finite float64 values, computed without double rounding.

    ml_dtypes' (possibly double-rounded) answer is within one step of the exact one, so
    the exact answer is the nearest of it and its two neighbours; float64 differences of
    such close values are exact. Infinity counts as 2**128 (IEEE overflow rule).
    """
    sign = np.signbit(x)
    with np.errstate(over="ignore"):
        mag = np.abs(x).astype(ml_dtypes.bfloat16).view(np.uint16).astype(np.int64)
    cands = np.stack([mag - 1, mag, mag + 1]).clip(0, 0x7F80)
    vals = cands.astype(np.uint16).view(ml_dtypes.bfloat16).astype(np.float64)
    vals[cands == 0x7F80] = 2.0**128
    dist = np.abs(vals - np.abs(x))
    best = dist.min(axis=0)
    tie_ok = (dist == best) & ((cands & 1) == 0)
    pick = np.where(tie_ok.any(axis=0), tie_ok.argmax(axis=0), dist.argmin(axis=0))
    chosen = cands[pick, np.arange(x.size)]
    return (chosen | (sign.astype(np.int64) << 15)).astype(np.uint16)


def test_float64_to_bfloat16_is_exact_nearest_even(random_f64):
    finite = random_f64[np.isfinite(random_f64)]
    ours = convert(finite.view(np.uint64), "float64->bfloat16")
    np.testing.assert_array_equal(ours, exact_bf16_reference(finite))
    # The traps are real: rounding through float32 (as ml_dtypes does) differs on them.
    with np.errstate(over="ignore"):
        double_rounded = finite.astype(ml_dtypes.bfloat16).view(np.uint16)
    assert (ours != double_rounded).sum() > 1000
    # The double-rounding trap itself, for the record: ml_dtypes gives 0x3f80 here.
    assert convert(np.array([1 + 2**-8 + 2**-30]).view(np.uint64), "float64->bfloat16")[0] == 0x3F81


def test_wrong_input_dtype_is_a_type_error_not_a_conversion():
    with pytest.raises(TypeError, match="uint32"):
        _core.convert_float_bits(np.zeros(3, np.float32), "float32->float16")
    with pytest.raises(ValueError, match="unknown conversion"):
        _core.convert_float_bits(np.zeros(3, np.uint32), "float32->int8")
