"""``sgvm.run``: one call from OpenCL C (or SPIR-V) and NumPy arrays to results.

>>> out = np.zeros(1024, np.float32)
>>> sgvm.run(src, "scale", (1024,), None, out, np.float32(2.0))   # out is updated in place
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import numpy as np

from . import residency
from .launch import LaunchResult

SPIRV_MAGIC = (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03")


def read_program_file(path: str | os.PathLike[str]) -> str | bytes:
    """A program file's contents: SPIR-V bytes (recognised by the magic number) or OpenCL C
    text, which gets a ``#line`` directive so diagnostics and source lines name the file."""
    from ..cl._base import cl_error

    name = os.fspath(path)
    data = Path(name).read_bytes()
    if data[:4] in SPIRV_MAGIC:
        return data
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:
        raise cl_error("CL_INVALID_VALUE", f"{name} is neither SPIR-V nor UTF-8 OpenCL C text (byte {exc.start} "
                       f"is {data[exc.start]:#04x}); save the source as UTF-8", "sgvm.run") from None
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line 1 "{escaped}"\n{text}'


def _is_path(source: Any) -> bool:
    """``sgvm.run``'s first argument names a file: a ``Path``, or a one-line string ending in
    ``.cl``, ``.clc`` or ``.spv`` (OpenCL C source always has more than that)."""
    if isinstance(source, os.PathLike):
        return True
    return isinstance(source, str) and "\n" not in source and \
        source.strip().lower().endswith((".cl", ".clc", ".spv"))


@functools.lru_cache(maxsize=1)
def _context() -> Any:
    from .. import cl

    ctx = cl.create_some_context()
    return ctx, cl.CommandQueue(ctx)


@functools.lru_cache(maxsize=1)
def _profiling_queue() -> Any:
    from .. import cl

    ctx, _ = _context()
    return cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)


def _program(source_or_program: Any, options: str) -> Any:
    from .. import cl

    ctx, _ = _context()
    prg = source_or_program
    if _is_path(prg):
        prg = read_program_file(prg.strip() if isinstance(prg, str) else prg)
    if not isinstance(prg, cl.Program):
        prg = cl.Program(ctx, prg)
    if not prg.built:
        prg.build(options)
    return prg


def run(source_or_program: Any, kernel: str, global_size: Any, local_size: Any = None, *args: Any,
        options: str = "", global_offset: Any = None, profile: bool = False) -> LaunchResult:
    """Build (OpenCL C source, SPIR-V bytes, a path to a ``.cl`` or ``.spv`` file, or a
    ``cl.Program``) and run ``kernel`` once.

    NumPy arrays passed for pointer parameters are bound as global buffers and
    updated in place (on every device); their elements must be the pointee type
    (``check_array``). By-value parameters take NumPy scalars (Python numbers are
    converted to the parameter's OpenCL C type when it is a plain scalar and fits);
    ``cl.LocalMemory`` or an int of bytes for ``__local`` parameters. Returns the
    :class:`~sgvm.runtime.launch.LaunchResult` (``printf`` output, step counts);
    printf output is also written to stdout. Errors are ``sgvm.cl`` errors.
    ``profile=True`` builds source with ``-g`` and fills ``LaunchResult.profile``
    with the message profile (docs/visa.md).
    """
    from .. import cl
    from .array_args import OPENCL_SCALARS, check_array, python_number

    if profile and "-g" not in options.split():
        options = f"{options} -g".strip()
    prg = _program(source_or_program, options)
    ctx, queue = _context()
    if profile:
        queue = _profiling_queue()
    knl = cl.Kernel(prg, kernel)
    if len(args) != len(knl.params):
        names = ", ".join(p.name for p in knl.params)
        raise cl.LogicError(f"kernel '{kernel}' takes {len(knl.params)} arguments ({names}), got {len(args)}",
                            "CL_INVALID_KERNEL_ARGS", "sgvm.run")
    bound, buffers, write_back = [], [], []
    for p, value in zip(knl.params, args, strict=True):
        if p.kind in ("global", "constant") and isinstance(value, np.ndarray):
            check_array(p, value)
            host = value if value.flags.c_contiguous and value.flags.writeable else np.ascontiguousarray(value)
            flags = cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR
            buf = cl.Buffer(ctx, flags, hostbuf=host) if host.nbytes else None
            bound.append(buf)
            if buf is not None:
                buffers.append(buf)
            if host is not value and value.flags.writeable:
                write_back.append((value, host))
        elif p.kind == "local" and isinstance(value, int):
            bound.append(cl.LocalMemory(value))
        elif p.kind == "value" and isinstance(value, (bool, int, float)) and not isinstance(value, np.generic) \
                and p.type_name in OPENCL_SCALARS:
            bound.append(python_number(p, value))
        else:
            bound.append(value)
    event = knl(queue, global_size, local_size, *bound, global_offset=global_offset)
    queue.finish()
    for buf in buffers:  # a device with its own memory (CUDA) copies the results back into the arrays
        residency.host_access(buf.allocation)
    for value, host in write_back:
        value[...] = host
    return event.result if event.result is not None else LaunchResult()
