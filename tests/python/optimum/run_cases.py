"""Runs Optimum's ORTModel classes on the exported models (make_models.py) and prints the
results as JSON, on real ONNX Runtime (`real`) or on onnx-light's drop-in (`light`: installed
before Optimum is imported). Run with the optimum test venv's Python:

    python run_cases.py real|light MODELS REPO"""

from __future__ import annotations

import json
import sys


def main() -> None:
    mode, models, repo = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "light":
        sys.path.insert(0, f"{repo}/python")
        import onnx_light.ort_compat

        onnx_light.ort_compat.install()
    import numpy as np
    import onnxruntime
    import torch
    from optimum import onnxruntime as om

    assert getattr(onnxruntime, "__onnx_light__", False) == (mode == "light")
    rng = np.random.default_rng(11)
    out = {}

    def floats(t) -> list:
        return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t).ravel().tolist()

    ids = torch.tensor([[2, 5, 9, 100, 7], [3, 4, 0, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]])
    m = om.ORTModelForFeatureExtraction.from_pretrained(f"{models}/bert_features")
    out["bert_features"] = floats(m(input_ids=ids, attention_mask=mask).last_hidden_state)
    m = om.ORTModelForSequenceClassification.from_pretrained(f"{models}/bert_classifier")
    out["bert_classifier"] = floats(m(input_ids=ids, attention_mask=mask).logits)
    m = om.ORTModelForImageClassification.from_pretrained(f"{models}/vit_classifier")
    pixels = torch.tensor(rng.standard_normal((2, 3, 32, 32)).astype(np.float32))
    out["vit_classifier"] = floats(m(pixel_values=pixels).logits)

    m = om.ORTModelForSpeechSeq2Seq.from_pretrained(f"{models}/whisper")
    features = torch.tensor(rng.standard_normal((1, 80, 3000)).astype(np.float32))
    out["whisper_generate"] = m.generate(input_features=features, max_new_tokens=8).tolist()
    m = om.ORTModelForSeq2SeqLM.from_pretrained(f"{models}/t5")
    src = torch.tensor([[11, 23, 57, 1]])
    out["t5_generate"] = m.generate(input_ids=src, max_new_tokens=8, do_sample=False).tolist()
    for name in ("gpt2", "llama"):
        m = om.ORTModelForCausalLM.from_pretrained(f"{models}/{name}")
        prompt = torch.tensor([[5, 10, 15, 20]])
        out[f"{name}_logits"] = floats(
            m(input_ids=prompt, attention_mask=torch.ones_like(prompt)).logits
        )
        out[f"{name}_generate"] = m.generate(
            input_ids=prompt,
            attention_mask=torch.ones_like(prompt),
            max_new_tokens=12,
            do_sample=False,
        ).tolist()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
