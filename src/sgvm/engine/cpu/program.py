"""A module + kernel prepared for execution: decoded functions, constants,
memory layout of variables. Built once and cached per (module, kernel).

* ``template``: the register list every frame starts from (constants, undefs,
  pointers to program-scope globals); the launch adds kernel arguments,
  per-batch local pointers and ``batch_constants``.
* Module-scope constants and variables are taken in definition order, so an
  OpSpecConstantOp may use a variable's address (``(ulong)table + z``) and an
  initialiser such a constant. Those depending on a ``Workgroup`` variable
  (a per-work-group address) are ``batch_constants``, evaluated per batch.
* Program-scope ``CrossWorkgroup``/``UniformConstant`` variables get one
  Allocation per module (initialised from their OpConstant* initializers) and
  keep their contents across launches, as OpenCL program-scope globals do.
* ``Workgroup`` variables that the kernel uses (``Module.entry_point_variables``:
  its function and those it calls, not other kernels') and the ``Function``
  variables of the functions it calls (found while decoding them) each get an
  ``arenas.Arena`` per batch: one copy per work-group or per work-item.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...runtime.memory import Allocation
from ...spirv import Module, Type
from ..common import types as T
from ..common.values import constant_value, pack, zero
from . import spec_constants
from .decode import Context, DFunction, decode_function

_GLOBALS: weakref.WeakKeyDictionary[Module, dict[int, Allocation]] = weakref.WeakKeyDictionary()


def _align(n: int, a: int) -> int:
    return -(-n // a) * a


class Program:
    """See the module docstring."""

    def __init__(self, module: Module, kernel: str):
        self.module = module
        self.kernel = kernel
        ep = module.entry_point(kernel)
        self.entry_point = ep
        # Registers exist for defined ids only: a large declared bound costs nothing.
        self.template: list[Any] = [None] * (max(module.defs, default=0) + 1)
        self.builtin_vars: dict[int, str] = module.builtin_variables()
        self.builtin_loads: dict[int, str] = {}
        self.affine_builtin_loads: set[int] = set()
        self.ctx = Context(module, self)
        # Workgroup variable → (name, bytes, alignment); local_bytes: their sum, aligned.
        self.local_vars: dict[int, tuple[str, int, int]] = {}
        self.local_bytes = 0
        # OpSpecConstantOps on local addresses, in order: (id, fn(regs, batch) → value).
        self.batch_constants: list[tuple[int, Callable[[list, Any], Any]]] = []
        # Function variables of the functions this kernel calls: (name, bytes, alignment),
        # indexed by ``private_variable``; private_bytes: the bytes one work-item needs.
        self.private_vars: list[tuple[str, int, int]] = []
        self.private_index: dict[int, int] = {}
        self.private_bytes = 0
        self._module_scope()
        self._scan_functions()
        self.functions: dict[int, DFunction] = {}
        self._wanted: list[int] = [ep.function]
        while self._wanted:
            fid = self._wanted.pop()
            if fid not in self.functions:
                fn = module.functions[fid]
                if fn.is_declaration:
                    raise UnsupportedError(f"call to undefined function '{fn.name or fid}'")
                self.functions[fid] = None  # type: ignore[assignment]  # recursion guard
                self.functions[fid] = decode_function(self.ctx, fn)
        self.entry: DFunction = self.functions[ep.function]

    def private_variable(self, vid: int, t: Type) -> int:
        """The index of ``Function`` variable ``vid`` (pointee type ``t``) in ``private_vars``
        (called while decoding, so only the functions the kernel calls count)."""
        k = self.private_index.get(vid)
        if k is None:
            size, align = T.size_of(t), max(T.align_of(t), 1)
            k = self.private_index[vid] = len(self.private_vars)
            self.private_vars.append((self.module.names.get(vid) or f"%{vid}", size, align))
            self.private_bytes += _align(max(size, 1), align)
        return k

    def want_function(self, fid: int) -> None:
        if fid not in self.functions:
            self._wanted.append(fid)

    def _module_scope(self) -> None:
        """Constants and module-scope variables, in definition order (module docstring)."""
        m = self.module
        for uid, t in m.undefs.items():  # first: constant composites may use OpUndef
            self.template[uid] = zero(t)
        used = m.entry_point_variables(self.kernel)  # local memory: this kernel's variables only
        per_batch: set[int] = set()  # ids whose value differs between batches
        absent: set[int] = set()  # other kernels' local variables and constants on them
        for inst in m.instructions:
            if inst.opname == "OpFunction":
                break
            rid = inst.result_id
            c = m.constants.get(rid)
            if c is not None and c.op == "OpSpecConstantOp":
                refs = set(inst.ids())
                if absent & refs:
                    absent.add(rid)
                elif per_batch & refs:
                    per_batch.add(rid)
                    self.batch_constants.append((rid, spec_constants.build(self.ctx, c).fn))
                else:
                    self.template[rid] = spec_constants.evaluate(self.ctx, c)
            elif c is not None:
                self.template[rid] = constant_value(m, c, self.template)
            elif rid in m.variables and rid not in self.builtin_vars:
                self._variable(rid, used, per_batch, absent)
        self.local_bytes = _align(self.local_bytes, 16)

    def _variable(self, vid: int, used: set[int], per_batch: set[int], absent: set[int]) -> None:
        """Place module-scope variable ``vid``: a global allocation, or an offset in
        the work-group region (added to ``per_batch``; ``absent`` when unused)."""
        var = self.module.variables[vid]
        sc = var.storage_class
        if sc in ("CrossWorkgroup", "UniformConstant"):
            allocs = _GLOBALS.get(self.module)
            if allocs is None:
                allocs = _GLOBALS[self.module] = {}
            a = allocs.get(vid)
            if a is None:
                a = allocs[vid] = self._global_allocation(vid, var.pointee, var.initializer, sc)
            self.template[vid] = np.uint64(a.base)
        elif sc != "Workgroup":
            raise UnsupportedError(f"module-scope variable in storage class {sc}")
        elif vid not in used:
            absent.add(vid)
        else:
            al, size = max(T.align_of(var.pointee), 1), T.size_of(var.pointee)
            self.local_bytes = _align(self.local_bytes, al) + size
            self.local_vars[vid] = (self.module.names.get(vid) or f"%{vid}", size, al)
            per_batch.add(vid)

    def global_variables(self) -> dict[int, Allocation]:
        """The program-scope global variables this kernel uses: variable id → allocation
        (shared by every kernel of the module, kept across launches)."""
        allocs = _GLOBALS.get(self.module, {})
        return {vid: a for vid, a in allocs.items() if self.template[vid] == np.uint64(a.base)}

    def _global_allocation(self, vid: int, t: Type, init: int | None, sc: str) -> Allocation:
        size = T.size_of(t)
        data = np.zeros(max(size, 1), np.uint8)
        if init is not None:
            data[:size] = pack(t, self.template[init], 1)
        name = self.module.names.get(vid, f"%{vid}")
        space = "constant" if sc == "UniformConstant" else "global"
        return Allocation(data, space, name, read_only=space == "constant")

    def _scan_functions(self) -> None:
        """Find loads of built-in variables."""
        m = self.module
        self.whole_builtin_uses: set[int] = set()  # builtin loads used other than by extraction
        for fn in m.functions.values():
            for block in fn.blocks:
                for inst in block.instructions:
                    if inst.opname not in ("OpCompositeExtract", "OpVectorExtractDynamic"):
                        self.whole_builtin_uses.update(inst.ids())
        for fn in m.functions.values():
            for block in fn.blocks:
                for inst in block.instructions:
                    if inst.opname == "OpLoad" and inst.operands[0].value in self.builtin_vars:
                        name = self.builtin_vars[inst.operands[0].value]
                        self.builtin_loads[inst.result_id] = name
                        if name in ("GlobalInvocationId", "LocalInvocationId"):
                            self.affine_builtin_loads.add(inst.result_id)


def program_for(module: Module, kernel: str) -> Program:
    """The cached Program of ``kernel`` in ``module`` (kept in ``module.derived``: a Program
    refers to its module, so a table keyed weakly by the module would keep it alive)."""
    per = module.derived.setdefault("cpu.programs", {})
    prog = per.get(kernel)
    if prog is None:
        prog = per[kernel] = Program(module, kernel)
    return prog
