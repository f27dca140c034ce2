"""The models the ORT C API clients run (tests/ort_c_api/cxx_client.cc and the other
bindings' programs): a dense layer with a symbolic batch and metadata, a string model, an
ai.onnx.ml ZipMap, a sequence output, and one that every runtime refuses at load."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from onnx_light.onnx import TensorProto, helper, numpy_helper


def _save(model, path: Path) -> None:
    path.write_bytes(model.SerializeToString())


def write_models(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((4, 5)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(5).astype(np.float32), "b")
    dense = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["xw"]),
            helper.make_node("Add", ["xw", "b"], ["pre"]),
            helper.make_node("Relu", ["pre"], ["y"]),
        ],
        "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])],
        [w, b],
    )
    dense.input[0].type.tensor_type.shape.dim[0].denotation = "DATA_BATCH"
    model = helper.make_model(dense, opset_imports=[helper.make_opsetid("", 17)])
    model.producer_name = "onnx-light-client-test"
    model.model_version = 7
    helper.set_model_props(model, {"author": "onnx-light", "task": "client test"})
    _save(model, folder / "dense.onnx")

    # (Not StringNormalizer: ORT's needs the en_US.UTF-8 locale, which machines may lack.)
    strings = helper.make_graph(
        [
            helper.make_node("Gather", ["text", "order"], ["reordered"], axis=0),
            helper.make_node("Concat", ["reordered", "suffix"], ["picked"], axis=0),
        ],
        "strings",
        [helper.make_tensor_value_info("text", TensorProto.STRING, ["N"])],
        [helper.make_tensor_value_info("picked", TensorProto.STRING, [5])],
        [
            numpy_helper.from_array(np.array([2, 0, 1], np.int64), "order"),
            numpy_helper.from_array(np.array(["tail", "\u00e9t\u00e9"], dtype=object), "suffix"),
        ],
    )
    _save(
        helper.make_model(strings, opset_imports=[helper.make_opsetid("", 17)]),
        folder / "strings.onnx",
    )

    zipmap = helper.make_graph(
        [
            helper.make_node(
                "ZipMap",
                ["probabilities"],
                ["labels"],
                domain="ai.onnx.ml",
                classlabels_int64s=[10, 20, 30],
            )
        ],
        "zipmap",
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["N", 3])],
        [
            helper.make_value_info(
                "labels",
                helper.make_sequence_type_proto(
                    helper.make_map_type_proto(
                        TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, [])
                    )
                ),
            )
        ],
    )
    _save(
        helper.make_model(
            zipmap,
            opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)],
        ),
        folder / "zipmap.onnx",
    )

    sequence = helper.make_graph(
        [helper.make_node("SplitToSequence", ["x"], ["parts"], axis=0)],
        "sequence",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])],
        [
            helper.make_value_info(
                "parts",
                helper.make_sequence_type_proto(
                    helper.make_tensor_type_proto(TensorProto.FLOAT, None)
                ),
            )
        ],
    )
    _save(
        helper.make_model(sequence, opset_imports=[helper.make_opsetid("", 17)]),
        folder / "sequence.onnx",
    )

    # b is an initializer and a graph input: ORT's "overridable initializer".
    over = helper.make_graph(
        [helper.make_node("Add", ["x", "b"], ["y"])],
        "overridable",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [3]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [numpy_helper.from_array(np.array([1.0, 2.0, 3.0], np.float32), "b")],
    )
    _save(
        helper.make_model(over, opset_imports=[helper.make_opsetid("", 17)]),
        folder / "overridable.onnx",
    )

    # w's data in an external file, weights.bin (offset 16: a header the model skips).
    weights = np.arange(12, dtype=np.float32).reshape(4, 3) / 8
    (folder / "weights.bin").write_bytes(b"\0" * 16 + weights.tobytes())
    w_ext = TensorProto()
    w_ext.name = "w"
    w_ext.data_type = TensorProto.FLOAT
    w_ext.dims.extend([4, 3])
    w_ext.data_location = TensorProto.EXTERNAL
    for key, value in [
        ("location", "weights.bin"),
        ("offset", "16"),
        ("length", str(weights.nbytes)),
    ]:
        entry = w_ext.external_data.add()
        entry.key, entry.value = key, value
    external = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "external",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [w_ext],
    )
    _save(
        helper.make_model(external, opset_imports=[helper.make_opsetid("", 17)]),
        folder / "external.onnx",
    )

    # The repository's example plugin (examples/custom_ops): ort_custom_ops::LeakyRelu.
    custom = helper.make_graph(
        [helper.make_node("LeakyRelu", ["x"], ["y"], domain="ort_custom_ops", alpha=0.2)],
        "custom",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
    )
    _save(
        helper.make_model(
            custom,
            opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ort_custom_ops", 1)],
        ),
        folder / "custom_op.onnx",
    )

    # An optional input (opset 18): ORT's optional type infos.
    optional = helper.make_graph(
        [helper.make_node("OptionalHasElement", ["opt"], ["has"])],
        "optional",
        [
            helper.make_value_info(
                "opt",
                helper.make_optional_type_proto(
                    helper.make_tensor_type_proto(TensorProto.FLOAT, [2])
                ),
            )
        ],
        [helper.make_tensor_value_info("has", TensorProto.BOOL, [])],
    )
    _save(
        helper.make_model(optional, opset_imports=[helper.make_opsetid("", 18)]),
        folder / "optional.onnx",
    )

    unknown = helper.make_graph(
        [helper.make_node("NoSuchOperator", ["x"], ["y"])],
        "unknown",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    _save(
        helper.make_model(unknown, opset_imports=[helper.make_opsetid("", 17)]),
        folder / "unknown_op.onnx",
    )
    return folder
