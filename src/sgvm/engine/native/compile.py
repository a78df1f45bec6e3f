"""C++ → a shared library with the ``ziglang`` wheel's clang (``zig cc -x c++``), loaded
with ctypes and cached on disk (docs/native.md, "Compiling").

* Flags: ``-O3`` (zig hands every ``-O`` level to clang as ``-O2``, its ReleaseFast)
  without fast-math and with ``-ffp-contract=off`` (OpenCL forbids contracting ``a*b+c``
  unless the program allows it; clang already turned allowed contractions into ``fma``),
  no C++ library, no exceptions, no debug information (``-g0``: zig emits it by default,
  and it cost a quarter of the compile time). ``-cgpp-huge-func=1000``: LLVM's
  CodeGenPrepare revisits only the blocks it changed in a function of more than 1000
  blocks (its default: 10000); a kernel of 72 sub-group built-ins took clang 79 s, 45 of
  them there, and takes 41 s, while every benchmark kernel's machine code is the same.
* Target: an explicit CPU level chosen from what this CPU reports (``target()``:
  ``x86_64_v4`` with AVX-512, ``x86_64_v3`` with AVX2 and FMA, ``x86_64_v2``, else the
  baseline), part of the cache key, so a cache shared between machines never serves code
  built for a CPU this one lacks.
* Cache: ``<sgvm cache>/native/<key>.so`` where the key hashes the source (which holds
  the module's code, the sub-group size and whether checks are on), the flags, the
  target and the compiler's version; a process keeps loaded libraries by key. Processes
  sharing the cache build a library once: the first holds ``<key>.lock`` (``flock``, where
  the OS has it) while it builds, the others wait for it and load its result (pytest's
  workers compiled the differential suite's largest modules twice, side by side).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.util
import os
import platform
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: processes may build the same library side by side
    fcntl = None  # type: ignore[assignment]

from ...compiler.cache import cache_dir, digest
from ...errors import BuildError

FLAGS = ("-x", "c++", "-std=c++17", "-O3", "-ffp-contract=off", "-fno-exceptions", "-fno-rtti",
         "-fno-math-errno", "-mprefer-vector-width=512", "-fPIC", "-shared", "-w", "-g0",
         "-mllvm", "-cgpp-huge-func=1000")
_LOADED: dict[str, ctypes.CDLL] = {}
_LOCK = threading.Lock()


def _zig() -> list[str]:
    spec = importlib.util.find_spec("ziglang")
    if spec is None or not spec.submodule_search_locations:
        raise BuildError("", what="the native backend needs the 'ziglang' package (its clang)")
    return [str(Path(spec.submodule_search_locations[0]) / ("zig.exe" if os.name == "nt" else "zig"))]


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith(("flags", "Features")):
            return set(line.split(":", 1)[1].split())
    return set()


@functools.cache
def target() -> str:
    """The ``-mcpu`` level code is built for (see the module docstring)."""
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64"):
        return "baseline"
    flags = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "avx2", "fma", "bmi2"} <= flags:
        return "x86_64_v4"
    if {"avx2", "fma", "bmi1", "bmi2", "f16c", "movbe"} <= flags:
        return "x86_64_v3"
    if {"sse4_2", "popcnt", "ssse3"} <= flags:
        return "x86_64_v2"
    return "baseline"


@functools.cache
def _version() -> str:
    out = subprocess.run([*_zig(), "version"], capture_output=True, text=True, timeout=60)
    return out.stdout.strip()


def cache_key(source: str) -> str:
    return digest(source, " ".join(FLAGS), target(), _version())


def library(source: str) -> ctypes.CDLL:
    """The loaded shared library built from ``source`` (compiled on a cache miss)."""
    key = cache_key(source)
    lib = _LOADED.get(key)
    if lib is not None:
        return lib
    with _LOCK:
        lib = _LOADED.get(key)
        if lib is None:
            path = cache_dir() / "native" / f"{key}.so"
            if not path.exists():
                with _held(path.with_suffix(".lock")):
                    if not path.exists():  # another process may have built it meanwhile
                        _build(source, path)
            lib = _LOADED[key] = ctypes.CDLL(str(path))
    return lib


@contextlib.contextmanager
def _held(lock: Path) -> Iterator[None]:
    """An exclusive lock on file ``lock`` across processes (none without ``fcntl``)."""
    if fcntl is None:
        yield
        return
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _build(source: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".tmp-", dir=path.parent) as tmp:
        src = Path(tmp) / "kernel.cpp"
        src.write_text(source)
        out = Path(tmp) / "kernel.so"
        cmd = [*_zig(), "cc", *FLAGS, f"-mcpu={target()}", str(src), "-o", str(out)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            raise BuildError("clang did not finish in 600 s",
                             what="the native backend's C++ did not compile") from None
        if proc.returncode != 0:
            raise BuildError(proc.stderr[-4000:], what="the native backend's C++ did not compile")
        os.replace(out, path)


def available() -> bool:
    """The ``ziglang`` wheel (its clang) is installed."""
    return importlib.util.find_spec("ziglang") is not None
