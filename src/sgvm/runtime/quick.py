"""``sgvm.run``: one call from OpenCL C (or SPIR-V) and NumPy arrays to results.

>>> out = np.zeros(1024, np.float32)
>>> sgvm.run(src, "scale", (1024,), None, out, np.float32(2.0))   # out is updated in place
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .launch import LaunchResult

# OpenCL C scalar type names → NumPy dtypes (OpenCL C 3.0 s6.3.1, "Built-in Scalar Data Types").
OPENCL_SCALARS: dict[str, np.dtype] = {
    name: np.dtype(dt) for name, dt in {
        "bool": np.bool_, "char": np.int8, "uchar": np.uint8, "unsigned char": np.uint8,
        "short": np.int16, "ushort": np.uint16, "unsigned short": np.uint16,
        "int": np.int32, "uint": np.uint32, "unsigned int": np.uint32, "unsigned": np.uint32,
        "long": np.int64, "ulong": np.uint64, "unsigned long": np.uint64,
        "size_t": np.uint64, "ptrdiff_t": np.int64, "intptr_t": np.int64, "uintptr_t": np.uint64,
        "half": np.float16, "float": np.float32, "double": np.float64,
    }.items()
}


def scalar_dtype(name: str) -> np.dtype:
    """A NumPy dtype from an OpenCL C scalar name ("uint") or a NumPy name ("uint32")."""
    key = " ".join(name.split())
    if key in OPENCL_SCALARS:
        return OPENCL_SCALARS[key]
    dtype = np.dtype(key)
    if dtype.kind not in "biuf":
        raise TypeError(f"{name!r} is not a scalar type")
    return dtype


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
    if not isinstance(prg, cl.Program):
        prg = cl.Program(ctx, source_or_program)
    if not prg.built:
        prg.build(options)
    return prg


def run(source_or_program: Any, kernel: str, global_size: Any, local_size: Any = None, *args: Any,
        options: str = "", global_offset: Any = None, profile: bool = False) -> LaunchResult:
    """Build (OpenCL C source, SPIR-V bytes or a ``cl.Program``) and run ``kernel`` once.

    NumPy arrays passed for pointer parameters are bound as global buffers and
    updated in place; by-value parameters take NumPy scalars (Python numbers are
    converted to the parameter's OpenCL C type when it is a plain scalar);
    ``cl.LocalMemory`` or an int of bytes for ``__local`` parameters. Returns the
    :class:`~sgvm.runtime.launch.LaunchResult` (``printf`` output, step counts);
    printf output is also written to stdout. Errors are ``sgvm.cl`` errors.
    ``profile=True`` builds source with ``-g`` and fills ``LaunchResult.profile``
    with the message profile (docs/visa.md).
    """
    from .. import cl

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
    bound, write_back = [], []
    for p, value in zip(knl.params, args, strict=True):
        if p.kind in ("global", "constant") and isinstance(value, np.ndarray):
            host = value if value.flags.c_contiguous and value.flags.writeable else np.ascontiguousarray(value)
            flags = cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR
            bound.append(cl.Buffer(ctx, flags, hostbuf=host) if host.nbytes else None)
            if host is not value and value.flags.writeable:
                write_back.append((value, host))
        elif p.kind == "local" and isinstance(value, int):
            bound.append(cl.LocalMemory(value))
        elif p.kind == "value" and isinstance(value, (bool, int, float)) and not isinstance(value, np.generic) \
                and p.type_name in OPENCL_SCALARS:
            bound.append(OPENCL_SCALARS[p.type_name].type(value))
        else:
            bound.append(value)
    event = knl(queue, global_size, local_size, *bound, global_offset=global_offset)
    queue.finish()
    for value, host in write_back:
        value[...] = host
    return event.result if event.result is not None else LaunchResult()
