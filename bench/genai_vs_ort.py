"""LLM generation, onnx_light.genai against onnxruntime-genai 0.18 on the same folders its
model builder wrote: prefill of a 16- and a 128-token prompt and greedy decode steps, at 1
and 2 intra-op threads, int4 (the builder's CPU default: MatMulNBits at accuracy level 4)
and fp32.

    .venv/bin/python bench/genai_vs_ort.py             # the table
    .venv/bin/python bench/genai_vs_ort.py --docs      # also rewrite its section of
                                                       # docs/performance.md

The folders: random-weight Llama, Qwen2 and Phi-3 checkpoints of one 1B-class layer shape
(hidden 1024, 16 heads of 64 over 4 KV heads, MLP 2816, 4 layers, vocabulary 32000) through
the builder (`scripts/genai_folders.sh --bench`, cached; the test-only genai venv has torch,
transformers and onnxruntime-genai). Each (folder, library, threads) runs in a process of its
own (bench/genai_worker.py: the same calls through either library), the thread count set in
a copy of genai_config.json's session_options, which both libraries read. Each time is the
better of --rounds alternating runs per library.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests" / "python" / "genai"))

from _common import cpu_name, write_section  # noqa: E402
from _genai import make_folders, oracle_python  # noqa: E402

ARCHS = os.environ.get("GENAI_ARCHS", "llama,qwen2,phi3").split(",")
LENGTHS = (16, 128)


def with_threads(folder: Path, threads: int, into: Path) -> Path:
    """A copy of `folder` (hard links) whose genai_config.json asks for `threads`."""
    into.mkdir()
    for f in folder.iterdir():
        if f.name != "genai_config.json":
            os.link(f, into / f.name)
    cfg = json.loads((folder / "genai_config.json").read_text())
    so = cfg["model"]["decoder"].setdefault("session_options", {})
    so["intra_op_num_threads"], so["inter_op_num_threads"] = threads, 1
    (into / "genai_config.json").write_text(json.dumps(cfg))
    return into


def run(which: str, folder: Path, repeats: int) -> dict:
    python = sys.executable if which == "onnx_light" else oracle_python()
    cmd = [python, str(REPO / "bench" / "genai_worker.py"), which, str(folder)]
    cmd += [",".join(map(str, LENGTHS)), str(repeats), str(REPO / "python")]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"{which} on {folder} failed:\n{done.stderr[-3000:]}")
    return {int(k): v for k, v in json.loads(done.stdout).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="generators per run")
    parser.add_argument("--docs", action="store_true", help="rewrite docs/performance.md")
    args = parser.parse_args()
    base, err = make_folders(bench=True)
    if base is None:
        sys.exit(f"scripts/genai_folders.sh --bench failed:\n{err}")
    header = (
        "| folder | threads | prefill 16: light / genai ms | ratio | prefill 128 ms | ratio "
        "| decode step ms (tokens/s) | ratio |"
    )
    lines = [header, "|" + " --- |" * 8]
    print(header, flush=True)
    ratios: dict[str, list[float]] = {"prefill": [], "decode": []}
    with tempfile.TemporaryDirectory() as tmp:
        for arch in ARCHS:
            for precision in ("int4", "fp32"):
                for threads in (int(t) for t in args.threads.split(",")):
                    folder = with_threads(
                        base / f"{arch}_bench-{precision}",
                        threads,
                        Path(tmp) / f"{arch}{precision}{threads}",
                    )
                    best: dict[str, dict] = {}
                    for _ in range(args.rounds):
                        for which in ("onnx_light", "onnxruntime_genai"):
                            got = run(which, folder, args.repeats)
                            old = best.get(which)
                            best[which] = (
                                got
                                if old is None
                                else {
                                    p: {k: min(old[p][k], got[p][k]) for k in got[p]} for p in got
                                }
                            )
                    light, genai = best["onnx_light"], best["onnxruntime_genai"]
                    cells = [f"{arch} {precision}", str(threads)]
                    for p in LENGTHS:
                        a, b = light[p]["prefill_s"] * 1e3, genai[p]["prefill_s"] * 1e3
                        ratios["prefill"].append(a / b)
                        cells += [f"{a:.1f} / {b:.1f}", f"{a / b:.2f}x"]
                    a, b = light[16]["step_s"] * 1e3, genai[16]["step_s"] * 1e3
                    ratios["decode"].append(a / b)
                    cells += [f"{a:.2f} ({1e3 / a:.0f}) / {b:.2f} ({1e3 / b:.0f})", f"{a / b:.2f}x"]
                    lines.append("| " + " | ".join(cells) + " |")
                    print(lines[-1], flush=True)
    gm = {k: math.exp(sum(map(math.log, v)) / len(v)) for k, v in ratios.items()}
    summary = (
        f"Time ratio onnx-light / onnxruntime-genai, geometric mean: prefill {gm['prefill']:.2f}x "
        f"(worst {max(ratios['prefill']):.2f}x), decode {gm['decode']:.2f}x (worst "
        f"{max(ratios['decode']):.2f}x)."
    )
    print(summary)
    if args.docs:
        body = (
            "## LLM generation vs onnxruntime-genai (`bench/genai_vs_ort.py`)\n\n"
            f"Measured on {cpu_name()} by `bench/genai_vs_ort.py`: onnx_light.genai against "
            "onnxruntime-genai 0.18 (its own ONNX Runtime 1.32) on folders its model builder "
            "wrote for the CPU from random-weight Llama, Qwen2 and Phi-3 checkpoints (hidden "
            "1024, 16 heads over 4 KV heads, MLP 2816, 4 layers, vocabulary 32000). Prefill: "
            "`append_tokens` of a 16- and a 128-token prompt; decode: the median greedy "
            "`generate_next_token` after the 16-token prompt. Ratio = onnx-light time / "
            f"onnxruntime-genai time; each time the better of {args.rounds} alternating runs.\n\n"
            + "\n".join(lines)
            + "\n\n"
            + summary
        )
        write_section("genai_vs_ort", body)


if __name__ == "__main__":
    main()
