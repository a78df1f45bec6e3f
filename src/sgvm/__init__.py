"""sgvm — run OpenCL kernels that use sub-groups on any machine, exactly as specified.

Entry points:

* :func:`sgvm.compile` — OpenCL C → SPIR-V (clang's SPIR-V backend).
* :mod:`sgvm.spirv` — read, write, disassemble and validate SPIR-V modules.
* :mod:`sgvm.cl` — a PyOpenCL-compatible host API.
* :func:`sgvm.run` — one call from source and NumPy arrays to results.
"""

from __future__ import annotations

from .errors import (
    BuildError,
    KernelMemoryError,
    KernelTimeout,
    SgvmError,
    SpirvFormatError,
    SpirvValidationError,
    UnsupportedError,
)

__version__ = "0.1.0"

__all__ = [
    "BuildError",
    "KernelMemoryError",
    "KernelTimeout",
    "SgvmError",
    "SpirvFormatError",
    "SpirvValidationError",
    "UnsupportedError",
    "compile",
    "__version__",
]


def __getattr__(name: str):
    # Lazy imports keep `import sgvm` cheap and free of import cycles.
    if name == "compile":
        from .compiler import compile as _compile

        return _compile
    if name == "run":
        from .runtime.quick import run as _run

        return _run
    raise AttributeError(f"module 'sgvm' has no attribute {name!r}")
