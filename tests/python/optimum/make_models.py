"""Exports the models of the Optimum tests (run with the optimum test venv's Python):
random-weight checkpoints built from config classes (no hub access), exported by Optimum's
ORTModel classes (`export=True`) into OUT/<case>. Deterministic (seeded).

    python make_models.py OUT"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import transformers as tr
from optimum import onnxruntime as ort_models

SMALL = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)


def cases():
    bert = tr.BertConfig(vocab_size=512, max_position_embeddings=64, num_labels=3, **SMALL)
    vit = tr.ViTConfig(image_size=32, patch_size=8, num_labels=5, **SMALL)
    whisper = tr.WhisperConfig(
        vocab_size=300,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        num_mel_bins=80,
        max_source_positions=1500,
        max_target_positions=64,
        decoder_start_token_id=1,
        pad_token_id=0,
        eos_token_id=2,
        bos_token_id=1,
        suppress_tokens=[],
        begin_suppress_tokens=[],
        init_std=0.5,  # larger random weights: generations that vary from token to token
    )
    t5 = tr.T5Config(
        vocab_size=300,
        d_model=32,
        d_kv=16,
        d_ff=64,
        num_layers=2,
        num_heads=2,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
        initializer_factor=8.0,
    )
    gpt2 = tr.GPT2Config(
        vocab_size=300, n_positions=64, n_embd=32, n_layer=2, n_head=2, initializer_range=0.5
    )
    llama = tr.LlamaConfig(
        vocab_size=300,
        max_position_embeddings=64,
        num_key_value_heads=1,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
    )
    return [
        ("bert_features", bert, tr.BertModel, ort_models.ORTModelForFeatureExtraction),
        (
            "bert_classifier",
            bert,
            tr.BertForSequenceClassification,
            ort_models.ORTModelForSequenceClassification,
        ),
        (
            "vit_classifier",
            vit,
            tr.ViTForImageClassification,
            ort_models.ORTModelForImageClassification,
        ),
        (
            "whisper",
            whisper,
            tr.WhisperForConditionalGeneration,
            ort_models.ORTModelForSpeechSeq2Seq,
        ),
        ("t5", t5, tr.T5ForConditionalGeneration, ort_models.ORTModelForSeq2SeqLM),
        ("gpt2", gpt2, tr.GPT2LMHeadModel, ort_models.ORTModelForCausalLM),
        ("llama", llama, tr.LlamaForCausalLM, ort_models.ORTModelForCausalLM),
    ]


def main() -> None:
    out = Path(sys.argv[1])
    for name, config, torch_class, ort_class in cases():
        torch.manual_seed(7)
        ckpt = out / "checkpoints" / name
        torch_class(config).eval().save_pretrained(ckpt)
        model = ort_class.from_pretrained(ckpt, export=True)
        model.save_pretrained(out / name)
        print("exported", name, flush=True)


if __name__ == "__main__":
    main()
