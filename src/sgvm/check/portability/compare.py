"""The memory a launch can change, saved, restored and compared between runs.

``Outputs`` names every buffer and image a launch receives (by its parameter
label) with the element type the kernel sees it as, so differences are reported
as elements (index, value in each run), and floating-point differences in ULPs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...runtime.args import BufferArg, ImageArg
from ...runtime.memory import Allocation

MAX_SHOWN = 4


@dataclass
class Output:
    """One buffer or image argument."""

    name: str
    allocation: Allocation
    dtype: np.dtype  # element type (uint8 when unknown)


@dataclass
class Difference:
    """How one output differs between the baseline and a variant."""

    output: str
    count: int  # differing elements
    total: int
    first: list[tuple[int, Any, Any]] = field(default_factory=list)  # (index, baseline, variant)
    max_ulp: int | None = None  # floats: the largest difference in units in the last place

    def to_dict(self) -> dict[str, Any]:
        return {"output": self.output, "count": self.count, "total": self.total,
                "first": [{"index": i, "baseline": a, "variant": b} for i, a, b in self.first],
                "max_ulp": self.max_ulp}


def _declared_dtype(type_name: str) -> np.dtype | None:
    """``float4*`` → float32: the element type a parameter's declaration names, if any."""
    from ...runtime.array_args import scalar_dtype

    base = type_name.replace("*", "").replace("const", "").replace("volatile", "").strip()
    base = base.rstrip("0123456789") if base[-1:].isdigit() else base
    try:
        return scalar_dtype(base)
    except (TypeError, ValueError):
        return None


def _element_dtype(pointee: Any, type_name: str = "") -> np.dtype:
    """The element type: the declaration's (``type_name``), else the SPIR-V pointee's (clang
    often lowers pointers to ``uchar*``: then bytes)."""
    from ...engine.common import types as T

    declared = _declared_dtype(type_name) if type_name else None
    if declared is not None:
        return declared
    while pointee is not None and pointee.op in ("Vector", "Array"):
        pointee = pointee.component
    if pointee is None or pointee.op not in ("Int", "Float"):
        return np.dtype(np.uint8)  # structs, pointers to pointers: compare bytes
    dtype = np.dtype(T.dtype_of(pointee))
    # SPIR-V integers are signless: show them as C's signed types, the common case
    return np.dtype(f"i{dtype.itemsize}") if dtype.kind == "u" else dtype


def outputs(args: list[Any], params: list[Any], labels: list[str],
            type_names: list[str] | None = None, program: Any = None) -> list[Output]:
    """The buffers and images among ``args``, then the program-scope globals the kernel uses
    (``engine.cpu.program.Program.global_variables``; they keep their contents across launches, so
    each run starts from the same ones); each allocation once."""
    out: list[Output] = []
    seen: set[int] = set()
    names = list(type_names or []) + [""] * len(params)
    for arg, param, label, type_name in zip(args, params, labels, names, strict=False):
        if isinstance(arg, BufferArg):
            alloc, dtype = arg.allocation, _element_dtype(param.type.pointee, type_name)
        elif isinstance(arg, ImageArg):
            alloc, dtype = arg.image.data, np.dtype(np.uint8)
        else:
            continue
        if alloc.id in seen or alloc.read_only:
            continue
        seen.add(alloc.id)
        out.append(Output(label, alloc, dtype))
    for vid, alloc in (program.global_variables() if program is not None else {}).items():
        if not alloc.read_only and alloc.id not in seen:
            seen.add(alloc.id)
            name = program.module.names.get(vid, f"%{vid}")
            var = program.module.variables[vid]
            out.append(Output(f"program-scope '{name}'", alloc, _element_dtype(var.pointee)))
    return out


def snapshot(outs: list[Output]) -> list[np.ndarray]:
    return [o.allocation.data.copy() for o in outs]


def restore(outs: list[Output], saved: list[np.ndarray]) -> None:
    for o, data in zip(outs, saved, strict=True):
        o.allocation.data[...] = data


def _ordered(bits: np.ndarray) -> np.ndarray:
    """IEEE bit patterns (signed view) as integers whose order and distance are the floats'
    (ULPs): sign-magnitude to two's complement."""
    b = bits.astype(np.int64)
    magnitude = np.int64(np.iinfo(bits.dtype).max)
    return np.where(b < 0, -(b & magnitude), b)


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in units in the last place of their float type (NaNs: max)."""
    signed = np.dtype(f"i{a.dtype.itemsize}")
    oa = _ordered(a.view(signed))
    ob = _ordered(b.view(signed))
    d = np.abs(oa - ob)
    nan = np.isnan(a) | np.isnan(b)
    return np.where(nan & ~(np.isnan(a) & np.isnan(b)), np.iinfo(np.int64).max, np.where(nan, 0, d))


def _py(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


def diff(o: Output, base: np.ndarray, now: np.ndarray) -> Difference | None:
    """The difference of one output between two runs (None: identical bytes)."""
    if np.array_equal(base, now):
        return None
    usable = len(base) - len(base) % o.dtype.itemsize
    dtype = o.dtype if usable == len(base) else np.dtype(np.uint8)
    a, b = base.view(dtype), now.view(dtype)
    differs = a != b
    if dtype.kind == "f":
        differs &= ~(np.isnan(a) & np.isnan(b))
        if not differs.any():  # only NaN payloads differ
            differs = a.view(f"u{dtype.itemsize}") != b.view(f"u{dtype.itemsize}")
    idx = np.flatnonzero(differs)
    first = [(int(i), _py(a[i]), _py(b[i])) for i in idx[:MAX_SHOWN]]
    max_ulp = int(ulps(a[idx], b[idx]).max()) if dtype.kind == "f" and len(idx) else None
    return Difference(o.name, int(len(idx)), int(len(a)), first, max_ulp)
