"""StringNormalizer, StringSplit, StringConcat, RegexFullMatch and string Equal against
Python's own string operations (exact), RegexFullMatch's RE2-only syntax against ONNX
Runtime (which matches with RE2 too), and their errors."""

from __future__ import annotations

import re

import numpy as np
import pytest
from _graphs import B, I, S, light_and_ort, node_bytes, run_node


def run(op, inputs, feeds, outs=(("y", S),), opset=20, **attrs):
    return run_node(op, inputs, feeds, outs, opset, **attrs)


def strings(*values):
    return np.array(values, dtype=object)


def test_normalizer_drops_stopwords_case_insensitively_and_uppercases():
    x = strings("The", "monday", "Été", "THE", "a")
    (y,) = run(
        "StringNormalizer",
        [("x", S)],
        {"x": x},
        opset=10,
        case_change_action="UPPER",
        stopwords=["the", "A"],
    )
    # ASCII letters change case; UTF-8 bytes are kept as they are.
    assert list(y) == ["MONDAY", "ÉTé"]


def test_normalizer_all_dropped_gives_one_empty_string_keeping_the_layout():
    (y,) = run(
        "StringNormalizer", [("x", S)], {"x": strings(["a", "B"])}, opset=10, stopwords=["a", "b"]
    )
    assert y.shape == (1, 1) and y[0, 0] == ""
    with pytest.raises(ValueError, match="must be \\[C\\] or \\[1, C\\]"):
        run("StringNormalizer", [("x", S)], {"x": strings(["a"], ["b"])}, opset=10)


@pytest.mark.parametrize("delimiter", [None, ",", "::"])
@pytest.mark.parametrize("maxsplit", [None, 1])
def test_split_matches_python(delimiter, maxsplit):
    x = strings("  a b  c ", "x,,y::z", "", "one")
    attrs = {}
    if delimiter is not None:
        attrs["delimiter"] = delimiter
    if maxsplit is not None:
        attrs["maxsplit"] = maxsplit
    y, z = run("StringSplit", [("x", S)], {"x": x}, outs=[("y", S), ("z", I)], **attrs)
    want = [s.split(delimiter, -1 if maxsplit is None else maxsplit) for s in x]
    np.testing.assert_array_equal(z, [len(w) for w in want])
    assert y.shape == (4, max(len(w) for w in want))
    for row, w in zip(y, want):
        assert list(row) == w + [""] * (y.shape[1] - len(w))


def test_concat_broadcasts():
    (y,) = run(
        "StringConcat",
        [("a", S), ("b", S)],
        {"a": strings(["x", "y"], ["z", ""]), "b": strings("1", "2")},
    )
    assert y.tolist() == [["x1", "y2"], ["z1", "2"]]


def test_regex_full_match_and_invalid_pattern():
    pattern = r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)"
    x = strings("account@gmail.com", "account@hotmail.com", "not an email", "a.b@yahoo.com")
    (y,) = run("RegexFullMatch", [("x", S)], {"x": x}, outs=[("y", B)], pattern=pattern)
    np.testing.assert_array_equal(y, [re.fullmatch(pattern, s) is not None for s in x])
    with pytest.raises(ValueError, match="invalid pattern"):
        run("RegexFullMatch", [("x", S)], {"x": x}, outs=[("y", B)], pattern="(unclosed")


# RE2's syntax, which std::regex's ECMAScript grammar lacks or reads differently: inline flags,
# Unicode classes over UTF-8, Python-style named groups, POSIX classes, \A \z, and a
# pattern that makes a backtracking matcher take exponential time.
RE2_CASES = [
    (r"(?i)hello\s+world", ["Hello World", "HELLO   world", "hello", "hello world!"]),
    (r"\pL+", ["abc", "Été", "日本語", "ab1", ""]),
    (r"\p{Greek}+\d", ["αβγ1", "abc1", "αβγ"]),
    (r"(?P<user>\w+)@(?P<host>[a-z.]+)", ["me@x.org", "me@X.org", "@x.org"]),
    (r"[[:alpha:]]+[[:digit:]]*", ["abc123", "123", "a"]),
    (r"\Aab*\z", ["abbb", "a", "ba", "abc"]),
    (r".", ["é", "e", "ab", ""]),  # one code point, not one byte
    (r"(a*)*b", ["a" * 40, "a" * 40 + "b"]),
]


@pytest.mark.parametrize("pattern,values", RE2_CASES, ids=[c[0] for c in RE2_CASES])
def test_regex_full_match_re2_syntax_as_ort(pattern, values):
    x = strings(*values)
    got, want = light_and_ort(
        node_bytes("RegexFullMatch", [("x", S)], [("y", B)], 20, pattern=pattern), {"x": x}
    )
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.bool_ and got.shape == x.shape


def test_regex_full_match_rejects_what_re2_rejects():
    # Backreferences and lookarounds are not RE2: refused when the session is made, with
    # RE2's reason; the process goes on matching.
    for bad, reason in [
        (r"(a)\1", "invalid escape sequence"),
        (r"a(?=b)", "invalid perl operator"),
    ]:
        with pytest.raises(ValueError, match=f"invalid pattern .*: {reason}"):
            run("RegexFullMatch", [("x", S)], {"x": strings("aa")}, outs=[("y", B)], pattern=bad)
    (y,) = run(
        "RegexFullMatch", [("x", S)], {"x": strings("aa", "ab")}, outs=[("y", B)], pattern="a+"
    )
    assert y.tolist() == [True, False]


def test_string_equal():
    (y,) = run(
        "Equal",
        [("a", S), ("b", S)],
        {"a": strings("x", "y"), "b": strings("x")},
        outs=[("y", B)],
        opset=19,
    )
    np.testing.assert_array_equal(y, [True, False])
