"""CUDA's own errors, raised by CuPy, become sgvm errors (``errors.RuntimeError``).

A kernel the GPU stops (an illegal instruction or address, a trap) leaves the CUDA
context unusable: CUDA reports the error on that launch's synchronisation and on every
CUDA call after it in the process. sgvm's generated code is meant never to do this (its
bounds checks report faults as ``KernelMemoryError`` before they happen), so such an error
is a defect of the CUDA backend; the message says so and what still works.
"""

from __future__ import annotations

from ...errors import RuntimeError as ClRuntimeError

# CuPy's exceptions for a CUDA driver or runtime API call that failed (cupy_backends).
_CUDA_ERRORS = frozenset({"CUDADriverError", "CUDARuntimeError"})


def cuda_failure(exc: BaseException, what: str) -> ClRuntimeError | None:
    """The ``CL_OUT_OF_RESOURCES`` error to raise for ``exc`` if it is one of CuPy's CUDA
    errors (``what``: the kernel run or the buffer copied), else None. Callers catch and
    convert rather than wrap every launch in a context manager, which costs a
    microsecond a launch."""
    kind = type(exc)
    if kind.__name__ not in _CUDA_ERRORS or not kind.__module__.startswith("cupy"):
        return None
    return ClRuntimeError(
        f"the GPU failed {what}: {exc}. The CUDA context is lost: every later CUDA "
        "operation in this process fails too. sgvm's CUDA code should never do this; run "
        "the kernel with SGVM_DEVICE=cpu (or `sgvm check`) to see whether it misbehaves, "
        "and report it otherwise", "CL_OUT_OF_RESOURCES")
