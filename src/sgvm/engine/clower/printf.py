"""printf in compiled code: the kernel appends records to a buffer, the host formats them.

Each call writes ``[global linear id, call site, format pointer, argument leaves…]``
(one 64-bit word each, ``sg_printf`` in each target's prelude) at a position an atomic
hands out, so one work-item's records keep its program order. The host sorts them by
global linear id (stably) and formats each with the NumPy engine's ``format_printf``
from the argument types of its call site, which gives the NumPy engine's output exactly
(OpenCL C 2.0 s6.13.13 leaves the order between work-items open; sgvm uses work-item
order on every device). Strings (the format, ``%s`` arguments) are read from the objects
the launch knows (``strings``: start address → contents): the module's constant ``i8``
arrays, and on the CPU its buffers too.

A kernel that reads the value printf returns is not rendered (``UnsupportedError``: the
native backend runs it on the NumPy engine, the CUDA backend refuses it). A target's
renderer provides ``printf_site(inst, types)`` (the call site's number) and
``printf_context`` (the C arguments before the site that say which work-item calls).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...spirv import Instruction, Module, Type
from ..common import types as T
from ..common.per_module import PerModule
from ..common.printf import format_printf, parse_format
from . import ctypes_ as C

CAPACITY = 1 << 20  # record words per launch (8 MiB)


def render(r: Any, inst: Instruction, ids: list[int]) -> None:
    """One printf call: its record, and 0 (success) as its value. Whether a format is
    valid is known only to the host's formatting, after the launch: a kernel that reads
    the value (-1 for an invalid format) is not rendered."""
    if inst.result_id in _operands(r.m):
        raise UnsupportedError(f"{r.target}: a kernel reading printf's value (0, or -1 "
                               "for an invalid format, known only after the launch)")
    fmt, args = ids[0], ids[1:]
    site = r.printf_site(inst, tuple(r.type_of(a) for a in args))
    words = [f"sg_bits({x})" for a in [fmt, *args] for x in r.leaves(a)]
    r.emit(f"{{ u64 pv_[{len(words)}] = {{{', '.join(words)}}}; "
           f"sg_printf({r.printf_context}, {site}u, {len(words)}u, pv_); }}")
    r.assign(inst, ["0u"])


EXT = {"printf": render}
_OPERANDS: PerModule[set[int]] = PerModule()


def _operands(m: Module) -> set[int]:
    """Every id some instruction of ``m`` reads (found once per module)."""
    per = _OPERANDS.of(m)
    if "ids" not in per:
        per["ids"] = {x for f in m.functions.values() for b in f.blocks for i in b.instructions
                      for x in i.ids()}
    return per["ids"]


def _string(ptr: int, strings: Mapping[int, bytes | np.ndarray]) -> str:
    for start, data in strings.items():
        if start <= ptr < start + len(data):
            rest = data[ptr - start:]
            if isinstance(rest, np.ndarray):
                end = np.flatnonzero(rest == 0)
                rest = bytes(rest[: end[0] if len(end) else len(rest)])
            return rest.split(b"\0")[0].decode("latin-1")
    raise ValueError(f"printf: {ptr:#x} is no constant string")


def _value(words: np.ndarray, t: Type) -> Any:
    """The argument of type ``t`` from its leaf words, as the NumPy engine holds it."""
    lt = C.leaf_types(t)
    dt = T.dtype_of(lt[0]) if lt[0].op != "Pointer" else np.dtype(np.uint64)
    raw = words[: len(lt)].astype(f"u{dt.itemsize}").view(dt)
    return raw if t.op == "Vector" else raw[0]


def format_records(records: np.ndarray, sites: list[tuple[Type, ...]],
                   strings: Mapping[int, bytes | np.ndarray]) -> str:
    """The output of a launch from its record words: ``[words used, capacity, records…]``."""
    used = int(records[0])
    words = records[2:2 + min(used, CAPACITY)]
    if used > CAPACITY:
        warnings.warn(f"printf: output beyond {CAPACITY * 8} bytes of records was dropped",
                      stacklevel=3)
    out: list[tuple[int, str]] = []
    pos = 0
    while pos + 2 <= len(words):
        gl, site = int(words[pos]), int(words[pos + 1])
        types = sites[site]
        n = 1 + sum(len(C.leaf_types(t)) for t in types)
        if pos + 2 + n > len(words):
            break
        vals = words[pos + 2: pos + 2 + n]
        pos += 2 + n
        try:
            fmt = _string(int(vals[0]), strings)
            specs = [s for s in parse_format(fmt) if not isinstance(s, str)]
            args, k = [], 1
            for i, t in enumerate(types):
                width = len(C.leaf_types(t))
                v = _value(vals[k:k + width], t)
                k += width
                args.append(_string(int(v), strings) if i < len(specs) and specs[i].conv == "s"
                            else v)
            out.append((gl, format_printf(fmt, args)))
        except ValueError:  # an invalid format prints nothing (printf returns -1 on the CPU)
            continue
    out.sort(key=lambda x: x[0])
    return "".join(s for _, s in out)


def buffer(capacity: int = CAPACITY) -> np.ndarray:
    """A fresh host record buffer: [words used, capacity, records…]."""
    buf = np.zeros(2 + capacity, np.uint64)
    buf[1] = capacity
    return buf
