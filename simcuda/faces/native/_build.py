"""Compile ``libcuda.so.1`` from ``libcuda.c`` with the system C compiler (used by ``setup.py`` at install time).

Standard library only, and importable by path: ``setup.py`` loads this file without importing the package
(whose dependencies need not be installed in the build environment). ``python -m simcuda.faces.native._build``
rebuilds the library in place, e.g. after editing ``libcuda.c`` in an editable install.

:func:`build` never raises for a missing compiler, another OS or a failed compile: it writes the reason to
``build-status.txt`` next to where the library would be, so ``simcuda.faces.native.available()`` can say why the
native route is unavailable after an install that succeeded without it.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SOURCES = ("libcuda.c", "entries.h", "libnvml.c", "nvml_entries.h", "shim.h", "libnvrtc_shim.c",
           "libnvjitlink_shim.c")
LIBRARY = "libcuda.so.1"
#: the libraries built, each (file and soname, C source): the driver, the NVML front end (simcuda.faces.native.nvml),
#: and the compiler shims that take the PTX of NVIDIA's NVRTC's and nvJitLink's CUBINs (simcuda.faces.native.compilers)
LIBRARIES = (("libcuda.so.1", "libcuda.c"), ("libnvidia-ml.so.1", "libnvml.c"),
             ("libnvrtc.so.13", "libnvrtc_shim.c"), ("libnvJitLink.so.13", "libnvjitlink_shim.c"))
#: extra link flags per library (the shims dlopen the real compiler library; the driver finds the interpreter
#: with dlsym)
LINK_EXTRA = {"libcuda.so.1": ["-ldl"], "libnvrtc.so.13": ["-ldl"], "libnvJitLink.so.13": ["-ldl"]}
STATUS = "build-status.txt"
CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-fPIC", "-shared", "-fvisibility=hidden"]
LDFLAGS = ["-Wl,--no-undefined"]


def source_digest(folder: pathlib.Path = HERE) -> str:
    """SHA-256 (hex) of the library's sources in ``folder``, in :data:`SOURCES` order ("" when one is missing)."""
    h = hashlib.sha256()
    for name in SOURCES:
        path = folder / name
        if not path.is_file():
            return ""
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def find_compiler() -> tuple[list[str] | None, str]:
    """The C compiler command (``$CC`` split like a shell, else ``cc`` or ``gcc`` on ``PATH``), or ``None`` and why."""
    cc = os.environ.get("CC", "").strip()
    if cc:
        argv = shlex.split(cc)
        if shutil.which(argv[0]) is None:
            where = "there" if os.sep in argv[0] else "on PATH"
            return None, f"CC={cc!r} is set but {argv[0]!r} is not an executable {where}"
        return argv, f"CC={cc!r}"
    for name in ("cc", "gcc"):
        path = shutil.which(name)
        if path is not None:
            return [path], path
    return None, "no C compiler: CC is unset and neither cc nor gcc is on PATH"


def write_status(target: pathlib.Path, built: bool, detail: str, digest: str) -> None:
    """Write ``build-status.txt`` in ``target``: ``built`` or ``not built``, the detail line, the source digest."""
    (target / STATUS).write_text(f"{'built' if built else 'not built'}\n{detail}\n{digest}\n")


def build(target: pathlib.Path, source: pathlib.Path = HERE, log: bool = True) -> tuple[bool, str]:
    """Compile ``source/libcuda.c`` into ``target/libcuda.so.1``; returns (built, what happened).

    Nothing here raises for an expected failure (not Linux, no compiler, the compile failing): the install
    goes on without the library, and the reason is both printed (when ``log``) and kept in ``build-status.txt``.
    The library is written to a temporary name and renamed over the old one, so a process that has the old
    one mapped keeps a consistent file.
    """
    target.mkdir(parents=True, exist_ok=True)
    digest = source_digest(source)
    if not sys.platform.startswith("linux"):
        ok, why = False, f"the native library is built on Linux only (this is {sys.platform})"
    elif not digest:
        ok, why = False, f"the library's sources ({', '.join(SOURCES)}) are not all in {source}"
    else:
        argv, found = find_compiler()
        if argv is None:
            ok, why = False, found
        else:
            ok, why = _compile(argv, source, target, digest)
    write_status(target, ok, why, digest)
    if log:
        word = "built" if ok else "NOT built (simcuda's Python faces work without it)"
        print(f"simcuda: native libcuda.so.1 {word}: {why}", file=sys.stderr)
    return ok, why


def _compile(argv: list[str], source: pathlib.Path, target: pathlib.Path, digest: str) -> tuple[bool, str]:
    """Run the compiler for each of :data:`LIBRARIES`; (True, the libraries' paths) or (False, the complaint)."""
    built = []
    for library, c_file in LIBRARIES:
        fd, tmp = tempfile.mkstemp(prefix=f".{library}-", suffix=".so", dir=target)
        os.close(fd)
        cmd = [*argv, *CFLAGS, f'-DSIMCUDA_SOURCE_DIGEST="{digest}"', f"-I{source}", "-o", tmp,
               str(source / c_file), f"-Wl,-soname,{library}", *LDFLAGS, *LINK_EXTRA.get(library, [])]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.SubprocessError) as e:
            os.unlink(tmp)
            return False, f"running the C compiler ({argv[0]}) failed: {e}"
        if r.returncode != 0:
            os.unlink(tmp)
            tail = (r.stderr or r.stdout).strip().splitlines()[-5:]
            return False, f"the C compiler ({argv[0]}) failed on {c_file}: " + " | ".join(tail)
        os.chmod(tmp, 0o755)
        os.replace(tmp, target / library)
        built.append(str(target / library))
    return True, f"{', '.join(built)} (compiled with {argv[0]})"


if __name__ == "__main__":
    built, _why = build(HERE)
    raise SystemExit(0 if built else 1)
