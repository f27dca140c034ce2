"""rapidocr-onnxruntime (PP-OCRv4 detector, angle classifier, recognizer; its character list
comes from the recognizer's metadata): OCR of generated text images."""

import _common
from rapidocr_onnxruntime import RapidOCR

out = _common.out_path()
engine = RapidOCR()
pages = [
    ["HELLO WORLD 2026", "onnx-light runs ORT apps", "Invoice No. 4711"],
    ["The quick brown fox", "jumps over 13 lazy dogs", "price: $42.50"],
]
results = []
for seed, lines in enumerate(pages):
    image = _common.text_image(lines, (760, 230), seed)
    found, _ = engine(image)
    results.append(
        [{"box": box, "text": text, "score": float(score)} for box, text, score in found or []]
    )
_common.write(out, {"pages": results})
