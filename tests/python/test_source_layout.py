"""The source tree's promises (docs/development.md, "Adding an op" and "Adding a pass"):
every kernel of kernel_list.inc is registered exactly once, by ONNX_LIGHT_REGISTER_KERNEL
with its domain and op (so a search for the op's registration finds its file), and
nothing else is registered; every kernel file has its test module at
tests/python/kernels/<family>/test_<file>.py; every pass is pass_<name>.cc with
tests/python/passes/test_<name>.py."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "src" / "onnx_light" / "kernels"
PASSES = REPO / "src" / "onnx_light" / "runtime" / "passes"
TESTS = REPO / "tests" / "python"

REGISTER = re.compile(r"^ONNX_LIGHT_REGISTER_KERNEL\((\w+), (\w+)\)", re.M)


def listed_kernels():
    text = (KERNELS / "kernel_list.inc").read_text()
    return re.findall(r"^ONNX_LIGHT_KERNEL\((\w+), (\w+)\)", text, re.M)


def registrations():
    found = {}
    for path in sorted(KERNELS.rglob("*.cc")):
        for key in REGISTER.findall(path.read_text()):
            found.setdefault(key, []).append(path.relative_to(KERNELS))
    return found


def test_every_listed_kernel_is_registered_once_by_the_macro():
    listed = listed_kernels()
    assert len(listed) > 150
    assert not [k for k, n in Counter(listed).items() if n > 1], "listed twice"
    found = registrations()
    missing = [k for k in listed if k not in found]
    twice = {k: v for k, v in found.items() if len(v) > 1}
    unlisted = [k for k in found if k not in set(listed)]
    assert not missing, f"no ONNX_LIGHT_REGISTER_KERNEL for {missing}"
    assert not twice, f"registered in more than one place: {twice}"
    assert not unlisted, f"registered but not in kernel_list.inc: {unlisted}"


def test_no_registration_function_is_written_by_hand():
    for path in KERNELS.rglob("*.cc"):
        assert "Status RegisterKernel_" not in path.read_text(), path


def test_every_kernel_file_has_its_test_module():
    missing = []
    for path in sorted({p for paths in registrations().values() for p in paths}):
        test = TESTS / "kernels" / path.parent / f"test_{path.stem}.py"
        if not test.exists():
            missing.append(str(test.relative_to(REPO)))
    assert not missing, f"kernel files without their test module: {missing}"


def test_the_ai_onnx_ml_table_names_the_ml_kernels():
    """docs/conformance.md's ai.onnx.ml table lists every op of the domain; those marked
    implemented are exactly the ai_onnx_ml kernels of kernel_list.inc."""
    page = (REPO / "docs" / "conformance.md").read_text()
    section = page.split("## Classical machine learning (ai.onnx.ml)")[1]
    rows = re.findall(r"^\| (\w+) \| ai\.onnx\.ml \| [^|]+\| [^|]+\| ([^|]+) \|$", section, re.M)
    implemented = {op for op, status in rows if status.strip() == "implemented"}
    listed = {op for domain, op in listed_kernels() if domain == "ai_onnx_ml"}
    assert implemented == listed
    assert len(rows) == 19  # the domain's ops in the ONNX spec


def pass_names():
    text = (PASSES / "pass_manager.cc").read_text()
    return re.findall(r'\{"(\w+)", GraphOptimizationLevel::', text)


def test_every_pass_has_its_file_and_test_module():
    names = pass_names()
    assert "constant_folding" in names and len(names) >= 14
    for name in names:
        assert (PASSES / f"pass_{name}.cc").exists(), f"pass_{name}.cc"
        assert (TESTS / "passes" / f"test_{name}.py").exists(), f"test_{name}.py"
    files = {p.stem[len("pass_") :] for p in PASSES.glob("pass_*.cc")} - {"manager"}
    assert files == set(names), f"pass files that are no pass: {files - set(names)}"


def test_conformance_md_lists_every_ort_contrib_kernel():
    """docs/conformance.md's com.microsoft table names exactly the com_microsoft kernels of
    kernel_list.inc (and the ORT default-domain ops they come with) as implemented."""
    page = (REPO / "docs" / "conformance.md").read_text()
    section = page.split("## ONNX Runtime's contrib operators (com.microsoft)")[1]
    rows = re.findall(r"^\| (\w+)(?: \([^)]*\))? \| ([\w.]+) \|.*\| implemented \|$", section, re.M)
    documented = {op for op, domain in rows if domain == "com.microsoft"}
    listed = {op for domain, op in listed_kernels() if domain == "com_microsoft"}
    assert documented == listed, documented ^ listed
    defaults = {op for op, domain in rows if domain == "ai.onnx"}
    assert defaults == {"LayerNormalization", "SimplifiedLayerNormalization"}
