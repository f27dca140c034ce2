"""Seeds for the model fuzzers from the real models (third_party/models, fetched by
scripts/setup.sh): each model's graph with its large initializers turned into graph inputs
of the same type and shape, so that the seed keeps the real structure (the node patterns
the graph passes fuse, the attributes, the subgraphs) in a few kilobytes instead of
megabytes of weights. Small initializers (shapes, axes, scales) stay constants.

    python tests/fuzz/make_seeds.py OUT_DIR [--prefix-bytes N] [--max-bytes M]

--prefix-bytes puts N zero bytes before each model (the C ABI fuzzer's steering bytes).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import onnx
from onnx import helper

REPO = Path(__file__).resolve().parents[2]
KEEP_ELEMENTS = 64  # initializers up to this size stay constants


def skeleton(model: onnx.ModelProto) -> onnx.ModelProto:
    graph = model.graph
    kept = []
    for t in graph.initializer:
        count = 1
        for d in t.dims:
            count *= d
        if count <= KEEP_ELEMENTS:
            kept.append(t)
        else:
            graph.input.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--prefix-bytes", type=int, default=0)
    parser.add_argument("--max-bytes", type=int, default=1 << 18)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    written = 0
    for path in sorted((REPO / "third_party" / "models").glob("*.onnx")):
        data = skeleton(onnx.load(str(path))).SerializeToString()
        if len(data) + args.prefix_bytes > args.max_bytes:
            continue
        (args.out / f"real_{path.stem}").write_bytes(bytes(args.prefix_bytes) + data)
        written += 1
    print(f"make_seeds: {written} real-model seeds in {args.out}")


if __name__ == "__main__":
    main()
