"""A small ResNet-style CNN in ai.onnx ops, written as exporters write one (Conv with bias,
Relu, residual Add, MaxPool, GlobalAveragePool, Flatten, Gemm), random weights, and the
same through onnxruntime's static quantizer (QDQ or QOperator format). The tests and
bench/models_vs_ort.py build their int8 CNNs from it; onnxruntime is the model maker only.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def resnet_like(size: int = 64, width: int = 32, classes: int = 10, seed: int = 3, softmax=True):
    """Stem (3x3 stride 2, Relu, MaxPool), two residual blocks at `width`, a stride-2
    block at 2*width, GlobalAveragePool, Gemm, Softmax (or the logits, softmax=False).
    Input [1, 3, size, size]."""
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def conv(x, cin, cout, k=3, stride=1, name=""):
        w = rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k))
        b = rng.standard_normal(cout) * 0.05
        inits.append(numpy_helper.from_array(w.astype(np.float32), name + "_w"))
        inits.append(numpy_helper.from_array(b.astype(np.float32), name + "_b"))
        p = k // 2
        nodes.append(
            helper.make_node(
                "Conv",
                [x, name + "_w", name + "_b"],
                [name],
                pads=[p, p, p, p],
                strides=[stride, stride],
                kernel_shape=[k, k],
            )
        )
        return name

    def relu(x):
        nodes.append(helper.make_node("Relu", [x], [x + "_r"]))
        return x + "_r"

    def block(x, cin, cout, stride, name):
        y = relu(conv(x, cin, cout, 3, stride, name + "_c1"))
        y = conv(y, cout, cout, 3, 1, name + "_c2")
        skip = x if cin == cout and stride == 1 else conv(x, cin, cout, 1, stride, name + "_sc")
        nodes.append(helper.make_node("Add", [y, skip], [name + "_add"]))
        return relu(name + "_add")

    x = relu(conv("x", 3, width, 3, 2, "stem"))
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], kernel_shape=[2, 2], strides=[2, 2]))
    x = block("pool", width, width, 1, "b1")
    x = block(x, width, width, 1, "b2")
    x = block(x, width, 2 * width, 2, "b3")
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"]))
    gw = rng.standard_normal((2 * width, classes)) * np.sqrt(1.0 / (2 * width))
    inits.append(numpy_helper.from_array(gw.astype(np.float32), "fc_w"))
    inits.append(numpy_helper.from_array(np.zeros(classes, np.float32), "fc_b"))
    nodes.append(helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"]))
    out = "logits"
    if softmax:
        nodes.append(helper.make_node("Softmax", ["logits"], ["prob"], axis=-1))
        out = "prob"
    graph = helper.make_graph(
        nodes,
        "resnet_like",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def quantize(src: str, dst: str, fmt: str, size: int, act: str = "QUInt8", per_channel=False):
    """`src` through onnxruntime.quantization.quantize_static into `dst`, in `fmt` ("QDQ"
    or "QOperator"), calibrated on 8 random images; int8 weights, `act` activations."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    rng = np.random.default_rng(5)
    batches = [{"x": rng.standard_normal((1, 3, size, size)).astype(np.float32)} for _ in range(8)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(batches)

        def get_next(self):
            return next(self.it, None)

    quantize_static(
        src,
        dst,
        Reader(),
        quant_format=getattr(QuantFormat, fmt),
        activation_type=getattr(QuantType, act),
        weight_type=QuantType.QInt8,
        per_channel=per_channel,
    )


def quantized_set(folder, size: int, width: int, combos):
    """The logits-only CNN (`resnet_like(size, width, softmax=False)`: the two formats
    quantize a Softmax's output differently, QLinearSoftmax's fixed 1/256 against a
    calibrated scale) written in `folder` and quantized once per (format, activation type,
    per_channel) of `combos`; {combo: path}."""
    src = folder / "cnn.onnx"
    src.write_bytes(resnet_like(size=size, width=width, softmax=False).SerializeToString())
    out = {}
    for fmt, act, per_channel in combos:
        path = folder / f"{fmt}_{act}_{per_channel}.onnx"
        quantize(str(src), str(path), fmt, size, act=act, per_channel=per_channel)
        out[(fmt, act, per_channel)] = path
    return out
