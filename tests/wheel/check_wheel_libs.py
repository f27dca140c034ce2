"""Checks that a wheel is self-contained: every shared object in it needs only the system's
glibc, libstdc++ and libgcc_s, or a library bundled in the wheel that its RPATH reaches.

    python tests/wheel/check_wheel_libs.py dist/onnx_light-*.whl

Prints each shared object with its size and needs; exits 1 on anything else.
"""

from __future__ import annotations

import io
import posixpath
import sys
import zipfile

from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

# What a manylinux wheel may take from the system (PEP 600: glibc and the GCC runtimes).
SYSTEM = {
    "libc.so.6",
    "libm.so.6",
    "libdl.so.2",
    "librt.so.1",
    "libpthread.so.0",
    "ld-linux-x86-64.so.2",
    "libstdc++.so.6",
    "libgcc_s.so.1",
}


def dynamic(data: bytes) -> tuple[list[str], list[str]]:
    elf = ELFFile(io.BytesIO(data))
    needed: list[str] = []
    rpaths: list[str] = []
    for section in elf.iter_sections():
        if isinstance(section, DynamicSection):
            for tag in section.iter_tags():
                if tag.entry.d_tag == "DT_NEEDED":
                    needed.append(tag.needed)
                elif tag.entry.d_tag in ("DT_RPATH", "DT_RUNPATH"):
                    rpaths += (tag.rpath if tag.entry.d_tag == "DT_RPATH" else tag.runpath).split(
                        ":"
                    )
    return needed, rpaths


def main() -> int:
    wheel = zipfile.ZipFile(sys.argv[1])
    names = set(wheel.namelist())
    problems: list[str] = []
    shared = [n for n in sorted(names) if n.endswith(".so") or ".so." in posixpath.basename(n)]
    if not shared:
        problems.append("no shared object in the wheel")
    # No BLAS: the matrix products are onnx-light's own (OpenBLAS and its Fortran runtime
    # were 41 MB of the installed wheel before they left the build).
    for name in shared:
        base = posixpath.basename(name)
        if any(lib in base for lib in ("openblas", "gfortran", "quadmath")):
            problems.append(f"{name}: a BLAS library in the wheel")
    for name in shared:
        data = wheel.read(name)
        needed, rpaths = dynamic(data)
        folder = posixpath.dirname(name)
        reach = [
            posixpath.normpath(posixpath.join(folder, r.replace("$ORIGIN", "."))) for r in rpaths
        ]
        bundled, system, missing = [], [], []
        for lib in needed:
            if lib in SYSTEM:
                system.append(lib)
            elif any(posixpath.join(d, lib) in names for d in reach + [folder]):
                bundled.append(lib)
            else:
                missing.append(lib)
        print(f"{name} ({len(data) / 2**20:.1f} MiB)")
        print(f"    system:  {' '.join(system)}")
        print(f"    bundled: {' '.join(bundled) or '-'}")
        for r in rpaths:
            if not r.startswith("$ORIGIN"):
                problems.append(f"{name}: RPATH {r} points outside the wheel")
        for lib in missing:
            problems.append(f"{name} needs {lib}, neither a system library nor in the wheel")
    for p in problems:
        print("check_wheel_libs:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
