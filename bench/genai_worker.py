"""One side of bench/genai_vs_ort.py, in a process of its own: generation speed of one
model-builder folder through onnx_light.genai or onnxruntime_genai (the same calls), printed
as JSON. Run with the Python that has the library (onnxruntime-genai's is the test-only
genai venv's).

    python genai_worker.py (onnx_light|onnxruntime_genai) FOLDER PROMPT_LENGTHS REPEATS

For each prompt length P: the prefill (append_tokens of P random token ids) and 32 greedy
decode steps, each timed; the best prefill of REPEATS generators and the median decode step.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

NEW = 32


def main() -> None:
    which, folder, lengths, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if which == "onnx_light":
        sys.path.insert(0, sys.argv[5])
        import onnx_light.genai as og
    else:
        import onnxruntime_genai as og
    model = og.Model(folder)
    vocab = 300  # ids the tokenizer knows, below every folder's vocabulary
    rng = np.random.default_rng(0)
    out = {}
    for p in (int(x) for x in lengths.split(",")):
        prompt = rng.integers(3, vocab, p).astype(np.int32)
        prefill, steps = [], []
        for _ in range(repeats):
            params = og.GeneratorParams(model)
            params.set_search_options(max_length=p + NEW, do_sample=False)
            gen = og.Generator(model, params)
            t0 = time.perf_counter()
            gen.append_tokens(prompt)
            prefill.append(time.perf_counter() - t0)
            while not gen.is_done():
                t0 = time.perf_counter()
                gen.generate_next_token()
                gen.get_next_tokens()
                steps.append(time.perf_counter() - t0)
        out[p] = {"prefill_s": min(prefill), "step_s": float(np.median(steps[1:]))}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
