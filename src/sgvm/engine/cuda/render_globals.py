"""Program-scope variables as initialised ``__device__`` objects (docs/cuda.md).

A variable's initialiser becomes bytes, packed as every backend packs it (``engine.common.values``). Leaves
that hold another global's address (the global itself, a cast of it, ``global + k``
folded into an OpSpecConstantOp, a pointer stored as ``ulong``) become ``char *``
members initialised with that address, so the variable is a struct of byte arrays
and pointers with the same layout; NVRTC emits the relocations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...spirv import Module, Type
from ..common import types as T
from ..common.constants import byte_offset
from ..common.values import constant_value, pack, zero

_SAME_ADDRESS = ("OpConvertPtrToU", "OpConvertUToPtr", "OpBitcast", "OpPtrCastToGeneric",
                 "OpGenericCastToPtr")


class GlobalInit:
    """The initialiser of one program-scope variable: its bytes and its address leaves."""

    def __init__(self, module: Module, builtins: dict[int, str]):
        self.m = module
        self.builtins = builtins

    def address(self, cid: int) -> str | None:
        """A C constant expression for the address value ``cid``, else None."""
        m = self.m
        var = m.variables.get(cid)
        if var is not None and cid not in self.builtins and var.storage_class != "Workgroup":
            return f"((char*)&g{cid})"
        c = m.constants.get(cid)
        if c is None or c.op != "OpSpecConstantOp":
            return None
        opname, (base, *rest) = c.value["opcode"], c.value["operands"]
        inner = self.address(base)
        if inner is None:
            return None
        if opname in _SAME_ADDRESS:
            return inner
        off = byte_offset(m, c)
        if off is None and opname in ("OpIAdd", "OpISub") and rest:
            k = self._int(rest[0])
            off = None if k is None else (k if opname == "OpIAdd" else -k)
        if off is None and "AccessChain" in opname:
            off = self._chain(m.type_of(base).pointee, opname, rest)
        return None if off is None else f"({inner} + {off}LL)"

    def _int(self, cid: int) -> int | None:
        c = self.m.constants.get(cid)
        if c is None or c.type.op != "Int" or c.op not in ("OpConstant", "OpConstantNull"):
            return None
        v = int(c.value or 0)
        return v - (1 << c.type.width) if v >> (c.type.width - 1) else v

    def _chain(self, t: Type, opname: str, idx: list[int]) -> int | None:
        """The byte offset of an access chain with constant indexes."""
        off = 0
        if "Ptr" in opname:
            k = self._int(idx[0])
            if k is None:
                return None
            off, idx = k * T.size_of(t), idx[1:]
        for i in idx:
            k = self._int(i)
            if k is None:
                return None
            if t.op == "Struct":
                off += T.member_offsets(t)[k]
                t = t.members[k]
            else:
                t = t.component
                off += k * T.size_of(t)
        return off

    def value(self, t: Type, cid: int, off: int, ptrs: list[tuple[int, str]]) -> Any:
        """The register value of constant ``cid`` with address leaves zero, recorded in
        ``ptrs`` as (byte offset, C expression)."""
        expr = self.address(cid)
        if expr is not None:
            if T.size_of(t) != 8 or off % 8:
                raise UnsupportedError("CUDA backend: an address initialising a 32-bit value")
            ptrs.append((off, expr))
            return zero(t)
        c = self.m.constants.get(cid)
        if c is not None and c.op == "OpSpecConstantOp" and c.value["opcode"] in _SAME_ADDRESS:
            inner = self.m.constants.get(c.value["operands"][0])  # a cast null pointer
            if inner is not None and inner.op == "OpConstantNull":
                return zero(t)
        if c is None or c.op == "OpSpecConstantOp":
            raise UnsupportedError(f"CUDA backend: program-scope initialiser %{cid}")
        if c.value is None or c.op == "OpConstantNull":
            return zero(t)
        if t.op == "Struct":
            offs = T.member_offsets(t)
            return tuple(self.value(mt, i, off + o, ptrs)
                         for mt, i, o in zip(t.members, c.value, offs, strict=True))
        if t.op == "Array":
            size = T.size_of(t.component)
            return tuple(self.value(t.component, i, off + k * size, ptrs)
                         for k, i in enumerate(c.value))
        if t.op == "Vector":
            return np.array([constant_value(self.m, self.m.constants[i], {}) for i in c.value],
                            dtype=T.dtype_of(t))
        return constant_value(self.m, c, {})

    def declaration(self, vid: int, t: Type, init: int | None) -> tuple[str, bytes]:
        """The ``__device__`` declaration of variable ``vid`` and its initial bytes."""
        size = max(T.size_of(t), 1)
        ptrs: list[tuple[int, str]] = []
        data = b""
        if init is not None:
            data = bytes(pack(t, self.value(t, init, 0, ptrs), 1).tobytes())
        if not ptrs:
            body = " = {" + ",".join(str(b) for b in data) + "}" if data else ""
            return f"__device__ __align__(16) u8 g{vid}[{size + 16}]{body};", data  # 16 spare bytes
        fields, inits, at = [], [], 0
        for off, expr in sorted(ptrs) + [(size, "")]:
            if off > at:
                fields.append(f"u8 b{at}[{off - at}];")
                inits.append("{" + ",".join(str(b) for b in data[at:off]) + "}")
            if expr:
                fields.append(f"char *p{off};")
                inits.append(expr)
            at = off + 8
        return (f"struct __align__(16) sg_g{vid} {{ {' '.join(fields)} }};\n"
                f"__device__ sg_g{vid} g{vid} = {{{', '.join(inits)}}};", data)
