"""Decoder inference, onnx-light against ONNX Runtime in the same run: one decoder step with
a KV cache (past 16 and 512 positions) in float32, dynamically quantized int8
(quantize_dynamic: MatMulInteger) and 4-bit weights (matmul_nbits_quantizer: MatMulNBits),
at 1 and 2 intra-op threads, with peak RSS; and the tokens per second of a short greedy
decode loop (a 16-token prompt, then 32 tokens, each step's present_* fed back as the next
step's past_*).

    .venv/bin/python bench/decoder_vs_ort.py             # the tables
    .venv/bin/python bench/decoder_vs_ort.py --docs      # also rewrite its section of
                                                         # docs/performance.md

The model is built here (tests/python/_decoder_graph.py: a GPT-style decoder written as a
PyTorch export writes one step, 4 layers, width 256, 4 heads, vocabulary 8192, random
weights) into build/bench_models/, and quantized there with onnxruntime's own tools.
Each (model, runtime, threads) is timed in a child process of its own (peak RSS is that
runtime's alone), as bench/models_vs_ort.py does. onnxruntime is the baseline and the
quantizer only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests" / "python"))

from models_vs_ort import make_session, median_seconds, vm_kib  # noqa: E402

GENERATED = REPO / "build" / "bench_models"
LAYERS, HIDDEN, HEADS, FFN, VOCAB = 4, 256, 4, 1024, 8192
HEAD_DIM = HIDDEN // HEADS
FORMS = {
    "float": "decoder.onnx",
    "int8_dynamic": "decoder_int8.onnx",
    "int4": "decoder_int4.onnx",
}
PROMPT, NEW_TOKENS = 16, 32


def generate() -> None:
    if all((GENERATED / f).exists() for f in FORMS.values()):
        return
    import onnx
    from _decoder_graph import gpt_decoder
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    GENERATED.mkdir(parents=True, exist_ok=True)
    plain = GENERATED / FORMS["float"]
    model = gpt_decoder(layers=LAYERS, hidden=HIDDEN, heads=HEADS, ffn=FFN, vocab=VOCAB)
    onnx.save(model, str(plain))
    quantize_dynamic(
        str(plain), str(GENERATED / FORMS["int8_dynamic"]), weight_type=QuantType.QInt8
    )
    q = MatMulNBitsQuantizer(onnx.load(str(plain)), block_size=32, is_symmetric=True)
    q.process()
    q.model.save_model_to_file(str(GENERATED / FORMS["int4"]))


def step_feeds(past: int, tokens: int = 1, seed: int = 0) -> dict:
    from _decoder_graph import decoder_feeds

    return decoder_feeds(LAYERS, HEADS, HEAD_DIM, past, tokens, seed)


def greedy(session, steps: int = NEW_TOKENS) -> list:
    """A 16-token prompt, then `steps` tokens chosen by argmax, the cache fed back."""
    feeds = step_feeds(0, PROMPT, seed=3)
    names = [o.name for o in session.get_outputs()]
    tokens = []
    for _ in range(steps):
        out = dict(zip(names, session.run(None, feeds)))
        nxt = int(np.argmax(out["logits"][0, -1]))
        tokens.append(nxt)
        past = feeds["position_ids"][0, -1] + 1
        feeds = {
            "input_ids": np.array([[nxt]], np.int64),
            "position_ids": np.array([[past]], np.int64),
        }
        for i in range(LAYERS):
            feeds[f"past_key_{i}"] = out[f"present_key_{i}"]
            feeds[f"past_value_{i}"] = out[f"present_value_{i}"]
    return tokens


def child(form: str, runtime: str, threads: int, what: str, min_time: float) -> None:
    if runtime == "ort":
        import onnxruntime  # noqa: F401
    else:
        import onnx_light  # noqa: F401
    Path("/proc/self/clear_refs").write_text("5")
    base = vm_kib("VmRSS")
    s = make_session(runtime, GENERATED / FORMS[form], threads)
    if what == "greedy":
        greedy(s, 4)
        result = {"tokens_per_s": NEW_TOKENS / median_seconds(lambda: greedy(s), min_time, 3)}
    else:
        feeds = step_feeds(int(what))
        s.run(None, feeds)
        s.run(None, feeds)
        result = {"ms": median_seconds(lambda: s.run(None, feeds), min_time) * 1e3}
    result["rss_mib"] = (vm_kib("VmHWM") - base) / 1024
    print(json.dumps(result))


def measure(form: str, runtime: str, threads: int, what: str, min_time: float) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", form, runtime, str(threads), what, str(min_time)],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"{form} {what} on {runtime} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def max_difference(form: str, past: int) -> float:
    feeds = step_feeds(past)
    a = make_session("light", GENERATED / FORMS[form], 1).run(None, feeds)
    b = make_session("ort", GENERATED / FORMS[form], 1).run(None, feeds)
    return max(float(np.max(np.abs(x - y))) for x, y in zip(a, b))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], float(sys.argv[6]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", default="1,2", help="intra-op threads to measure")
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure each row this many times, onnx-light and ORT alternating, and keep "
        "each runtime's best (a noisy host's bursts then hit both alike)",
    )
    parser.add_argument("--docs", action="store_true", help="rewrite docs/performance.md")
    args = parser.parse_args()
    from _common import cpu_name, paired, write_section
    from models_vs_ort import geomean

    generate()
    threads = [int(t) for t in args.threads.split(",")]
    head = "| decoder step | " + " | ".join(
        f"light ms @{t} | ORT ms @{t} | ratio @{t}" for t in threads
    )
    head += " | light RSS MiB | ORT RSS MiB | max abs diff |"
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    print(head, flush=True)
    ratios = []
    for form in FORMS:
        for past in (16, 512):
            cells, rss = [f"{form}, past {past}"], {}
            for t in threads:
                light, ort = paired(
                    args.rounds,
                    lambda: measure(form, "light", t, str(past), args.min_time),
                    lambda: measure(form, "ort", t, str(past), args.min_time),
                )
                rss.setdefault("light", light["rss_mib"])
                rss.setdefault("ort", ort["rss_mib"])
                ratios.append(light["ms"] / ort["ms"])
                cells += [f"{light['ms']:.3f}", f"{ort['ms']:.3f}", f"{ratios[-1]:.2f}x"]
            cells += [
                f"{rss['light']:.1f}",
                f"{rss['ort']:.1f}",
                f"{max_difference(form, past):.1e}",
            ]
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    ghead = "| greedy decode | " + " | ".join(
        f"light tok/s @{t} | ORT tok/s @{t} | time ratio @{t}" for t in threads
    )
    ghead += " | same tokens |"
    glines = [ghead, "|" + " --- |" * (ghead.count("|") - 1)]
    print(ghead, flush=True)
    for form in FORMS:
        cells = [form]
        for t in threads:
            light, ort = paired(
                args.rounds,
                lambda: measure(form, "light", t, "greedy", args.min_time),
                lambda: measure(form, "ort", t, "greedy", args.min_time),
                key="tokens_per_s",
                higher_is_better=True,
            )
            ratios.append(ort["tokens_per_s"] / light["tokens_per_s"])
            cells += [
                f"{light['tokens_per_s']:.0f}",
                f"{ort['tokens_per_s']:.0f}",
                f"{ratios[-1]:.2f}x",
            ]
        same = greedy(make_session("light", GENERATED / FORMS[form], 1)) == greedy(
            make_session("ort", GENERATED / FORMS[form], 1)
        )
        cells.append("yes" if same else "no")
        glines.append("| " + " | ".join(cells) + " |")
        print(glines[-1], flush=True)
    summary = (
        f"Geometric mean of onnx-light / ORT time over every row: {geomean(ratios):.2f}x; "
        f"worst {max(ratios):.2f}x."
    )
    print(summary)
    if args.docs:
        body = (
            "## Decoder steps and greedy decoding vs ONNX Runtime (`bench/decoder_vs_ort.py`)\n\n"
            f"Measured on {cpu_name()} by `bench/decoder_vs_ort.py`: a GPT-style decoder built "
            "here (4 layers, width 256, 4 heads, vocabulary 8192; float32, int8 by "
            "`quantize_dynamic`, 4-bit by `matmul_nbits_quantizer`), one step with the KV "
            "cache at 16 and 512 past positions, and a greedy loop (16-token prompt, 32 "
            "tokens, `present_*` fed back as `past_*`). Ratio = onnx-light time / ORT time; "
            "@N = N intra-op threads; same tokens: both runtimes chose the same 32 tokens."
            + (
                f" Each time: the better of {args.rounds} alternating measurements per "
                "runtime (`--rounds`).\n\n"
                if args.rounds > 1
                else "\n\n"
            )
            + "\n".join(lines)
            + "\n\n"
            + "\n".join(glines)
            + "\n\n"
            + summary
        )
        write_section("decoder_vs_ort", body)


if __name__ == "__main__":
    main()
