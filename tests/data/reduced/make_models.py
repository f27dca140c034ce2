"""Writes the small models of the reduced-build test (run from the repository root:
``.venv/bin/python tests/data/reduced/make_models.py``):

- sub_cast.onnx: y = Cast<double>(a - b), float inputs: with models/default.onnx it makes
  the config of the test's reduced build;
- div.onnx: y = a / b, an op that build leaves out.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "python"))

from onnx_light.onnx import TensorProto, helper, save  # noqa: E402


def two_inputs(nodes, out_type):
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, ["N"]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, ["N"]),
        ],
        [helper.make_tensor_value_info("y", out_type, ["N"])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


if __name__ == "__main__":
    save(
        two_inputs(
            [
                helper.make_node("Sub", ["a", "b"], ["d"]),
                helper.make_node("Cast", ["d"], ["y"], to=TensorProto.DOUBLE),
            ],
            TensorProto.DOUBLE,
        ),
        str(HERE / "sub_cast.onnx"),
    )
    save(
        two_inputs([helper.make_node("Div", ["a", "b"], ["y"])], TensorProto.FLOAT),
        str(HERE / "div.onnx"),
    )
