"""com.microsoft GatherBlockQuantized
(src/onnx_light/kernels/com_microsoft/gather_block_quantized.cc): an embedding Gather that
ORT's 4-bit weight quantizer rewrote, and hand-packed uint8 tables of 2, 4 and 8 bits with
and without zero points, int32 and int64 (negative) indices, float and float16 scales;
against the codes dequantized in numpy and against ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I32, U8, F, H, I
from _ms import light_run, ms_model, ort_run

from onnx_light.onnx import helper, numpy_helper


def unpack(data, bits):
    per = 8 // bits
    out = np.zeros(data.shape[:-1] + (data.shape[-1] * per,), np.int64)
    for i in range(per):
        out[..., i::per] = (data >> (bits * i)) & ((1 << bits) - 1)
    return out


def packed_case(
    bits, rows=10, cols=64, block=16, zp=True, scale_type=np.float32, idx_type=np.int64
):
    rng = np.random.default_rng(99)
    data = rng.integers(0, 256, (rows, cols * bits // 8)).astype(np.uint8)
    blocks = cols // block
    scales = (rng.random((rows, blocks)) * 0.1 + 0.01).astype(scale_type)
    inits = {"data": data, "scales": scales}
    ins = [("data", None), ("idx", I if idx_type == np.int64 else I32), ("scales", None)]
    zps = None
    if zp:
        zps = rng.integers(0, 256, (rows, (blocks * bits + 7) // 8)).astype(np.uint8)
        inits["zp"] = zps
        ins.append(("zp", None))
    out_type = F if scale_type == np.float32 else H
    model = ms_model(
        "GatherBlockQuantized",
        ins,
        [("y", out_type)],
        inits,
        block_size=block,
        bits=bits,
        gather_axis=0,
        quantize_axis=1,
    )
    codes = unpack(data, bits)
    z = unpack(zps, bits)[:, :blocks] if zp else np.full((rows, blocks), 1 << (bits - 1))
    table = (codes - np.repeat(z, block, 1)) * np.repeat(scales.astype(np.float64), block, 1)
    return model, table


@pytest.mark.parametrize("bits", [2, 4, 8])
@pytest.mark.parametrize("zp", [True, False])
@pytest.mark.parametrize("idx", [[3], [[0, 9], [-1, 4]], []])
def test_gather_block_quantized_packed_uint8(bits, zp, idx):
    model, table = packed_case(bits, zp=zp)
    indices = np.array(idx, np.int64).reshape(np.shape(idx))
    (got,) = light_run(model, {"idx": indices})
    np.testing.assert_allclose(got, table[indices].astype(np.float32), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(ort_run(model, {"idx": indices})[0], got)


def test_gather_block_quantized_float16_scales_and_int32_indices():
    model, table = packed_case(4, scale_type=np.float16, idx_type=np.int32)
    indices = np.array([[2, 7, 1]], np.int32)
    (got,) = light_run(model, {"idx": indices})
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, table[indices], rtol=2e-3, atol=1e-3)
    np.testing.assert_array_equal(ort_run(model, {"idx": indices})[0], got)


def test_an_embedding_rewritten_by_ort_4bit_quantizer():
    import onnx  # the quantizer takes the onnx package's ModelProto (an oracle, test venv)
    from onnxruntime.quantization import matmul_nbits_quantizer as mq

    from onnx_light.onnx import load_model_from_string

    rng = np.random.default_rng(100)
    emb = rng.standard_normal((50, 64)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["emb", "ids"], ["y"])],
        "g",
        [helper.make_tensor_value_info("ids", I, ["b", "s"])],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(emb, "emb")],
    )
    model = onnx.load_model_from_string(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]).SerializeToString()
    )
    q = mq.MatMulNBitsQuantizer(
        model, block_size=32, op_types_to_quantize=("Gather",), quant_axes=(("Gather", 1),)
    )
    q.process()
    out = load_model_from_string(q.model.model.SerializeToString())
    assert [n.op_type for n in out.graph.node] == ["GatherBlockQuantized"]
    ids = np.array([[0, 49, 7], [3, 3, 12]], np.int64)
    (got,) = light_run(out, {"ids": ids})
    np.testing.assert_array_equal(got, ort_run(out, {"ids": ids})[0])
    # 4-bit blocks of 32: within half a step of each block's range of the float table
    step = (emb.max() - emb.min()) / 15
    np.testing.assert_allclose(got, emb[ids], atol=step)


def test_gather_block_quantized_refuses_indices_outside_the_table():
    model, _ = packed_case(4)
    with pytest.raises(ValueError, match="GatherBlockQuantized.*index 10 is outside"):
        light_run(model, {"idx": np.array([10], np.int64)})
