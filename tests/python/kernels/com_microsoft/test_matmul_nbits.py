"""com.microsoft MatMulNBits (src/onnx_light/kernels/com_microsoft/matmul_nbits.cc) on models
that ORT's 4-bit weight quantizer (onnxruntime.quantization.matmul_nbits_quantizer) writes
from a float MatMul, and on hand-packed weights (2, 4 and 8 bits, a short last block, no
zero points, g_idx, bias): against the weights dequantized in numpy and multiplied in
float64 (rtol 1e-5 of the output's magnitude: float32 sums of K products) and ONNX Runtime
at accuracy level 0 (float); one row (decode) and many (prefill)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I32, U8, F
from _ms import light_run, ms_model, ort_run

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper


def dequantize(b, scales, zps, n, k, bits, block, g_idx=None):
    """W [K, N] from MatMulNBits' packed inputs, in float64."""
    blocks = -(-k // block)
    raw = b.reshape(n, blocks, -1)
    per_byte = 8 // bits
    codes = np.zeros((n, blocks * block), np.int64)
    for i in range(per_byte):
        codes[:, i::per_byte] = (raw.reshape(n, -1) >> (bits * i)) & ((1 << bits) - 1)
    codes = codes[:, :k]
    sc = scales.reshape(n, blocks).astype(np.float64)
    if zps is None:
        zp = np.full((n, blocks), 1 << (bits - 1))
    else:
        zrow = zps.reshape(n, -1)
        zp = np.zeros((n, blocks), np.int64)
        for blk in range(blocks):
            bit = blk * bits
            zp[:, blk] = (zrow[:, bit // 8] >> (bit % 8)) & ((1 << bits) - 1)
    gi = np.arange(k) // block if g_idx is None else g_idx
    w = (codes - zp[:, gi]) * sc[:, gi]
    return w.T


def quantized_model(k, n, block, symmetric, rows_dim="m"):
    from onnxruntime.quantization import matmul_nbits_quantizer as mq

    rng = np.random.default_rng(72)
    w = rng.standard_normal((k, n)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "w"], ["y"])],
        "mm",
        [helper.make_tensor_value_info("a", F, [rows_dim, k])],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    import onnx  # the quantizer takes the onnx package's ModelProto (an oracle, test venv)

    model = onnx.load_model_from_string(model.SerializeToString())
    q = mq.MatMulNBitsQuantizer(model, block_size=block, is_symmetric=symmetric)
    q.process()
    out = q.model.model
    # onnx and onnx_light.onnx are different protobuf stacks: through bytes
    from onnx_light.onnx import load_model_from_string

    return load_model_from_string(out.SerializeToString())


@pytest.mark.parametrize("k,n,block", [(64, 48, 32), (256, 80, 128), (96, 33, 16)])
@pytest.mark.parametrize("symmetric", [False, True])
@pytest.mark.parametrize("rows", [1, 3, 17])
def test_matmul_nbits_from_ort_4bit_quantizer(k, n, block, symmetric, rows):
    model = quantized_model(k, n, block, symmetric)
    node = next(nd for nd in model.graph.node if nd.op_type == "MatMulNBits")
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    b, scales = inits[node.input[1]], inits[node.input[2]]
    zps = inits[node.input[3]] if len(node.input) > 3 and node.input[3] else None
    a = np.random.default_rng(rows).standard_normal((rows, k)).astype(np.float32)
    want = a.astype(np.float64) @ dequantize(b, scales, zps, n, k, 4, block)
    (got,) = light_run(model, {"a": a})
    scale = np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * scale * np.sqrt(k / 64))
    (theirs,) = ort_run(model, {"a": a})
    np.testing.assert_allclose(got, theirs, rtol=0, atol=1e-5 * scale * np.sqrt(k / 64))


def packed_case(k, n, bits, block, zp=True, g_idx=False, bias=True, seed=73, **attrs):
    rng = np.random.default_rng(seed)
    blocks = -(-k // block)
    b = rng.integers(0, 256, (n, blocks, block * bits // 8)).astype(np.uint8)
    scales = (rng.random(n * blocks) * 0.1 + 0.01).astype(np.float32)
    inits = {"b": b, "s": scales}
    ins = [("a", F), ("b", None), ("s", None)]
    zps = None
    if zp:
        zps = rng.integers(0, 256, n * (-(-blocks * bits // 8))).astype(np.uint8)
        inits["z"] = zps
    ins.append(("z" if zp else "", None))
    gi = None
    if g_idx:
        gi = rng.integers(0, blocks, k).astype(np.int32)
        inits["g"] = gi
    ins.append(("g" if g_idx else "", None))
    if bias:
        inits["bias"] = rng.standard_normal(n).astype(np.float32)
        ins.append(("bias", None))
    model = ms_model(
        "MatMulNBits", ins, [("y", F)], inits, K=k, N=n, bits=bits, block_size=block, **attrs
    )
    w = dequantize(b, scales, zps, n, k, bits, block, gi)
    return model, w, inits.get("bias")


@pytest.mark.parametrize("bits", [2, 4, 8])
@pytest.mark.parametrize("k,n,block", [(64, 8, 32), (100, 5, 16), (40, 7, 64)])
@pytest.mark.parametrize("rows", [1, 9])
@pytest.mark.parametrize("zp", [True, False])
def test_matmul_nbits_packed_by_hand(bits, k, n, block, rows, zp):
    model, w, bias = packed_case(k, n, bits, block, zp=zp)
    a = np.random.default_rng(74).standard_normal((2, rows, k)).astype(np.float32)
    want = a.astype(np.float64) @ w + bias
    (got,) = light_run(model, {"a": a})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


# (k, n, block, rows): several column chunks with a ragged last panel and A packed once
# (33 rows); a short last block (300 = 9 x 32 + 12) with A packed; one short block of 128;
# A read in place (12 rows).
FLOAT_PANEL_SHAPES = [(1024, 300, 64, 33), (300, 200, 32, 40), (96, 17, 128, 8), (256, 130, 32, 12)]


@pytest.mark.parametrize("k,n,block,rows", FLOAT_PANEL_SHAPES)
@pytest.mark.parametrize("zp", [True, False])
@pytest.mark.parametrize("threads", [1, 2])
def test_matmul_nbits_float_prefill_packed_panels(k, n, block, rows, zp, threads):
    """Many rows in float (accuracy level 0), 4 bits: the weights dequantized into the
    packed GEMM's panels (simd/nbits_pack_x86.cc, AVX2 or AVX-512) at 1 and 2 threads,
    against the weights dequantized in numpy and multiplied in float64."""
    import onnx_light

    model, w, bias = packed_case(k, n, 4, block, zp=zp)
    a = np.random.default_rng(76).standard_normal((rows, k)).astype(np.float32)
    want = a.astype(np.float64) @ w + bias
    sess = onnx_light.RuntimeSession(model.SerializeToString(), intra_op_threads=threads)
    (got,) = sess.run(None, {"a": a})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


FLOAT_AT_TARGET = """
import sys, numpy as np, onnx_light
sess = onnx_light.RuntimeSession(open(sys.argv[1], "rb").read())
np.save(sys.argv[3], sess.run(None, {"a": np.load(sys.argv[2])})[0])
"""


@pytest.mark.parametrize("target", ["AVX2", "SSE4"])
def test_matmul_nbits_float_prefill_on_narrower_cpus(tmp_path, target):
    """The same products where the CPU has no AVX-512 (the AVX2 packer, 16-column panels
    read by the in-place kernel) and no AVX2 (the column panels and the dot products)."""
    import os
    import subprocess
    import sys

    import onnx_light

    package = os.path.dirname(os.path.dirname(onnx_light.__file__))
    env = dict(os.environ, ONNX_LIGHT_SIMD_TARGET=target)
    env["PYTHONPATH"] = os.pathsep.join([package, env.get("PYTHONPATH", "")])
    for k, n, block, rows in FLOAT_PANEL_SHAPES[:2]:
        model, w, bias = packed_case(k, n, 4, block, zp=True)
        a = np.random.default_rng(77).standard_normal((rows, k)).astype(np.float32)
        path, a_path, y_path = tmp_path / "m.onnx", tmp_path / "a.npy", tmp_path / "y.npy"
        path.write_bytes(model.SerializeToString())
        np.save(a_path, a)
        subprocess.run(
            [sys.executable, "-c", FLOAT_AT_TARGET, str(path), str(a_path), str(y_path)],
            env=env,
            check=True,
        )
        want = a.astype(np.float64) @ w + bias
        got = np.load(y_path)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_matmul_nbits_act_order_g_idx():
    model, w, bias = packed_case(64, 6, 4, 16, g_idx=True)
    a = np.random.default_rng(75).standard_normal((3, 64)).astype(np.float32)
    want = a.astype(np.float64) @ w + bias
    np.testing.assert_allclose(light_run(model, {"a": a})[0], want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(
    "attrs,feeds_k,message",
    [
        (dict(bits=3), 64, "bits must be 2, 4 or 8"),
        (dict(block_size=24), 64, "power of 2"),
        ({}, 60, "must end in K = 64"),
    ],
)
def test_matmul_nbits_refuses_bad_attributes_and_shapes(attrs, feeds_k, message):
    model, _, _ = packed_case(64, 4, 4, 32)
    for key, v in attrs.items():
        next(a for a in model.graph.node[0].attribute if a.name == key).i = v
    with pytest.raises(ValueError, match=f"MatMulNBits.*{message}"):
        light_run(model, {"a": np.zeros((1, feeds_k), np.float32)})


def int8_reference(a, b, scales, zps, n, k, block, bits=4):
    """accuracy_level 4 as ORT's CompInt8 kernels define it: each row of A per block of
    `block` values, scale = max|a| / 127 and codes round_half_even(a * (127 / max|a|)) in
    float32; per block the codes' dot with the `bits`-bit codes minus zero point, exact;
    times both scales (their float32 product), summed in float64."""
    blocks = -(-k // block)
    mid = 1 << (bits - 1)
    w_codes = dequantize(b, np.ones_like(scales), None, n, k, bits, block).T + mid  # [n, k]
    zp = np.full((n, blocks), mid)
    if zps is not None:
        zrow = zps.reshape(n, -1)
        mask = (1 << bits) - 1
        zp = np.stack(
            [(zrow[:, (i * bits) // 8] >> ((i * bits) % 8)) & mask for i in range(blocks)], 1
        )
    sc = scales.reshape(n, blocks)
    rows = a.reshape(-1, k)
    out = np.zeros((rows.shape[0], n))
    for r, row in enumerate(rows):
        for blk in range(blocks):
            seg = row[blk * block : (blk + 1) * block].astype(np.float32)
            amax = np.float32(np.abs(seg).max())
            sa = np.float32(amax / np.float32(127))
            inv = np.float32(127) / amax if amax != 0 else np.float32(0)
            q = np.rint(seg * inv).astype(np.int64)
            codes = w_codes[:, blk * block : blk * block + len(seg)].astype(np.int64)
            dot = codes @ q - zp[:, blk] * q.sum()
            out[r] += (sa * sc[:, blk]).astype(np.float32).astype(np.float64) * dot
    return out.reshape(a.shape[:-1] + (n,))


LEVEL_4_SHAPES = [
    (64, 8, 32),
    (100, 5, 16),
    (300, 9, 128),
    (64, 3, 64),
    (96, 7, 32),
    (448, 13, 64),
    (1000, 6, 256),
]


@pytest.mark.parametrize("k,n,block", LEVEL_4_SHAPES)
@pytest.mark.parametrize("rows", [1, 2, 3, 4, 5, 7, 8, 16, 33])
@pytest.mark.parametrize("zp", [True, False])
def test_matmul_nbits_accuracy_level_4_quantizes_a_to_int8(k, n, block, rows, zp):
    """Level 4 (4 bits), any row count (decode and prefill): A to int8 per block, as ORT's
    CompInt8: equal to the exact int8 reference within float32 summation (rtol 1e-5 of the
    output's magnitude), different from the float path by the activations' rounding (so
    the int8 path really ran). Row tiles of 4 with a remainder (33 = 8 x 4 + 1), column
    tiles with a remainder (n = 3, 5, 7, 9, 13 against tiles of 2 and 4), an odd number of
    32-blocks (96: the last pair half empty), a short last block (100, 300), an all-zero
    block. On AVX-512 VNNI CPUs 1 to 5 rows take the rows kernel (4 rows a pass: 5 = 4 + 1;
    blocks of 32 and 64 several to a 128-value chunk, 128 and 256 one scale a chunk; 96 and
    448 a short last chunk of codes), more rows the tiles."""
    model, w, bias = packed_case(k, n, 4, block, zp=zp, accuracy_level=4)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    a = np.random.default_rng(76).standard_normal((rows, k)).astype(np.float32)
    if k > block:
        a[0, :block] = 0.0  # a block of zeros: scale 0, codes 0
    want = int8_reference(a, inits["b"], inits["s"], inits.get("z"), n, k, block) + bias
    (got,) = light_run(model, {"a": a})
    mag = np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * mag)
    exact = a.astype(np.float64) @ w + bias
    diff = np.abs(got - exact).max()
    assert 1e-5 * mag < diff < 0.05 * mag, diff  # the int8 rounding, and only that


@pytest.mark.parametrize("rows", [1, 5, 7, 8, 16, 128])
@pytest.mark.parametrize("block", [32, 128])
def test_matmul_nbits_accuracy_level_4_against_ort(rows, block):
    """ORT runs level 4 through its CompInt8 kernels on this CPU (AVX2 or better) at every
    row count: the same quantization of A, so the two agree far closer than either does
    with the float path."""
    k, n = 256, 24
    model, w, bias = packed_case(k, n, 4, block, zp=True, accuracy_level=4)
    a = np.random.default_rng(77).standard_normal((rows, k)).astype(np.float32)
    (got,) = light_run(model, {"a": a})
    (theirs,) = ort_run(model, {"a": a})
    exact = a.astype(np.float64) @ w + bias
    mag = np.abs(exact).max()
    assert np.abs(got - theirs).max() <= 1e-4 * mag
    assert np.abs(theirs - exact).max() > 1e-3 * mag  # ORT really quantized A


LEVEL_4_AT_TARGET = """
import json, sys
import numpy as np
import onnx_light
sess = onnx_light.RuntimeSession(open(sys.argv[1], "rb").read())
a = np.load(sys.argv[2])
print(json.dumps(sess.run(None, {"a": a})[0].tolist()))
"""


@pytest.mark.parametrize("target", ["AVX2", "SSE4"])
def test_matmul_nbits_accuracy_level_4_on_narrower_cpus(tmp_path, target):
    """The same int8 results where the CPU has no AVX-512 VNNI (ONNX_LIGHT_SIMD_TARGET=AVX2:
    the vpmaddubsw tiles) and no AVX2 (SSE4: the int16 column kernel), for decode and
    prefill row counts, blocks of 32 (an odd count) and 128 (a short last one)."""
    import json
    import os
    import subprocess
    import sys

    import onnx_light

    package = os.path.dirname(os.path.dirname(onnx_light.__file__))
    env = dict(os.environ, ONNX_LIGHT_SIMD_TARGET=target)
    env["PYTHONPATH"] = os.pathsep.join([package, env.get("PYTHONPATH", "")])
    for k, n, block in [(96, 7, 32), (300, 9, 128)]:
        model, _, bias = packed_case(k, n, 4, block, zp=True, accuracy_level=4)
        inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        a = np.random.default_rng(81).standard_normal((2, 17, k)).astype(np.float32)
        a[0, 0, :block] = 0.0
        path = tmp_path / f"m{k}.onnx"
        path.write_bytes(model.SerializeToString())
        np.save(tmp_path / "a.npy", a)
        for rows in (1, 17):
            np.save(tmp_path / "a.npy", a[:, :rows])
            run = subprocess.run(
                [sys.executable, "-c", LEVEL_4_AT_TARGET, str(path), str(tmp_path / "a.npy")],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            got = np.array(json.loads(run.stdout.strip().splitlines()[-1]))
            want = int8_reference(a[:, :rows], inits["b"], inits["s"], inits["z"], n, k, block)
            want += bias
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("bits", [2, 8])
@pytest.mark.parametrize("rows", [1, 9])
@pytest.mark.parametrize("zp", [True, False])
def test_matmul_nbits_accuracy_level_4_quantizes_a_for_2_and_8_bits(bits, rows, zp):
    """ORT 1.30 quantizes A to int8 at level 4 for 2 and 8 bits as well: the exact int8
    reference within float32 summation, ORT within 1e-4 of the magnitude, and the float
    path further away (a short last block: k = 100)."""
    k, n, block = 100, 6, 32
    model, w, bias = packed_case(k, n, bits, block, zp=zp, accuracy_level=4)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    a = np.random.default_rng(78).standard_normal((rows, k)).astype(np.float32)
    want = int8_reference(a, inits["b"], inits["s"], inits.get("z"), n, k, block, bits) + bias
    (got,) = light_run(model, {"a": a})
    mag = np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * mag)
    (theirs,) = ort_run(model, {"a": a})
    assert np.abs(got - theirs).max() <= 1e-4 * mag
    exact = a.astype(np.float64) @ w + bias
    assert np.abs(got - exact).max() > 1e-4 * mag  # A really went through int8


def test_matmul_nbits_accuracy_level_4_keeps_float_for_g_idx():
    """Act order (g_idx) computes in float32 at level 4, as at level 0."""
    model, w, bias = packed_case(64, 6, 4, 16, g_idx=True, accuracy_level=4)
    a = np.random.default_rng(79).standard_normal((3, 64)).astype(np.float32)
    want = a.astype(np.float64) @ w + bias
    np.testing.assert_allclose(light_run(model, {"a": a})[0], want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("level", [0, 4])
@pytest.mark.parametrize("rows", [2, 3, 6, 7])
def test_matmul_nbits_few_rows_split_between_threads(level, rows):
    """2-7 rows of a product large enough to split ([rows,1024] x [1024,512]): float
    (level 0: 2 rows dotted per row, 3 and more through the dequantized panels) against
    float64, level 4 (the tiles, split by column groups from ~1M multiply-adds) against the
    int8 reference; 2 threads give the 1-thread result bit for bit."""
    k, n, block = 1024, 512, 32
    model, w, bias = packed_case(k, n, 4, block, zp=True, accuracy_level=level)
    data = model.SerializeToString()
    a = np.random.default_rng(78).standard_normal((rows, k)).astype(np.float32)
    one, two = (
        onnx_light.RuntimeSession(data, intra_op_threads=t).run(None, {"a": a})[0] for t in (1, 2)
    )
    np.testing.assert_array_equal(one, two)
    if level == 4:
        inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        want = int8_reference(a, inits["b"], inits["s"], inits.get("z"), n, k, block) + bias
    else:
        want = a.astype(np.float64) @ w + bias
    np.testing.assert_allclose(one, want, rtol=0, atol=2e-5 * np.abs(want).max())


@pytest.mark.parametrize("k", [1280, 2048, 2080])
@pytest.mark.parametrize("zp", [True, False])
@pytest.mark.parametrize("rows", [1, 2])
def test_matmul_nbits_float_decode_zero_point_term(k, zp, rows):
    """The float decode path's zero-point term, sum_b zp_b * scale_b * sum_b(A), computed in
    vectors over 2 x lanes blocks at a time (zero points two a byte: even and odd blocks
    apart) with a scalar tail: 40, 64 and 65 blocks of 32 (whole passes and a remainder on
    AVX2 and AVX-512), with and without zero points, against float64."""
    n, block = 48, 32
    model, w, bias = packed_case(k, n, 4, block, zp=zp)
    a = np.random.default_rng(79).standard_normal((rows, k)).astype(np.float32)
    (got,) = light_run(model, {"a": a})
    want = a.astype(np.float64) @ w + bias
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-5 * np.abs(want).max())
