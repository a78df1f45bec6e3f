"""Entry points: how a C call reaches Python and how Python failures become CL error codes.

``@api`` registers an implementation under its C name. Whatever an implementation
raises never reaches the host: an :class:`sgvm.Error` becomes its own code, a
kernel fault or an unsupported construct CL_OUT_OF_RESOURCES / CL_INVALID_OPERATION
(always told on stderr: a failed launch must not pass silently), and any other
exception CL_OUT_OF_HOST_MEMORY. ``SGVM_VERBOSE=1`` prints one line per failed call.
All calls take one lock, so host threads may call in concurrently.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from ..errors import CL_ERROR_CODES, Error, KernelMemoryError, KernelTimeout, UnsupportedError
from . import state

IMPLEMENTATIONS: dict[str, tuple[Callable[..., Any], str]] = {}  # C name → (function, kind)

STATUS, CREATE, POINTER, VOID = "status", "create", "pointer", "void"


def _verbose() -> bool:
    return os.environ.get("SGVM_VERBOSE", "").strip() not in ("", "0")


def report(exc: BaseException, routine: str) -> int:
    """The CL error code for ``exc``, telling stderr where it must (see the module docstring)."""
    if isinstance(exc, Error):
        code, loud = exc.code, False
    elif isinstance(exc, (KernelMemoryError, KernelTimeout)):
        code, loud = CL_ERROR_CODES["CL_OUT_OF_RESOURCES"], True
    elif isinstance(exc, UnsupportedError):
        code, loud = CL_ERROR_CODES["CL_INVALID_OPERATION"], True
    else:
        code, loud = CL_ERROR_CODES["CL_OUT_OF_HOST_MEMORY"], True
    if loud or _verbose():
        text = " ".join(str(exc).split()) or type(exc).__name__
        sys.stderr.write(f"sgvm: {routine}: {type(exc).__name__}: {text}\n")
        sys.stderr.flush()
    return code


def api(kind: str = STATUS) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn`` as the entry point of the same name.

    ``STATUS``: returns cl_int (None means CL_SUCCESS). ``CREATE``: the last C argument is
    ``errcode_ret``; returns a handle or pointer, NULL on error. ``POINTER``: returns a pointer,
    NULL on error (clSVMAlloc). ``VOID``: nothing to report (clSVMFree)."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        IMPLEMENTATIONS[fn.__name__] = (fn, kind)
        return fn

    return register


def _wrap(fn: Callable[..., Any], kind: str, ffi: Any) -> Callable[..., Any]:
    """The function cffi calls: ``fn`` under the lock, failures turned into codes. The lock,
    ``ffi`` and the fallback code are bound here, so calls during interpreter shutdown (a host
    releasing objects from destructors) still find them."""
    name, lock, null = fn.__name__, state.LOCK, ffi.NULL
    out_of_memory = CL_ERROR_CODES["CL_OUT_OF_HOST_MEMORY"]

    def failed(exc: BaseException) -> int:
        try:
            return report(exc, name)
        except BaseException:  # noqa: BLE001 - e.g. no stderr left at shutdown
            return out_of_memory

    def status_call(*args: Any) -> int:
        with lock:
            try:
                result = fn(*args)
            except BaseException as exc:  # noqa: BLE001 - nothing may reach the host
                return failed(exc)
            return 0 if result is None else result

    def create_call(*args: Any) -> Any:
        errcode = args[-1]
        with lock:
            try:
                result, code = fn(*args[:-1]), 0
            except BaseException as exc:  # noqa: BLE001
                result, code = null, failed(exc)
            if errcode != null:
                errcode[0] = code
            return result

    def plain_call(*args: Any) -> Any:
        with lock:
            try:
                return fn(*args)
            except BaseException as exc:  # noqa: BLE001
                failed(exc)
                return null if kind == POINTER else None

    return {STATUS: status_call, CREATE: create_call}.get(kind, plain_call)


def install(ffi: Any, lib: Any) -> None:
    """Called by the library's embedded init code: bind every entry point."""
    state.ffi, state.lib = ffi, lib
    from . import (  # noqa: F401 - each module registers its entry points
        api_context,
        api_image,
        api_kernel,
        api_memory,
        api_platform,
        api_program,
        api_queue,
        api_svm,
    )
    from .capi import PY_PREFIX, entry_point_names
    from .exit_report import at_exit, install_exit_hooks

    missing = [n for n in entry_point_names() if n not in IMPLEMENTATIONS]
    if missing:
        raise RuntimeError(f"sgvm ICD: entry points without an implementation: {', '.join(missing)}")
    for name in entry_point_names():
        ffi.def_extern(name=PY_PREFIX + name)(_wrap(*IMPLEMENTATIONS[name], ffi))
    ffi.def_extern(name="sgvm_at_exit")(at_exit)
    install_exit_hooks(lib)
