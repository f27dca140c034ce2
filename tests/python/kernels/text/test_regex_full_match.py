"""RegexFullMatch (src/onnx_light/kernels/text/regex_full_match.cc): RE2's full match against
Python's `re` where the two grammars agree, RE2-only syntax against ONNX Runtime (which
matches with RE2 too), and the patterns RE2 refuses."""

from __future__ import annotations

import re

import numpy as np
import pytest
from _graphs import B, S, light_and_ort, node_bytes, run_node


def run(op, inputs, feeds, outs, opset=20, **attrs):
    return run_node(op, inputs, feeds, outs, opset, **attrs)


def strings(*values):
    return np.array(values, dtype=object)


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
