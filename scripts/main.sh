#!/usr/bin/env bash
# README command 1: set everything up, build the onnx-light tool and run its main job:
# the bundled default model (models/default.onnx) on random inputs.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh" --target onnx-light --target ort_custom_ops --target host_example
echo "== onnx-light run models/default.onnx --random --dim N=3 --repeat 1000"
"$ROOT/build/onnx-light" run "$ROOT/models/default.onnx" --random --dim N=3 --repeat 1000
echo "== an ONNX Runtime custom-op plugin through onnx-light's host (no ORT involved)"
PYTHONPATH="$ROOT/python" "$ROOT/.venv/bin/python" - "$ROOT/build/leaky.onnx" <<'PY'
import sys
from onnx_light.onnx import TensorProto, helper, save
node = helper.make_node("LeakyRelu", ["x"], ["y"], domain="ort_custom_ops", alpha=0.5)
graph = helper.make_graph(
    [node],
    "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])],
)
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("ort_custom_ops", 1)]), sys.argv[1])
PY
"$ROOT/build/examples/host_example" "$ROOT/build/lib/libort_custom_ops.so" "$ROOT/build/leaky.onnx"
