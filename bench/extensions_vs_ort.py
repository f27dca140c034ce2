"""onnxruntime-extensions ops per call: onnx-light hosting the library (the extensions
profile) against ONNX Runtime running it, the same library and model, each runtime in a
process of its own (the library cannot be hosted by both in one process). The kernels are
the same code, so the ratio is the hosts' overhead: registration-time tables, the
per-call context, string tensors in and out.

    .venv/bin/python bench/extensions_vs_ort.py [--rounds N] [--docs]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests" / "python"))

SENTENCE = "The quick brown fox jumps over the lazy dog, hello world! onnx light runs plugins."


def cases():
    """(row name, case id of tests/python/_ext_cases.py or a case, feeds)."""
    from _ext_cases import BERT_VOCAB, CASES, GPT2_MERGES_TEXT, GPT2_VOCAB, Case

    by_id = {c.id: c for c in CASES}
    many = np.array([SENTENCE] * 64, object)
    rows = [
        ("StringUpper, 64 strings", by_id["upper"], {"x": many}),
        ("StringLength, 64 strings", by_id["length"], {"x": many}),
        (
            "StringRegexReplace \\w+ -> [\\1], 64 strings",
            by_id["regex_replace"],
            {
                "text": many,
                "pattern": by_id["regex_replace"].feeds["pattern"],
                "rewrite": by_id["regex_replace"].feeds["rewrite"],
            },
        ),
        (
            "StringSplit on spaces, 64 strings",
            by_id["split"],
            {
                "x": many,
                "sep": by_id["split"].feeds["sep"],
                "skip_empty": by_id["split"].feeds["skip_empty"],
            },
        ),
        (
            "BertTokenizer (V1), 1 sentence",
            Case(
                "bert",
                "BertTokenizer",
                {},
                4,
                {"vocab_file": "\n".join(BERT_VOCAB), "do_lower_case": 1},
            ),
            {"text": np.array([SENTENCE], object)},
        ),
        (
            "GPT2Tokenizer, 8 sentences",
            Case(
                "gpt2",
                "GPT2Tokenizer",
                {},
                2,
                {"vocab": GPT2_VOCAB, "merges": GPT2_MERGES_TEXT, "padding_length": -1},
            ),
            {"text": np.array([SENTENCE] * 8, object)},
        ),
        ("Inverse 2x2", by_id["inverse"], by_id["inverse"].feeds),
    ]
    return rows


def model_of(case, feeds):
    from _ext import one_node

    return one_node(
        case.op, feeds, [f"y{i}" for i in range(case.outputs)], domain=case.domain, **case.attrs
    )


def child(runtime: str, index: int, min_time: float) -> None:
    from _common import timeit
    from _ext import library_path

    name, case, feeds = cases()[index]
    data = model_of(case, feeds).SerializeToString()
    if runtime == "ort":
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.register_custom_ops_library(library_path())
        s = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    else:
        import onnx_light

        so = onnx_light.SessionOptions()
        so.intra_op_num_threads = 1
        so.register_custom_ops_library(library_path())
        s = onnx_light.InferenceSession(data, so)
    out = s.run(None, feeds)
    us = timeit(lambda: s.run(None, feeds), min_time) * 1e6
    flat = [np.asarray(o).tolist() for o in out]
    print(json.dumps({"us": us, "out": flat}))


def measure(runtime: str, index: int, min_time: float) -> dict:
    r = subprocess.run(
        [sys.executable, __file__, "--child", runtime, str(index), str(min_time)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        raise SystemExit(f"row {index} on {runtime} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds per measurement")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure each row this many times, alternating, keep each best",
    )
    parser.add_argument("--docs", action="store_true", help="rewrite docs/performance.md")
    args = parser.parse_args()
    from _common import cpu_name, paired, write_section
    from models_vs_ort import geomean

    lines = [
        "| op, input | light µs | ORT µs | light / ORT | same outputs |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    ratios = []
    for i, (name, _, _) in enumerate(cases()):
        light, ort = paired(
            args.rounds,
            lambda: measure("light", i, args.min_time),
            lambda: measure("ort", i, args.min_time),
            key="us",
        )
        ratio = light["us"] / ort["us"]
        ratios.append(ratio)
        same = "yes" if light["out"] == ort["out"] else "NO"
        lines.append(f"| {name} | {light['us']:.1f} | {ort['us']:.1f} | {ratio:.2f}x | {same} |")
    summary = (
        f"{len(ratios)} rows at 1 thread on {cpu_name()}: geometric mean "
        f"{geomean(ratios):.2f}x ORT's time; worst {max(ratios):.2f}x."
    )
    table = "\n".join(lines)
    print(table)
    print(summary)
    if args.docs:
        body = "\n".join(
            [
                "## onnxruntime-extensions ops, hosted (`bench/extensions_vs_ort.py`)",
                "",
                "One node per row, the same onnxruntime-extensions 0.15.2 library and model under "
                "onnx-light (the extensions profile) and under ONNX Runtime, each in a process of "
                "its own, one thread, Python `run` per call (its median). The kernels are the "
                "same code: the ratio is the hosts' own cost per call. Each time is the better of "
                f"{args.rounds} alternating measurements per runtime.",
                "",
                table,
                "",
                summary,
                "",
                "`.venv/bin/python bench/extensions_vs_ort.py --docs` writes this table.",
            ]
        )
        write_section("extensions_vs_ort", body)


if __name__ == "__main__":
    main()
