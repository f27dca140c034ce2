"""StringNormalizer, StringSplit, StringConcat and string Equal against Python's own string
operations (exact), and their errors (RegexFullMatch: test_regex_full_match.py)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, I, S, run_node


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


def test_split_and_concat_of_long_utf8_strings_in_two_dims():
    # Pieces and sums longer than a short string's inline buffer, multi-byte UTF-8, a 2-D
    # input (the pieces' axis appended), maxsplit 0 (the whole string, stripped at the front).
    x = strings(
        ["  Été là-bas, très très loin du rivage  ", "a"],
        ["x" * 40 + " " + "y" * 17, "  \tz  "],
    )
    y, z = run("StringSplit", [("x", S)], {"x": x}, outs=[("y", S), ("z", I)])
    want = [[s.split() for s in row] for row in x]
    widest = max(len(w) for row in want for w in row)
    assert y.shape == (2, 2, widest)
    for r in range(2):
        for c in range(2):
            assert list(y[r, c]) == want[r][c] + [""] * (widest - len(want[r][c]))
            assert z[r, c] == len(want[r][c])
    y0, _ = run("StringSplit", [("x", S)], {"x": x}, outs=[("y", S), ("z", I)], maxsplit=0)
    assert [list(r) for r in y0[..., 0]] == [[s.split(None, 0)[0] for s in row] for row in x]
    (c,) = run("StringConcat", [("a", S), ("b", S)], {"a": x, "b": strings(" — fin")})
    assert c.tolist() == [[s + " — fin" for s in row] for row in x]


def test_concat_broadcasts():
    (y,) = run(
        "StringConcat",
        [("a", S), ("b", S)],
        {"a": strings(["x", "y"], ["z", ""]), "b": strings("1", "2")},
    )
    assert y.tolist() == [["x1", "y2"], ["z1", "2"]]


def test_string_equal():
    (y,) = run(
        "Equal",
        [("a", S), ("b", S)],
        {"a": strings("x", "y"), "b": strings("x")},
        outs=[("y", B)],
        opset=19,
    )
    np.testing.assert_array_equal(y, [True, False])
