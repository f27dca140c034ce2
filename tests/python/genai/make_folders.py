"""Writes ONNX Runtime GenAI model-builder folders for the genai tests (run by
tests/python/genai/_folders.py with the test-only genai venv's Python, which has torch,
transformers and onnxruntime-genai; onnx-light never imports them).

For each architecture: a Hugging Face checkpoint with random weights from a small config
(transformers' AutoModelForCausalLM.from_config, no hub access), a byte-level BPE tokenizer
trained here on a fixed text, then the builder (python -m onnxruntime_genai.models.builder)
in fp32 and int4 for the CPU.

    python make_folders.py OUT_DIR ARCH [ARCH ...]

ARCH_bench (llama_bench, ...): the benchmark's larger shape (hidden 1024, 4 layers, 16 heads
of 64 over 4 KV heads, vocabulary 32000), for bench/genai_vs_ort.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TEXT = (
    "the quick brown fox jumps over the lazy dog. onnx light runs models on the cpu. "
    "a small runtime that users can read, audit and trim. tokens come one by one, "
    "each from the logits of the last. 0123456789 hello world, again and again. "
) * 20
VOCAB = 320


def tokenizer(out: Path) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        special_tokens=["<s>", "</s>", "<pad>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator([TEXT], trainer)
    # No BOS template: onnxruntime-genai's tokenizer does not apply one for this class.
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>"
    )
    fast.save_pretrained(out)
    cfg = json.loads((out / "tokenizer_config.json").read_text())
    cfg["tokenizer_class"] = "GPT2Tokenizer"  # what onnxruntime-genai's tokenizer knows
    (out / "tokenizer_config.json").write_text(json.dumps(cfg, indent=1))


def config(arch: str):
    import transformers as tf

    common = dict(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=2,
        tie_word_embeddings=False,
    )
    head = 16
    if arch.endswith("_bench"):  # bench/genai_vs_ort.py: a 1B-class layer shape, 4 layers
        arch = arch[: -len("_bench")]
        head = 64
        common |= dict(
            vocab_size=32000,
            hidden_size=1024,
            intermediate_size=2816,
            num_hidden_layers=4,
            num_attention_heads=16,
            num_key_value_heads=4,
            max_position_embeddings=2048,
        )
    if arch == "llama":
        return tf.LlamaConfig(**common)
    if arch == "qwen2":
        return tf.Qwen2Config(**common)
    if arch == "qwen3":
        return tf.Qwen3Config(head_dim=head, **common)
    if arch == "mistral":
        return tf.MistralConfig(sliding_window=None, **common)
    if arch == "phi3":
        return tf.Phi3Config(
            original_max_position_embeddings=common["max_position_embeddings"], **common
        )
    if arch == "gemma":
        return tf.GemmaConfig(head_dim=head, **common)
    if arch == "gemma2":
        return tf.Gemma2Config(
            head_dim=head, sliding_window=8, query_pre_attn_scalar=head, **common
        )
    raise ValueError(f"unknown architecture {arch}")


def main() -> None:
    import torch
    from transformers import AutoModelForCausalLM

    out_dir = Path(sys.argv[1])
    for arch in sys.argv[2:]:
        ckpt = out_dir / f"{arch}-hf"
        if not (ckpt / "config.json").is_file():
            torch.manual_seed(7)
            model = AutoModelForCausalLM.from_config(config(arch))
            # Larger weights than the default init: logits far apart, so greedy choices are
            # clear (a near tie would make any two runtimes' tokens differ).
            with torch.no_grad():
                for p in model.parameters():
                    if p.dim() == 2:
                        p.mul_(4.0)
            model.save_pretrained(ckpt)
            tokenizer(ckpt)
        for precision in ("fp32", "int4"):
            dst = out_dir / f"{arch}-{precision}"
            if (dst / "genai_config.json").is_file():
                continue
            cmd = [
                sys.executable,
                "-m",
                "onnxruntime_genai.models.builder",
                "-i",
                str(ckpt),
                "-o",
                str(dst),
                "-p",
                precision,
                "-e",
                "cpu",
                "-c",
                str(out_dir / "cache"),
            ]
            env = dict(os.environ, HF_HUB_OFFLINE="1")
            subprocess.run(cmd, check=True, env=env)


if __name__ == "__main__":
    main()
