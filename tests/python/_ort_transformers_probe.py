"""Prints (JSON) what ``onnxruntime.transformers``' helpers answer, for
test_ort_transformers.py: run with ``real`` under a Python with ONNX Runtime and torch (the
genai test venv), and with ``light`` under the same Python with onnx-light's drop-in
installed first.

    python _ort_transformers_probe.py real|light REPO"""

from __future__ import annotations

import argparse
import json
import sys

ORT_TYPES = [
    f"tensor({t})"
    for t in (
        "float double float16 bfloat16 int8 uint8 int16 uint16 int32 uint32 int64 uint64 bool "
        "complex64 complex128 string float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz "
        "int4 uint4 float4e2m1 int2"
    ).split()
] + ["seq(tensor(float))", "map(int64,tensor(float))", "float"]
MODEL_TYPES = ["bert", "gpt2", "vit", "clip", "unet", "vae", "qwen3", "t5", "swin", "bart"]


def answer(fn, arg):
    try:
        return repr(fn(arg))
    except ValueError as e:
        return f"ValueError: {e}"


def main() -> None:
    mode, repo = sys.argv[1], sys.argv[2]
    if mode == "light":
        sys.path.insert(0, f"{repo}/python")
        import onnx_light.ort_compat

        onnx_light.ort_compat.install()
    import numpy as np
    import torch
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.io_binding_helper import TypeHelper

    out = {}
    for t in ORT_TYPES:
        out[f"numpy {t}"] = answer(TypeHelper.ort_type_to_numpy_type, t)
        out[f"torch {t}"] = answer(TypeHelper.ort_type_to_torch_type, t)
        out[f"onnx {t}"] = answer(TypeHelper.ort_type_to_onnx_type, t)
    for n in [np.float32, np.int64, bool, np.float16, np.dtype("float32"), np.str_, np.uint64]:
        out[f"numpy->torch {n!r}"] = answer(TypeHelper.numpy_type_to_torch_type, n)
    for n in [torch.float32, torch.bool, torch.bfloat16, torch.complex64, torch.int16]:
        out[f"torch->numpy {n!r}"] = answer(TypeHelper.torch_type_to_numpy_type, n)
    for m in MODEL_TYPES:
        out[f"fusion {m}"] = {k: repr(v) for k, v in sorted(vars(FusionOptions(m)).items())}
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_type", default="bert")
    FusionOptions.add_arguments(parser)
    for argv in [
        [],
        ["--disable_gelu", "--use_raw_attention_mask", "--enable_gemm_fast_gelu"],
        ["--model_type", "unet", "--disable_nhwc_conv", "--use_group_norm_channels_first"],
        ["--model_type", "gpt2", "--no_attention_mask", "--disable_shape_inference"],
        ["--use_mask_index", "--use_multi_head_attention", "--disable_bias_skip_layer_norm"],
    ]:
        args, _ = parser.parse_known_args(argv)
        parsed = FusionOptions.parse(args)
        out[f"parse {' '.join(argv)}"] = {k: repr(v) for k, v in sorted(vars(parsed).items())}
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
