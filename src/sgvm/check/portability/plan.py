"""Which variants a portability check runs for one launch, in which order.

Each kind of variant (``KINDS``) changes one implementation-defined choice of
``runtime.variant.Variant`` away from the baseline (sgvm's defaults). A kind the
kernel cannot observe is left out: sub-group sizes when the kernel requires one,
mappings in 1-D work-groups (every mapping agrees there), reduction orders without
a floating-point group reduction or scan, work-group orders with one work-group or
when no two work-groups shared global memory in the baseline run (``sharing``),
memory contents without local or private memory or uninitialised values, atomic
orders without atomics. The rest are interleaved kind by kind, so that
``--variants N`` keeps every kind represented.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ...runtime.ndrange import NDRange
from ...runtime.profiles import ALL_SUB_GROUP_SIZES
from ...runtime.variant import Variant

# kind → what it varies, as the report names it.
KINDS: dict[str, str] = {
    "sub-group-size": "sub-group size",
    "mapping": "mapping of work-items to sub-groups",
    "reduction-order": "order of floating-point reductions and scans",
    "group-order": "order in which work-groups run",
    "memory-init": "starting contents of local and private memory",
    "atomic-order": "order in which atomics take effect",
}

FLOAT_GROUP_OPS = frozenset({"OpGroupFAdd", "OpGroupFMin", "OpGroupFMax", "OpGroupNonUniformFAdd",
                             "OpGroupNonUniformFMul", "OpGroupNonUniformFMin",
                             "OpGroupNonUniformFMax"})


@dataclass(frozen=True)
class PlannedVariant:
    """One variant to run: its kind and the full setting."""

    kind: str
    variant: Variant

    @property
    def label(self) -> str:
        """``sub-group size 8``, ``mapping rows``, ``work-group order shuffle (seed 3)`` ..."""
        v = self.variant
        value = {"sub-group-size": str(v.sub_group_size), "mapping": v.mapping,
                 "reduction-order": v.reduction_order, "group-order": v.group_order,
                 "memory-init": v.memory_init, "atomic-order": v.atomic_order}[self.kind]
        if value == "shuffle":
            value += f" (seed {v.seed})"
        return f"{self.kind} {value}"


def _opnames(module: Any, kernel: str) -> set[str]:
    """The opcodes of ``kernel``'s function and every function it calls."""
    return {inst.opname for fn in module.kernel_functions(kernel) for blk in fn.blocks
            for inst in blk.instructions}


def plan(module: Any, kernel: str, prog: Any, ndrange: NDRange, base: Variant, *,
         required: bool, uses_local: bool, groups_share: bool = True) -> list[PlannedVariant]:
    """The variants worth running for this launch (module docstring), each ``base`` with one
    choice changed, interleaved by kind."""
    ops = _opnames(module, kernel)

    def others(name: str, values: tuple) -> list[Variant]:
        return [replace(base, **{name: v}) for v in values if v != getattr(base, name)]

    per_kind: dict[str, list[Variant]] = {k: [] for k in KINDS}
    if not required:
        per_kind["sub-group-size"] = others("sub_group_size", ALL_SUB_GROUP_SIZES)
    _, ly, lz = ndrange.local_size
    if ly * lz > 1:
        per_kind["mapping"] = others("mapping", ("linear", "rows", "columns"))
    if ops & FLOAT_GROUP_OPS:
        per_kind["reduction-order"] = others("reduction_order", ("lanes", "tree", "reversed"))
    if ndrange.total_groups > 1 and groups_share:
        per_kind["group-order"] = others("group_order", ("forward", "reversed", "shuffle"))
    if uses_local or prog.private_bytes or "OpUndef" in ops or _uses_undef(module, prog):
        per_kind["memory-init"] = others("memory_init", ("zeros", "pattern"))
    if any(op.startswith("OpAtomic") and op not in ("OpAtomicLoad", "OpAtomicStore") for op in ops):
        per_kind["atomic-order"] = others("atomic_order", ("lanes", "reversed", "shuffle"))
    out: list[PlannedVariant] = []
    rank = 0
    while any(rank < len(v) for v in per_kind.values()):
        out.extend(PlannedVariant(k, v[rank]) for k, v in per_kind.items() if rank < len(v))
        rank += 1
    return out


def _uses_undef(module: Any, prog: Any) -> bool:
    """Whether a module-scope OpUndef is among the kernel's registers' starting values."""
    return any(uid < len(prog.template) for uid in module.undefs)
