"""onnx_light.genai (python/onnx_light/genai.py) against onnxruntime-genai 0.18 on folders
its model builder wrote (fp32 and int4 for the CPU: MatMulNBits at accuracy level 4,
GroupQueryAttention, RotaryEmbedding, SkipSimplifiedLayerNormalization; Gemma 2's local
layers with window-sized caches) from random-weight Llama, Qwen2, Qwen3, Phi-3, Mistral,
Gemma and Gemma 2 configs (tests/python/genai/make_folders.py): the same greedy tokens, with
and without a repetition penalty; then the API's own behaviour (streaming, sampling with a
seed, end of sequence, max_length, appending after generating) and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from _genai import ARCHS, oracle

import onnx_light.genai as og

PROMPT = "the quick brown fox jumps"
NEW = 32  # greedy tokens compared


def generate(model, tokenizer, prompt, **options):
    params = og.GeneratorParams(model)
    params.set_search_options(**options)
    gen = og.Generator(model, params)
    gen.append_tokens(tokenizer.encode(prompt))
    tokens = []
    while not gen.is_done():
        gen.generate_next_token()
        tokens.append(int(gen.get_next_tokens()[0]))
    return tokens, gen


@pytest.mark.parametrize("precision", ["fp32", "int4"])
@pytest.mark.parametrize("arch", ARCHS)
def test_greedy_tokens_equal_onnxruntime_genai(genai_folders, arch, precision):
    folder = genai_folders / f"{arch}-{precision}"
    model = og.Model(folder)
    tokenizer = og.Tokenizer(model)
    n = len(tokenizer.encode(PROMPT))
    requests = [
        {"prompt": PROMPT, "options": {"max_length": n + NEW, "do_sample": False}},
        {
            "prompt": "hello world again",
            "options": {"max_length": 40, "do_sample": False, "repetition_penalty": 1.5},
        },
    ]
    for req, want in zip(requests, oracle(folder, requests)):
        assert tokenizer.encode(req["prompt"]).tolist() == want["prompt"]
        tokens, gen = generate(model, tokenizer, req["prompt"], **req["options"])
        assert tokens == want["tokens"], f"{arch}-{precision} {req['options']}"
        assert gen.get_sequence(0).tolist() == want["sequence"]
    assert len(want["tokens"]) > 0


@pytest.fixture(scope="module")
def llama(genai_folders):
    model = og.Model(genai_folders / "llama-int4")
    return model, og.Tokenizer(model)


def test_stream_pieces_add_up_to_the_decoded_text(llama):
    model, tokenizer = llama
    tokens, _ = generate(model, tokenizer, PROMPT, max_length=40)
    stream = tokenizer.create_stream()
    text = "".join(stream.decode(t) for t in tokens)
    assert text == tokenizer.decode(tokens).rstrip("\ufffd")
    assert tokenizer.decode(tokenizer.encode(PROMPT)) == PROMPT


def test_sampling_with_a_seed(llama):
    model, tokenizer = llama
    opts = dict(max_length=30, do_sample=True, temperature=1.5, top_k=0, random_seed=11)
    a, _ = generate(model, tokenizer, PROMPT, **opts)
    b, _ = generate(model, tokenizer, PROMPT, **opts)
    c, _ = generate(model, tokenizer, PROMPT, **(opts | {"random_seed": 12}))
    greedy, _ = generate(model, tokenizer, PROMPT, max_length=30)
    top1, _ = generate(model, tokenizer, PROMPT, **(opts | {"top_k": 1}))
    assert a == b and a != c  # 20+ tokens at temperature 1.5 over 320: a repeat is ~impossible
    assert top1 == greedy


@pytest.mark.parametrize("options", [dict(top_k=3), dict(top_k=0, top_p=0.3)])
def test_sampled_tokens_come_from_the_allowed_head(llama, options):
    model, tokenizer = llama
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=30, do_sample=True, random_seed=5, **options)
    gen = og.Generator(model, params)
    gen.append_tokens(tokenizer.encode(PROMPT))
    while not gen.is_done():
        logits = gen.get_logits()[0].astype(np.float64)
        gen.generate_next_token()
        token = int(gen.get_next_tokens()[0])
        order = np.argsort(-logits, kind="stable")
        if "top_p" in options:  # the smallest head whose probability reaches top_p
            p = np.exp(logits[order] - logits[order[0]])
            head = order[: int(np.searchsorted(np.cumsum(p / p.sum()), options["top_p"])) + 1]
        else:
            head = order[: options["top_k"]]
        assert token in head


def test_end_of_sequence_and_max_length(llama):
    model, tokenizer = llama
    first = generate(model, tokenizer, PROMPT, max_length=40)[0][0]
    saved = model.eos_token_ids
    model.eos_token_ids = [first]
    try:
        tokens, gen = generate(model, tokenizer, PROMPT, max_length=40)
        assert tokens == [first] and gen.is_done()
        with pytest.raises(RuntimeError, match="generation is done"):
            gen.generate_next_token()
        # min_length holds the end of sequence back
        n = len(tokenizer.encode(PROMPT))
        tokens, _ = generate(model, tokenizer, PROMPT, max_length=40, min_length=n + 4)
        assert len(tokens) >= 4 and first not in tokens[:3]
    finally:
        model.eos_token_ids = saved
    tokens, gen = generate(model, tokenizer, PROMPT, max_length=len(tokenizer.encode(PROMPT)) + 3)
    assert len(tokens) == 3 and len(gen.get_sequence(0)) == len(tokenizer.encode(PROMPT)) + 3


def test_appending_after_generating_equals_one_prefill(llama):
    """Prompt, 5 generated tokens, 3 appended, 6 more: the same as a fresh generator fed the
    first 5 + 3 + prompt at once (the caches carried between steps hold what a prefill
    computes)."""
    model, tokenizer = llama
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=60)
    gen = og.Generator(model, params)
    gen.append_tokens(tokenizer.encode(PROMPT))
    for _ in range(5):
        gen.generate_next_token()
    extra = tokenizer.encode(" again")
    gen.append_tokens(extra)
    after = []
    for _ in range(6):
        gen.generate_next_token()
        after.append(int(gen.get_next_tokens()[0]))
    seq = gen.get_sequence(0)
    fresh = og.Generator(model, params)
    fresh.append_tokens(seq[: len(seq) - 6])
    again = []
    for _ in range(6):
        fresh.generate_next_token()
        again.append(int(fresh.get_next_tokens()[0]))
    assert after == again


def test_errors_are_clear_and_the_generator_stays_usable(llama, tmp_path):
    model, tokenizer = llama
    with pytest.raises(FileNotFoundError, match="genai_config.json"):
        og.Model(tmp_path)
    (tmp_path / "genai_config.json").write_text('{"model": {}}')
    with pytest.raises(ValueError, match="no model.decoder"):
        og.Model(tmp_path)
    (tmp_path / "genai_config.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        og.Model(tmp_path)
    params = og.GeneratorParams(model)
    with pytest.raises(NotImplementedError, match="beam search"):
        params.set_search_options(num_beams=2, max_length=12)
    assert params.search["num_beams"] == 1 and params.search["max_length"] != 12  # unchanged
    with pytest.raises(ValueError, match="unknown search option 'beam_width'"):
        params.set_search_options(beam_width=2)
    with pytest.raises(ValueError, match="temperature"):
        params.set_search_options(temperature=0.0)
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=8)
    gen = og.Generator(model, params)
    with pytest.raises(RuntimeError, match="append_tokens first"):
        gen.generate_next_token()
    with pytest.raises(TypeError, match="integers"):
        gen.append_tokens(np.array([1.5, 2.0]))
    with pytest.raises(ValueError, match=r"tokens must be \[1, S\]"):
        gen.append_tokens(np.zeros((2, 3), np.int32))
    with pytest.raises(ValueError, match="exceed max_length 8"):
        gen.append_tokens(np.arange(9, dtype=np.int32))
    gen.append_tokens(tokenizer.encode("hello"))  # still usable
    gen.generate_next_token()
    assert gen.get_next_tokens().shape == (1,)
    with pytest.raises(TypeError, match="encode takes a str"):
        tokenizer.encode(b"bytes")


def test_a_program_written_for_onnxruntime_genai_runs_through_the_drop_in(genai_folders, tmp_path):
    """`python -m onnx_light.ort_compat SCRIPT`: the script's `import onnxruntime_genai` gives
    onnx_light.genai; its tokens equal onnxruntime-genai's own. (The prompt of the greedy
    test: random weights make near ties; "hello world" on this folder meets one at step 11,
    logits 5e-5 apart, where float32 summation order decides.)"""
    import subprocess
    import sys

    from _genai import REPO

    script = tmp_path / "app.py"
    script.write_text(
        "import sys\n"
        "import onnxruntime_genai as og\n"
        "model = og.Model(sys.argv[1])\n"
        "tok = og.Tokenizer(model)\n"
        "params = og.GeneratorParams(model)\n"
        "params.set_search_options(max_length=30)\n"
        "gen = og.Generator(model, params)\n"
        "gen.append_tokens(tok.encode(sys.argv[2]))\n"
        "while not gen.is_done():\n"
        "    gen.generate_next_token()\n"
        "print(og.__name__, ' '.join(str(t) for t in gen.get_sequence(0)))\n"
    )
    folder = genai_folders / "qwen2-int4"
    done = subprocess.run(
        [sys.executable, "-m", "onnx_light.ort_compat", str(script), str(folder), PROMPT],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    name, tokens = done.stdout.split(" ", 1)
    want = oracle(folder, [{"prompt": PROMPT, "options": {"max_length": 30}}])[0]
    assert name == "onnx_light.genai"
    assert [int(t) for t in tokens.split()] == want["sequence"]
