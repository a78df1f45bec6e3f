"""Building the ICD library with cffi's embedding mode and the ziglang wheel's clang.

cffi writes the C source of a shared library whose exported OpenCL functions
start (or reuse) a Python interpreter and call :mod:`sgvm.icd.entry`. The
library lands in the user cache with its vendor file (``sgvm.icd``, one line:
the library's absolute path, as OpenCL_ICD_Installation.txt describes) in a
``vendors/`` folder of its own, so ``OCL_ICD_VENDORS`` can name exactly sgvm.

Three things make it work in every host process:

* it links libpython and re-opens it ``RTLD_GLOBAL`` on load: ICD loaders open
  drivers ``RTLD_LOCAL``, and the extension modules the interpreter imports later
  (``_cffi_backend``, NumPy) need libpython's symbols globally in a C process;
* ``-Wl,-Bsymbolic``: the dispatch table must point at sgvm's own ``clGetPlatformInfo``
  etc., not at the loader's exported functions of the same names;
* the interpreter's ``sys.path`` in a C process is the base interpreter's, so the
  library carries the path entries of the interpreter that built it.
"""

from __future__ import annotations

import contextlib
import io
import os
import site
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..compiler.cache import cache_dir, digest
from ..errors import SgvmError
from . import capi

MODULE = "_sgvm_icd"
LIBRARY_NAME = "libsgvm_icd.so"
VENDOR_FILE = "sgvm.icd"


class IcdBuildError(SgvmError):
    """The ICD library could not be built."""


@dataclass(frozen=True)
class IcdPaths:
    """Where the library and its vendor file live."""

    library: Path
    vendor_file: Path

    @property
    def vendors_dir(self) -> Path:
        """The folder holding only sgvm's vendor file (a value for ``OCL_ICD_VENDORS``)."""
        return self.vendor_file.parent

    @property
    def built(self) -> bool:
        return self.library.is_file() and self.vendor_file.is_file()


_PRELUDE = r"""
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
"""

_DECLARATIONS = r"""
typedef struct { void *dispatch; } sgvm_object;
void *clGetExtensionFunctionAddress(const char *);
void *clGetExtensionFunctionAddressForPlatform(cl_platform_id, const char *);
"""

_SET_ASIDE = r"""
static int sgvm_set_aside(PyObject **t, PyObject **v, PyObject **tb) {
    if (!Py_IsInitialized()) return 0;
    PyGILState_STATE g = PyGILState_Ensure();
    int saved = PyErr_Occurred() != NULL;
    if (saved) PyErr_Fetch(t, v, tb);
    PyGILState_Release(g);
    return saved;
}
static void sgvm_restore(PyObject *t, PyObject *v, PyObject *tb) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyErr_Restore(t, v, tb);
    PyGILState_Release(g);
}
"""

_SUPPORT = r"""
static sgvm_object sgvm_platform_object = { (void *)sgvm_dispatch_table };
void *sgvm_dispatch(void) { return (void *)sgvm_dispatch_table; }
void *sgvm_platform(void) { return &sgvm_platform_object; }

static void sgvm_at_exit(void);
static void sgvm_run_exit_hook(void) {
    if (Py_IsInitialized()) sgvm_at_exit();  /* a C host: Python is never finalised */
}
void sgvm_register_exit_hook(void) { atexit(sgvm_run_exit_hook); }

__attribute__((constructor)) static void sgvm_promote_libpython(void) {
    Dl_info info;
    if (dladdr((void *)&Py_IsInitialized, &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}
"""

_HELPERS_CDEF = """
typedef struct { void *dispatch; } sgvm_object;
void *sgvm_dispatch(void);
void *sgvm_platform(void);
void sgvm_register_exit_hook(void);
extern "Python" void sgvm_at_exit(void);
"""


def _sgvm_root() -> str:
    """The folder holding the ``sgvm`` package this library serves."""
    return str(Path(__file__).resolve().parents[2])


def _baked_paths() -> list[str]:
    """This interpreter's site-packages folders (NumPy, cffi, their ``.pth`` files): a C host's
    interpreter starts with the base installation's (``PYTHONPATH`` still applies there)."""
    return [p for p in site.getsitepackages() if os.path.isdir(p)]


def _init_code(root: str, paths: list[str]) -> str:
    return (
        "import site, sys\n"
        f"for _p in {paths!r}:\n"
        "    if _p not in sys.path:\n"
        "        site.addsitedir(_p)\n"
        f"if 'sgvm' not in sys.modules and {root!r} not in sys.path:\n"
        f"    sys.path.insert(0, {root!r})\n"
        f"from {MODULE} import ffi, lib\n"
        "from sgvm.icd.entry import install\n"
        "install(ffi, lib)\n"
    )


def _c_source() -> str:
    return (_PRELUDE + capi.TYPES + capi.ENTRY_POINTS + capi.embedded_api() + _DECLARATIONS + _SET_ASIDE
            + capi.c_wrappers() + capi.dispatch_table_c() + capi.extension_lookup_c() + _SUPPORT)


def _python_lib() -> tuple[str, str]:
    """(folder, link name) of the shared libpython."""
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        raise IcdBuildError(
            f"{sys.executable} has no shared libpython (built without --enable-shared); the sgvm ICD "
            "embeds Python and needs it: use an interpreter built with --enable-shared (pyenv: "
            "PYTHON_CONFIGURE_OPTS=--enable-shared)")
    libdir = sysconfig.get_config_var("LIBDIR")
    name = f"python{sysconfig.get_config_var('LDVERSION')}"
    return libdir, name


def paths() -> IcdPaths:
    """The cache paths for this sgvm checkout, interpreter and ICD source."""
    import cffi

    root = _sgvm_root()
    key = digest(_c_source(), _init_code(root, _baked_paths()), sys.executable, sys.version,
                 cffi.__version__)[:16]
    base = cache_dir() / "icd" / key
    return IcdPaths(base / LIBRARY_NAME, base / "vendors" / VENDOR_FILE)


def _zig_cc() -> list[str]:
    return [sys.executable, "-m", "ziglang", "cc"]


def build(force: bool = False) -> IcdPaths:
    """Build the library and vendor file unless they exist (``force``: always)."""
    where = paths()
    if where.built and not force:
        return where
    import cffi

    ffi = cffi.FFI()
    ffi.cdef(capi.TYPES)
    ffi.embedding_api(capi.embedded_api())
    ffi.cdef(_HELPERS_CDEF)
    ffi.set_source(MODULE, _c_source())
    ffi.embedding_init_code(_init_code(_sgvm_root(), _baked_paths()))
    libdir, pylib = _python_lib()
    where.library.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=where.library.parent) as tmp:
        c_file = Path(tmp) / f"{MODULE}.c"
        with contextlib.redirect_stdout(io.StringIO()):  # cffi prints "generating …"
            ffi.emit_c_code(str(c_file))
        out = Path(tmp) / LIBRARY_NAME
        cmd = [*_zig_cc(), "-shared", "-fPIC", "-O1", "-w", f"-I{sysconfig.get_paths()['include']}",
               str(c_file), "-o", str(out), f"-L{libdir}", f"-l{pylib}", f"-Wl,-rpath,{libdir}",
               "-Wl,-Bsymbolic", "-ldl"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise IcdBuildError(f"compiling the sgvm ICD failed ({' '.join(cmd[:4])} …):\n{proc.stderr.strip()}")
        os.replace(out, where.library)
    where.vendor_file.parent.mkdir(parents=True, exist_ok=True)
    tmp_vendor = where.vendor_file.with_suffix(".tmp")
    tmp_vendor.write_text(f"{where.library}\n")
    os.replace(tmp_vendor, where.vendor_file)
    return where

