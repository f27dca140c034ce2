"""Shared by the benchmark scripts: timing and writing a section of docs/performance.md."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def timeit(fn, min_time: float = 0.25, batches: int = 5) -> float:
    """Median seconds per call over `batches` batches of about min_time/batches each."""
    fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-7)
    reps = max(1, int(min_time / batches / one))
    results = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        results.append((time.perf_counter() - t0) / reps)
    return float(np.median(results))


def paired(rounds: int, light, ort, key: str = "ms", higher_is_better: bool = False):
    """light() and ort() (each a measurement: a dict with `key`) called `rounds` times,
    alternating, keeping each runtime's best result: on a noisy host (a shared VM's stolen
    time) bursts then hit both alike instead of whichever ran during one."""
    best = best_of(rounds, {"light": light, "ort": ort}, key, higher_is_better)
    return best["light"], best["ort"]


def best_of(rounds: int, fns: dict, key: str = "ms", higher_is_better: bool = False) -> dict:
    """Each measurement function of `fns` (name -> fn returning a dict with `key`, or None
    where that runtime cannot run the case) called `rounds` times in turn, keeping each
    one's best result (None if it never ran)."""
    best = {name: None for name in fns}
    for _ in range(max(1, rounds)):
        for name, fn in fns.items():
            r = fn()
            old = best[name]
            if r is not None and (
                old is None or (r[key] > old[key] if higher_is_better else r[key] < old[key])
            ):
                best[name] = r
    return best


def cpu_name() -> str:
    """The CPU's model name and its widest vector extension (the same name covers AVX2-only
    and AVX-512 parts, whose results differ)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown CPU"
    name, flags = "unknown CPU", set()
    for line in text.splitlines():
        if line.startswith("model name") and name == "unknown CPU":
            name = line.split(":", 1)[1].strip()
        elif line.startswith("flags") and not flags:
            flags = set(line.split(":", 1)[1].split())
    vector = (
        "AVX-512" if "avx512f" in flags else "AVX2, no AVX-512" if "avx2" in flags else "no AVX2"
    )
    return f"{name} ({vector})"


def write_section(key: str, body: str) -> None:
    """Replaces (or appends) the section between <!-- BEGIN key --> and <!-- END key -->."""
    doc = REPO / "docs" / "performance.md"
    text = doc.read_text() if doc.exists() else "# Performance\n"
    begin, end = f"<!-- BEGIN {key} -->", f"<!-- END {key} -->"
    block = f"{begin}\n{body}\n{end}"
    if begin in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    doc.write_text(text)
