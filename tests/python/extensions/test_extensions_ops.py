"""onnxruntime-extensions' CPU ops hosted by onnx-light (the extensions profile,
docs/custom_ops_ort_called_by_light.md): each case of tests/python/_ext_cases.py, a one-node model, runs
under onnx-light with the library registered through onnx_light.SessionOptions, and under
ONNX Runtime with the same library (the oracle, in its own process); the outputs agree:
strings, integers and booleans exactly, floats within the case's rtol/atol (1e-6 unless
the case says: the audio transforms' sums are ordered differently, 1e-5/1e-4)."""

from __future__ import annotations

import numpy as np
import pytest
from _ext import CONTRIB, assert_same, light_run, one_node
from _ext_cases import BERT_VOCAB, CASES

import onnx_light


def _model(case):
    outputs = [f"y{i}" for i in range(case.outputs)]
    return one_node(case.op, case.feeds, outputs, domain=case.domain, **case.attrs)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op_matches_onnxruntime_with_extensions(case, oracle, ext_library):
    model = _model(case)
    want = oracle.run(model, case.feeds)
    got = light_run(model, case.feeds, library=ext_library)
    assert_same(got, want, case.rtol, case.atol)


def test_the_suite_covers_thirty_ops_in_every_family():
    ops = {(c.domain, c.op) for c in CASES}
    families = {c.family for c in CASES}
    assert len(ops) >= 30, sorted(ops)
    assert {"string", "math", "tokenizer", "image", "audio"} <= families


@pytest.mark.parametrize("threads", [1, 2])
def test_a_session_runs_again_and_from_threads(threads, oracle, ext_library):
    """The same session over changing inputs (kernels kept across runs), at 1 and 2
    intra-op threads."""
    import threading

    case = next(c for c in CASES if c.id == "bert_tokenizer")
    model = _model(case)
    so = onnx_light.SessionOptions()
    so.register_custom_ops_library(ext_library)
    so.intra_op_num_threads = threads
    session = onnx_light.InferenceSession(model.SerializeToString(), so)
    texts = ["the quick fox", "lazy dog jumps over the brown fox", "", "hello world, hello"]
    want = [oracle.run(model, {"text": np.array([t], object)}) for t in texts]
    errors = []

    def work():
        try:
            for _ in range(3):
                for t, w in zip(texts, want):
                    assert_same(session.run(None, {"text": np.array([t], object)}), w)
        except Exception as e:  # reported below
            errors.append(e)

    workers = [threading.Thread(target=work) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors


def test_plugin_errors_are_clean_and_the_session_stays_usable(ext_library):
    """A V2 op's error status and a V1 op's C++ exception both come back as a Python
    error naming the op's message; the same session then runs good inputs."""
    seg = one_node(
        "SegmentSum",
        {"data": np.ones((3, 2), np.float32), "ids": np.array([0, 0, 1], np.int64)},
        ["y"],
    )
    so = onnx_light.SessionOptions()
    so.register_custom_ops_library(ext_library)
    s = onnx_light.InferenceSession(seg.SerializeToString(), so)
    bad = {"data": np.ones((3, 2), np.float32), "ids": np.array([0, 2, 1], np.int64)}
    with pytest.raises(RuntimeError, match="segment_ids must be increasing"):
        s.run(None, bad)
    good = {"data": np.ones((3, 2), np.float32), "ids": np.array([0, 0, 1], np.int64)}
    np.testing.assert_array_equal(s.run(None, good)[0], [[2, 2], [1, 1]])

    # V1 (HfBertTokenizer throws a C++ exception on one string)
    hf = one_node(
        "HfBertTokenizer",
        {"text": np.array(["one"], object)},
        ["a", "b", "c"],
        vocab_file="\n".join(BERT_VOCAB),
    )
    s = onnx_light.InferenceSession(hf.SerializeToString(), so)
    with pytest.raises(RuntimeError, match="Support only two input strings"):
        s.run(None, {"text": np.array(["one"], object)})
    ids = s.run(None, {"text": np.array(["hello", "world"], object)})[0]
    np.testing.assert_array_equal(ids, [[2, 15, 3, 16, 3]])


def test_missing_attribute_and_wrong_type_are_clean_errors(ext_library):
    so = onnx_light.SessionOptions()
    so.register_custom_ops_library(ext_library)
    # A required attribute left out: a V1 kernel's exception at creation, a V2 kernel's
    # error status, each with the plugin's message.
    feeds = {"x": np.array(["a b"], object)}
    m = one_node("BertTokenizer", feeds, ["a", "b", "c"])
    with pytest.raises(RuntimeError, match="CreateKernel threw.*no attribute named 'vocab_file'"):
        onnx_light.InferenceSession(m.SerializeToString(), so).run(None, feeds)
    m = one_node("GPT2Tokenizer", feeds, ["a", "b"])
    with pytest.raises(ValueError, match="CreateKernelV2: vocabulary shouldn't be empty"):
        onnx_light.InferenceSession(m.SerializeToString(), so).run(None, feeds)
    # A float where the op declares a string: no kernel for these types.
    m = one_node("StringUpper", {"x": np.array([1.0], np.float32)}, ["y"])
    with pytest.raises(RuntimeError, match=r"no kernel for node.*StringUpper.*types \(FLOAT\)"):
        onnx_light.InferenceSession(m.SerializeToString(), so)
    # The options still work afterwards.
    m = one_node("StringUpper", {"x": np.array(["ok"], object)}, ["y"])
    s = onnx_light.InferenceSession(m.SerializeToString(), so)
    assert s.run(None, {"x": np.array(["ok"], object)})[0].tolist() == ["OK"]


def test_registration_errors(tmp_path):
    so = onnx_light.SessionOptions()
    with pytest.raises(TypeError, match="library_path must be a path"):
        so.register_custom_ops_library(3)
    with pytest.raises(ValueError, match="empty"):
        so.register_custom_ops_library("")
    so.register_custom_ops_library(tmp_path / "missing.so")
    m = one_node("StringUpper", {"x": np.array(["a"], object)}, ["y"], domain=CONTRIB)
    with pytest.raises(FileNotFoundError, match="missing.so"):
        onnx_light.InferenceSession(m.SerializeToString(), so)


def test_unicode_and_bytes_arrays_feed_strings(oracle, ext_library):
    """ORT takes numpy unicode ('<U') arrays as string feeds too, and returns object arrays
    of str; so does onnx-light (2-D as well). Bytes ('S') arrays: onnx-light reads each
    element's bytes; ORT 1.30 reads the fixed-width buffer across elements (b"abc", b"x"
    comes back "ABCX", "X"), so those are checked against the expected strings alone."""
    model = one_node("StringUpper", {"x": np.array(["a"], object)}, ["y"])
    for x in (np.array(["abc", "déf", ""]), np.array([["a", "b"], ["c", "d"]])):
        got = light_run(model, {"x": x}, library=ext_library)
        want = oracle.run(model, {"x": x})
        assert got[0].dtype == object
        assert_same(got, want)
    got = light_run(model, {"x": np.array([b"abc", b"x"])}, library=ext_library)
    assert got[0].tolist() == ["ABC", "X"]
