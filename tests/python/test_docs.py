"""Every code block in docs/*.md and README.md runs as written, or says why it is not run.

- ```python blocks run as scripts with ``PYTHONPATH=python .venv/bin/python`` (what the
  pages tell the reader) from a scratch folder that sees the checkout's models/, python/,
  third_party/, .venv/ and build/. A ``# ...`` comment line right after a line with
  ``print(`` (or at the end of it) is that print's expected output.
- ```sh blocks whose lines start with ``$ `` run each command with bash from the same kind
  of folder; it must exit 0 and print the lines that follow it. A block preceded by
  ``<!-- output varies -->`` (timings, memory) is compared on each line's first word.
- ```c and ```cpp blocks must appear line for line in the file named by a preceding
  ``<!-- from: PATH -->``: an example that the build compiles and ctest runs.
- Any other block is preceded by ``<!-- not run: REASON -->``, except the README's
  opening block: the two commands themselves (command 2 is what runs this test).

Whitespace is compared collapsed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build")).resolve()
PAGES = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]
MARKER = re.compile(r"<!--\s*(not run|from|output varies)\s*:?\s*(.*?)\s*-->")


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    text: str
    marker: tuple[str, str] | None

    @property
    def id(self) -> str:
        return f"{self.page.name}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        lines = page.read_text().splitlines()
        i = 0
        while i < len(lines):
            m = re.match(r"^```(\w*)\s*$", lines[i])
            if not m:
                i += 1
                continue
            start = i
            j = i + 1
            while j < len(lines) and lines[j] != "```":
                j += 1
            prev = next((lines[k] for k in range(start - 1, -1, -1) if lines[k].strip()), "")
            mk = MARKER.search(prev)
            marker = (mk.group(1), mk.group(2)) if mk else None
            found.append(Block(page, start + 1, m.group(1), "\n".join(lines[i + 1 : j]), marker))
            i = j + 1
    return found


BLOCKS = blocks()


def squash(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def scratch(tmp_path):
    for name in ("models", "python", "third_party", ".venv", "examples"):
        (tmp_path / name).symlink_to(REPO / name)
    (tmp_path / "build").symlink_to(BUILD)
    return tmp_path


def expected_prints(code: str) -> list[str]:
    want = []
    lines = code.splitlines()
    for k, line in enumerate(lines):
        if "print(" not in line:
            continue
        trailing = re.search(r"\)\s*#\s?(.*)$", line)
        if trailing:
            want.append(trailing.group(1))
        else:
            k += 1
            while k < len(lines) and lines[k].startswith("# "):
                want.append(lines[k][2:])
                k += 1
    return want


def run_python(block: Block, cwd: Path) -> None:
    env = dict(os.environ, PYTHONPATH="python")
    r = subprocess.run(
        [str(REPO / ".venv" / "bin" / "python"), "-c", block.text],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, f"{block.id} failed:\n{r.stderr}"
    want = expected_prints(block.text)
    assert want, f"{block.id}: a Python snippet should show its output as '# ' lines"
    assert squash(r.stdout) == squash("\n".join(want)), f"{block.id} printed:\n{r.stdout}"


def run_shell(block: Block, cwd: Path) -> None:
    commands = []  # (command, expected output lines)
    for line in block.text.splitlines():
        if line.startswith("$ "):
            commands.append([line[2:], []])
        elif commands and commands[-1][0].endswith("\\"):
            commands[-1][0] = commands[-1][0][:-1] + " " + line.strip()
        elif commands:
            commands[-1][1].append(line)
        else:
            raise AssertionError(f"{block.id}: output before the first '$ ' command")
    varies = block.marker is not None and block.marker[0] == "output varies"
    for command, want in commands:
        r = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, f"{block.id}: '{command}' failed:\n{r.stdout}\n{r.stderr}"
        got = r.stdout.splitlines()
        if varies:
            assert [g.split()[:1] for g in got] == [
                w.split()[:1] for w in want
            ], f"{block.id}: '{command}' printed:\n{r.stdout}"
        else:
            assert squash(r.stdout) == squash(
                "\n".join(want)
            ), f"{block.id}: '{command}' printed:\n{r.stdout}"


ELLIPSIS = {"// ...", "/* ... */"}


def lines_in_order(snippet: str, source: str) -> bool:
    """The snippet's lines appear in the source in order and next to each other (blank
    lines aside); a ``// ...`` or ``/* ... */`` line stands for any run of source lines."""
    src = [squash(s) for s in source.splitlines() if s.strip()]
    want = [squash(s) for s in snippet.splitlines() if s.strip()]

    def match(i: int, k: int) -> bool:
        if i == len(want):
            return True
        if want[i] in ELLIPSIS:
            return any(match(i + 1, j) for j in range(k, len(src) + 1))
        return k < len(src) and src[k] == want[i] and match(i + 1, k + 1)

    return any(match(0, start) for start in range(len(src)))


def is_readme_commands(b: Block) -> bool:
    return b.page.name == "README.md" and b.text.startswith("./scripts/main.sh")


def test_every_block_is_accounted_for():
    assert len(BLOCKS) > 20
    assert any(is_readme_commands(b) for b in BLOCKS)
    for b in BLOCKS:
        if is_readme_commands(b):
            continue
        kind = b.marker[0] if b.marker else None
        if b.lang == "python" or (b.lang == "sh" and b.text.startswith("$ ")):
            assert kind in (None, "output varies"), b.id
        elif b.lang in ("c", "cpp"):
            assert kind == "from", f"{b.id}: a C/C++ snippet needs <!-- from: examples/... -->"
        else:
            assert kind == "not run" and b.marker[1], f"{b.id}: say why it is not run"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "python"], ids=lambda b: b.id)
def test_python_snippet(block, scratch):
    run_python(block, scratch)


@pytest.mark.parametrize(
    "block",
    [b for b in BLOCKS if b.lang == "sh" and b.text.startswith("$ ")],
    ids=lambda b: b.id,
)
def test_shell_snippet(block, scratch):
    run_shell(block, scratch)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang in ("c", "cpp")], ids=lambda b: b.id)
def test_c_and_cpp_snippets_are_built_examples(block):
    assert block.marker and block.marker[0] == "from", block.id
    source = REPO / block.marker[1]
    assert source.is_file(), f"{block.id}: {source} does not exist"
    assert lines_in_order(
        block.text, source.read_text()
    ), f"{block.id}: the snippet is not in {block.marker[1]} as written"
    # Built: named by the CMakeLists.txt of its folder or of a folder above it, or found by
    # one of the top CMakeLists.txt's source globs (the kernels, the passes).
    built = source in globbed_sources()
    for folder in [source.parent, *source.parent.parents]:
        cmake = folder / "CMakeLists.txt"
        if cmake.is_file() and source.relative_to(folder).as_posix() in cmake.read_text():
            built = True
        if folder == REPO:
            break
    assert built, f"{block.marker[1]} is not built by any CMakeLists.txt"


def globbed_sources() -> set:
    """The files the top CMakeLists.txt's file(GLOB ...) and file(GLOB_RECURSE ...) find."""
    found = set()
    text = (REPO / "CMakeLists.txt").read_text()
    for recurse, pattern in re.findall(
        r'file\(GLOB(_RECURSE)?\s+\w+\s+(?:CONFIGURE_DEPENDS\s+)?"\$\{PROJECT_SOURCE_DIR\}/([^"]+)"',
        text,
    ):
        folder, name = pattern.rsplit("/", 1)
        found |= set((REPO / folder).rglob(name) if recurse else (REPO / folder).glob(name))
    return found


def test_the_kernel_count_in_binary_size_md_is_current():
    out = subprocess.run(
        [str(BUILD / "onnx-light"), "ops"], capture_output=True, text=True, check=True
    ).stdout
    count = int(re.search(r"^(\d+) kernels$", out, re.M).group(1))
    page = (REPO / "docs" / "binary_size.md").read_text()
    stated = {int(n) for n in re.findall(r"\| (\d+) kernels \|", page)}
    assert count in stated and max(stated) == count, (count, stated)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v"]))
