"""Generates text from an ONNX Runtime GenAI model folder with onnx_light.genai (the same
calls as onnxruntime-genai's). docs/genai.md.

    PYTHONPATH=python .venv/bin/python examples/genai/generate.py FOLDER "a prompt" [MAX_LENGTH]
"""

from __future__ import annotations

import sys
import time

import onnx_light.genai as og


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    folder, prompt = sys.argv[1], sys.argv[2]
    max_length = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    model = og.Model(folder)
    tokenizer = og.Tokenizer(model)
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=max_length, do_sample=False)
    generator = og.Generator(model, params)
    tokens = tokenizer.encode(prompt)
    start = time.perf_counter()
    generator.append_tokens(tokens)
    stream = tokenizer.create_stream()
    print(prompt, end="", flush=True)
    new = 0
    while not generator.is_done():
        generator.generate_next_token()
        print(stream.decode(generator.get_next_tokens()[0]), end="", flush=True)
        new += 1
    seconds = time.perf_counter() - start
    print(f"\n[{len(tokens)} prompt tokens, {new} new, {new / seconds:.0f} tokens/s]")


if __name__ == "__main__":
    main()
