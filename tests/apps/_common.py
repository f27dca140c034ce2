"""Shared by the application drivers of scripts/test_apps.sh: deterministic inputs and the
JSON each driver writes (its results, plus which runtime answered)."""

from __future__ import annotations

import json
import sys

import numpy as np


def runtime_name() -> str:
    """ "onnx-light" when `import onnxruntime` gave onnx-light's drop-in, else "onnxruntime"."""
    import onnxruntime

    if getattr(onnxruntime, "__onnx_light__", False):
        return "onnx-light"
    return f"onnxruntime {onnxruntime.__version__}"


def text_image(lines: list[str], size: tuple[int, int], seed: int) -> np.ndarray:
    """A BGR uint8 image of dark text lines on a light, slightly noisy background."""
    from PIL import Image, ImageDraw, ImageFont

    rng = np.random.default_rng(seed)
    img = Image.new("RGB", size, (245, 245, 240))
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=36)
    for i, line in enumerate(lines):
        draw.text((30, 30 + 60 * i), line, fill=(20, 20, 30), font=font)
    arr = np.asarray(img, dtype=np.int16)
    arr = arr + rng.integers(-6, 7, arr.shape, dtype=np.int16)
    return np.clip(arr, 0, 255).astype(np.uint8)[:, :, ::-1].copy()


def write(path: str, results: dict) -> None:
    results = {"runtime": runtime_name(), **results}
    with open(path, "w") as f:
        json.dump(results, f, indent=1, default=float)


def out_path() -> str:
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT.json")
    return sys.argv[1]
