"""Plugin ops inside whole models: onnxruntime-extensions' kernels join the session's
registry layered over the built-in ones, so one graph mixes standard ops, subgraphs and
plugin ops (item 3 of the extensions profile), and text goes in and a vector comes out of
BertTokenizer -> a BERT-style encoder -> mean pooling. Each against ONNX Runtime with the
same library (its own process). Tolerance: float32 outputs of the encoder, rtol 1e-4,
atol 1e-5 (the two runtimes sum in other orders); strings and integers exact."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from _bert_graph import bert_encoder
from _ext import CONTRIB, assert_same, light_run
from _ext_cases import BERT_VOCAB

from onnx_light.onnx import TensorProto, helper, numpy_helper


def _imports():
    return [helper.make_opsetid("", 17), helper.make_opsetid(CONTRIB, 1)]


def mixed_model():
    """text [N] -> StringLower (plugin) -> StringLength (plugin) -> Cast, ReduceSum
    (standard); text -> If(upper) { StringUpper } else { StringConcat(text, "!") }
    (plugin ops in both branches, reading the outer scope) -> Reshape [N, 1] (standard)."""
    S = TensorProto.STRING
    lower = helper.make_node("StringLower", ["text"], ["lower"], domain=CONTRIB)
    length = helper.make_node("StringLength", ["lower"], ["len"], domain=CONTRIB)
    cast = helper.make_node("Cast", ["len"], ["lenf"], to=TensorProto.FLOAT)
    total = helper.make_node("ReduceSum", ["lenf"], ["total"], keepdims=0)
    then_g = helper.make_graph(
        [helper.make_node("StringUpper", ["text"], ["t_out"], domain=CONTRIB)],
        "then",
        [],
        [helper.make_tensor_value_info("t_out", S, None)],
    )
    else_g = helper.make_graph(
        [helper.make_node("StringConcat", ["lower", "text"], ["e_out"], domain=CONTRIB)],
        "else",
        [],
        [helper.make_tensor_value_info("e_out", S, None)],
    )
    branch = helper.make_node("If", ["upper"], ["chosen"], then_branch=then_g, else_branch=else_g)
    reshape = helper.make_node("Reshape", ["chosen", "col"], ["column"])
    inits = [numpy_helper.from_array(np.array([-1, 1], np.int64), "col")]
    graph = helper.make_graph(
        [lower, length, cast, total, branch, reshape],
        "mixed",
        [
            helper.make_tensor_value_info("text", S, ["n"]),
            helper.make_tensor_value_info("upper", TensorProto.BOOL, []),
        ],
        [
            helper.make_tensor_value_info("total", TensorProto.FLOAT, []),
            helper.make_tensor_value_info("column", S, None),
        ],
        inits,
    )
    return helper.make_model(graph, opset_imports=_imports())


def test_one_graph_mixes_standard_ops_subgraphs_and_plugin_ops(oracle, ext_library):
    model = mixed_model()
    text = np.array(["Hello", "ONNX-Light", "", "naïve"], object)
    for upper in (True, False):
        feeds = {"text": text, "upper": np.array(upper)}
        want = oracle.run(model, feeds)
        got = light_run(model, feeds, library=ext_library)
        assert_same(got, want)
        assert got[0] == 20.0  # 5 + 10 + 0 + 5 characters


def tokenizer_encoder_model():
    """text [1] -> BertTokenizer -> [1, S] ids, types, mask -> a 2-layer BERT-style
    encoder (tests/python/_bert_graph.py, random weights) -> mean over tokens [1, H]."""
    encoder = bert_encoder(vocab=len(BERT_VOCAB), max_pos=64, seed=3)
    g = encoder.graph
    nodes = [
        helper.make_node(
            "BertTokenizer",
            ["text"],
            ["ids1", "types1", "mask1"],
            domain=CONTRIB,
            vocab_file="\n".join(BERT_VOCAB),
            do_lower_case=1,
        )
    ]
    axes = numpy_helper.from_array(np.array([0], np.int64), "axis0")
    for src, dst in (
        ("ids1", "input_ids"),
        ("types1", "token_type_ids"),
        ("mask1", "attention_mask"),
    ):
        nodes.append(helper.make_node("Unsqueeze", [src, "axis0"], [dst]))
    nodes += list(g.node)
    nodes.append(
        helper.make_node("ReduceMean", ["last_hidden_state", "axis1"], ["pooled"], keepdims=0)
    )
    inits = list(g.initializer) + [axes, numpy_helper.from_array(np.array([1], np.int64), "axis1")]
    graph = helper.make_graph(
        nodes,
        "tokenizer_encoder",
        [helper.make_tensor_value_info("text", TensorProto.STRING, [1])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, None)],
        inits,
    )
    imports = [helper.make_opsetid("", 18), helper.make_opsetid(CONTRIB, 1)]
    return helper.make_model(graph, opset_imports=imports)


def test_text_in_vector_out_bert_tokenizer_then_encoder(oracle, ext_library):
    model = tokenizer_encoder_model()
    for text in (
        "The quick brown fox jumps over the lazy dog.",
        "hello world",
        "onnx light running plugins, a b c!",
    ):
        feeds = {"text": np.array([text], object)}
        want = oracle.run(model, feeds)
        got = light_run(model, feeds, library=ext_library)
        assert got[0].shape == (1, 32)
        assert_same(got, want, rtol=1e-4, atol=1e-5)


def test_neither_onnxruntime_nor_the_extensions_package_is_imported(ext_library):
    """The code under test loads the library by path and never imports either package."""
    code = f"""
import sys, numpy as np
sys.path[:0] = {sys.path!r}
import onnx_light
from _ext import one_node
so = onnx_light.SessionOptions()
so.register_custom_ops_library({ext_library!r})
m = one_node("StringUpper", {{"x": np.array(["a"], object)}}, ["y"])
out = onnx_light.InferenceSession(m.SerializeToString(), so).run(None, {{"x": np.array(["a"], object)}})
assert out[0].tolist() == ["A"], out
bad = sorted(k for k in sys.modules if k.split(".")[0] in ("onnxruntime", "onnxruntime_extensions", "onnx"))
assert not bad, bad
print("clean")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0 and "clean" in result.stdout, result.stderr
