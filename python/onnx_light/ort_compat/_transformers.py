"""``onnxruntime.transformers`` as far as programs built on ONNX Runtime's runtime path import
it: ``io_binding_helper.TypeHelper`` (ORT type strings to numpy, torch and ONNX types) and
``fusion_options`` (the option object of ORT's Python optimizer, which Hugging Face Optimum
builds at import time). ORT's Python graph optimizer itself is not provided:
``optimizer.optimize_model`` and ``onnx_model_bert.BertOnnxModel`` exist and raise saying so
(onnx-light applies its own fusions when it loads a model, docs/runtime.md). torch is
imported only by the torch conversions."""

from __future__ import annotations

from argparse import ArgumentParser, Namespace
from enum import Enum
from typing import Any

import numpy as np

from onnx_light.ort_compat._errors import unsupported

# The element types each of TypeHelper's maps knows, as ORT's type strings. numpy's has no
# bfloat16, float8 or 4-bit types (numpy has none), torch's has them; strings are in none.
_NUMPY = {
    "int64": np.int64,
    "int32": np.int32,
    "float": np.float32,
    "float16": np.float16,
    "bool": bool,
    "uint8": np.uint8,
    "int8": np.int8,
    "double": np.float64,
    "int16": np.int16,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "complex64": np.complex64,
    "complex128": np.complex128,
}
_TORCH = {  # torch attribute names
    **{k: k for k in ("int64", "int32", "float16", "bfloat16", "bool", "uint8", "int8")},
    **{k: k for k in ("int16", "uint16", "uint32", "uint64", "complex64", "complex128")},
    "float": "float32",
    "double": "float64",
    "float8e4m3fn": "float8_e4m3fn",
    "float8e4m3fnuz": "float8_e4m3fnuz",
    "float8e5m2": "float8_e5m2",
    "float8e5m2fnuz": "float8_e5m2fnuz",
    "int4": "int4",
    "uint4": "uint4",
}
_ONNX = {  # TensorProto.DataType
    "float": 1,
    "uint8": 2,
    "int8": 3,
    "uint16": 4,
    "int16": 5,
    "int32": 6,
    "int64": 7,
    "string": 8,
    "bool": 9,
    "float16": 10,
    "double": 11,
    "uint32": 12,
    "uint64": 13,
    "complex64": 14,
    "complex128": 15,
    "bfloat16": 16,
    "float8e4m3fn": 17,
    "float8e4m3fnuz": 18,
    "float8e5m2": 19,
    "float8e5m2fnuz": 20,
    "uint4": 21,
    "int4": 22,
    "float4e2m1": 23,
}


def _element(ort_type: str, table: dict) -> str:
    if ort_type.startswith("tensor(") and ort_type.endswith(")") and ort_type[7:-1] in table:
        return ort_type[7:-1]
    raise ValueError(f"{ort_type} not found in map")


def _numpy_torch_pairs() -> list:
    """(numpy type, torch dtype) for the types both maps know, keyed as ORT keys them (numpy
    scalar types and Python's bool, not np.dtype objects)."""
    import torch

    return [(_NUMPY[name], getattr(torch, _TORCH[name])) for name in _NUMPY]


def _arg_type(args: Any, name: str, what: str) -> str:
    """The type string of the NodeArg called `name` (ORT's ValueError when there is none)."""
    for arg in args:
        if arg.name == name:
            return arg.type
    raise ValueError(f"{what} name {name} not found")


class TypeHelper:
    """ORT's ``onnxruntime.transformers.io_binding_helper.TypeHelper``."""

    @staticmethod
    def get_input_type(ort_session: Any, name: str) -> str:
        return _arg_type(ort_session.get_inputs(), name, "input")

    @staticmethod
    def get_output_type(ort_session: Any, name: str) -> str:
        return _arg_type(ort_session.get_outputs(), name, "output")

    @staticmethod
    def ort_type_to_numpy_type(ort_type: str) -> Any:
        return _NUMPY[_element(ort_type, _NUMPY)]

    @staticmethod
    def ort_type_to_torch_type(ort_type: str) -> Any:
        import torch

        return getattr(torch, _TORCH[_element(ort_type, _TORCH)])

    @staticmethod
    def ort_type_to_onnx_type(ort_type: str) -> int:
        return _ONNX[_element(ort_type, _ONNX)]

    @staticmethod
    def get_io_onnx_type_map(ort_session: Any) -> dict[str, int]:
        args = list(ort_session.get_inputs()) + list(ort_session.get_outputs())
        return {a.name: TypeHelper.ort_type_to_onnx_type(a.type) for a in args}

    @staticmethod
    def get_io_numpy_type_map(ort_session: Any) -> dict[str, Any]:
        args = list(ort_session.get_inputs()) + list(ort_session.get_outputs())
        return {a.name: TypeHelper.ort_type_to_numpy_type(a.type) for a in args}

    @staticmethod
    def get_io_torch_type_map(ort_session: Any) -> dict[str, Any]:
        args = list(ort_session.get_inputs()) + list(ort_session.get_outputs())
        return {a.name: TypeHelper.ort_type_to_torch_type(a.type) for a in args}

    @staticmethod
    def numpy_type_to_torch_type(numpy_type: Any) -> Any:
        table = dict(_numpy_torch_pairs())
        if numpy_type not in table:
            raise ValueError(f"{numpy_type} not found in map")
        return table[numpy_type]

    @staticmethod
    def torch_type_to_numpy_type(torch_type: Any) -> Any:
        table = {t: n for n, t in _numpy_torch_pairs()}
        if torch_type not in table:
            raise ValueError(f"{torch_type} not found in map")
        return table[torch_type]


class AttentionMaskFormat:
    """ORT's attention mask formats (fusion_options.AttentionMaskFormat)."""

    MaskIndexEnd = 0
    MaskIndexEndAndStart = 1
    AttentionMask = 2
    NoMask = 3


class AttentionOpType(Enum):
    Attention = "Attention"
    MultiHeadAttention = "MultiHeadAttention"
    GroupQueryAttention = "GroupQueryAttention"
    PagedAttention = "PagedAttention"

    def __str__(self) -> str:
        return self.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __eq__(self, other: object) -> bool:
        return getattr(other, "value", None) == self.value


# FusionOptions' switches: (attribute, default, command-line flag that flips it). The
# stable-diffusion switches exist for the model types that use them.
_SWITCHES = [
    ("enable_gelu", True, "--disable_gelu"),
    ("enable_layer_norm", True, "--disable_layer_norm"),
    ("enable_attention", True, "--disable_attention"),
    ("enable_rotary_embeddings", True, "--disable_rotary_embeddings"),
    ("use_multi_head_attention", False, "--use_multi_head_attention"),
    ("disable_multi_head_attention_bias", False, None),
    ("enable_skip_layer_norm", True, "--disable_skip_layer_norm"),
    ("enable_embed_layer_norm", True, "--disable_embed_layer_norm"),
    ("enable_bias_skip_layer_norm", True, "--disable_bias_skip_layer_norm"),
    ("enable_bias_gelu", True, "--disable_bias_gelu"),
    ("enable_gelu_approximation", False, "--enable_gelu_approximation"),
    ("enable_qordered_matmul", True, None),
    ("enable_shape_inference", True, "--disable_shape_inference"),
    ("enable_gemm_fast_gelu", False, "--enable_gemm_fast_gelu"),
    ("group_norm_channels_last", True, None),
]
_DIFFUSION = ("unet", "vae", "clip")
_DIFFUSION_SWITCHES = [
    ("enable_nhwc_conv", "--disable_nhwc_conv"),
    ("enable_group_norm", "--disable_group_norm"),
    ("enable_skip_group_norm", "--disable_skip_group_norm"),
    ("enable_bias_splitgelu", "--disable_bias_splitgelu"),
    ("enable_packed_qkv", "--disable_packed_qkv"),
    ("enable_packed_kv", "--disable_packed_kv"),
    ("enable_bias_add", "--disable_bias_add"),
]


class FusionOptions:
    """The options of ORT's Python optimizer (``fusion_options.FusionOptions``), with ORT's
    defaults per model type. onnx-light has no use for them (its fusions apply when a model
    loads); they exist so that programs that build them (Optimum's ORTOptimizer
    configuration) import and run."""

    def __init__(self, model_type: str) -> None:
        for attr, default, _ in _SWITCHES:
            setattr(self, attr, default)
        if model_type in ("clip", "qwen3"):
            self.enable_embed_layer_norm = False
        self.attention_mask_format = AttentionMaskFormat.AttentionMask
        if model_type == "bert":
            self.attention_mask_format = AttentionMaskFormat.MaskIndexEnd
        elif model_type in ("vit", "qwen3"):
            self.attention_mask_format = AttentionMaskFormat.NoMask
        self.attention_op_type = None
        if model_type in _DIFFUSION:
            for attr, _ in _DIFFUSION_SWITCHES:
                setattr(self, attr, True)

    def use_raw_attention_mask(self, use_raw_mask: bool = True) -> None:
        self.attention_mask_format = (
            AttentionMaskFormat.AttentionMask if use_raw_mask else AttentionMaskFormat.MaskIndexEnd
        )

    def disable_attention_mask(self) -> None:
        self.attention_mask_format = AttentionMaskFormat.NoMask

    def set_attention_op_type(self, attn_op_type: AttentionOpType) -> None:
        self.attention_op_type = attn_op_type

    @staticmethod
    def parse(args: Namespace) -> "FusionOptions":
        options = FusionOptions(args.model_type)
        for attr, default, flag in _SWITCHES:
            if flag and getattr(args, flag[2:], False):
                setattr(options, attr, not default)
        if getattr(args, "use_mask_index", False):
            options.use_raw_attention_mask(False)
        if getattr(args, "use_raw_attention_mask", False):
            options.use_raw_attention_mask(True)
        if getattr(args, "no_attention_mask", False):
            options.disable_attention_mask()
        if args.model_type in _DIFFUSION:
            if getattr(args, "use_group_norm_channels_first", False):
                options.group_norm_channels_last = False
            for attr, flag in _DIFFUSION_SWITCHES:
                if getattr(args, flag[2:], False):
                    setattr(options, attr, False)
        return options

    @staticmethod
    def add_arguments(parser: ArgumentParser) -> None:
        flags = [f for _, _, f in _SWITCHES if f] + [f for _, f in _DIFFUSION_SWITCHES]
        flags += ["--use_mask_index", "--use_raw_attention_mask", "--no_attention_mask"]
        flags += ["--use_group_norm_channels_first"]
        for flag in flags:
            parser.add_argument(flag, required=False, action="store_true")
            parser.set_defaults(**{flag[2:]: False})


_OPTIMIZER = (
    "ORT's Python graph optimizer (onnxruntime.transformers.optimizer)",
    "onnx-light fuses attention, layer norms and GELU itself when it loads a model "
    "(docs/runtime.md); run the unoptimized model",
)


def optimize_model(*args: Any, **kwargs: Any) -> Any:
    raise unsupported(*_OPTIMIZER)


class BertOnnxModel:
    """ORT's optimizer's model class: not provided (see optimize_model)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise unsupported(*_OPTIMIZER)


class OnnxModel(BertOnnxModel):
    """ORT's optimizer's base model class: not provided (see optimize_model)."""
