"""Generates with onnxruntime-genai (the oracle; run with the test-only genai venv's
Python) and prints JSON: for each request, the tokens and the decoded text.

    python oracle_generate.py FOLDER REQUESTS_JSON

REQUESTS_JSON: a list of {"prompt": str, "options": {search options}}.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    import onnxruntime_genai as og

    model = og.Model(sys.argv[1])
    tokenizer = og.Tokenizer(model)
    results = []
    for req in json.loads(sys.argv[2]):
        params = og.GeneratorParams(model)
        params.set_search_options(**req["options"])
        generator = og.Generator(model, params)
        prompt = tokenizer.encode(req["prompt"])
        generator.append_tokens(prompt)
        stream = tokenizer.create_stream()
        pieces, steps = [], []
        while not generator.is_done():
            generator.generate_next_token()
            token = int(generator.get_next_tokens()[0])
            steps.append(token)
            pieces.append(stream.decode(token))
        seq = [int(t) for t in generator.get_sequence(0)]
        results.append(
            {
                "prompt": [int(t) for t in prompt],
                "tokens": steps,
                "sequence": seq,
                "stream": pieces,
                "text": tokenizer.decode(seq),
            }
        )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
