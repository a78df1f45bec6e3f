"""Finding Intel's CPU runtime and writing the vendor file the ICD loader needs.

The ``intel-opencl-rt`` wheel installs ``libintelocl.so`` into ``<prefix>/lib`` and an
``intel-cpu.icd`` whose path is a build-machine placeholder. The Khronos ICD loader
reads vendor files from the folder ``OCL_ICD_VENDORS`` names; the runtime finds its
compiler libraries through ``LD_LIBRARY_PATH``, which the dynamic loader reads only at
process start — so the oracle always runs in a child process started with
:func:`environment`.
"""

from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path

RUNTIME_LIBRARY = "libintelocl.so"
VENDOR_FILE = "intel-cpu.icd"
PACKAGES = ("intel-opencl-rt", "intel-cmplr-lib-rt", "pyopencl")


class OracleSetupError(Exception):
    """The oracle is not installed, or not usable on this machine."""


def runtime_library() -> Path:
    """The absolute path of ``libintelocl.so`` from the ``intel-opencl-rt`` wheel."""
    if sys.platform != "linux":
        raise OracleSetupError(f"Intel's CPU runtime for OpenCL runs on x86-64 Linux only, "
                               f"not {sys.platform}")
    try:
        files = metadata.files("intel-opencl-rt") or []
    except metadata.PackageNotFoundError:
        raise OracleSetupError("the oracle is not installed: pip install 'sgvm[oracle]'") from None
    for f in files:
        if f.name == RUNTIME_LIBRARY:
            path = Path(f.locate()).resolve()
            if path.exists():
                return path
    raise OracleSetupError(f"intel-opencl-rt is installed but its {RUNTIME_LIBRARY} is missing; "
                           "reinstall it: pip install --force-reinstall intel-opencl-rt")


def missing_packages() -> list[str]:
    """The distributions of ``sgvm[oracle]`` that are not installed."""
    out = []
    for name in PACKAGES:
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            out.append(name)
    return out


def vendor_folder() -> Path:
    """``<user cache>/sgvm/oracle/vendors`` holding an ``intel-cpu.icd`` that names the
    installed runtime library (rewritten whenever it names another one)."""
    missing = missing_packages()
    if missing:
        raise OracleSetupError(f"the oracle is not installed (missing {', '.join(missing)}): "
                               "pip install 'sgvm[oracle]'")
    library = runtime_library()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "sgvm" / "oracle" / "vendors"
    icd = folder / VENDOR_FILE
    text = f"{library}\n"
    if not icd.exists() or icd.read_text() != text:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = icd.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        tmp.replace(icd)
    return folder


def environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a process that reaches the oracle through PyOpenCL: only the
    vendor file folder for the ICD loader, the runtime's lib folder first on the library path."""
    env = dict(os.environ if base is None else base)
    env["OCL_ICD_VENDORS"] = str(vendor_folder())
    lib = str(runtime_library().parent)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (lib, env.get("LD_LIBRARY_PATH")) if p)
    env.pop("OPENCL_VENDOR_PATH", None)
    return env
