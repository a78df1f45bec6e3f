"""Memory checks the lane loops can vectorise: each pointer's object known from the code
(docs/native.md, "Memory errors").

A pointer whose object is known (``engine/common/origins.py``: a kernel argument, a
program-scope variable or a ``__local`` variable or argument) is checked against that one
object with two compares and a mask: no call, no branch, so clang still vectorises the lane
loop, and a pointer stepped from one buffer into the next faults as on the NumPy engine.
A faulting access is skipped (a load gives 0) and the lane notes its first faulting site
and address in two locals; after the loop, the lanes that noted one record their fault
(``sg_flush`` in ``prelude.h``), which keeps the lowest faulting work-item as before.
Pointers of other origins (private arrays, pointers read from buffers or built from
integers) take the general per-region check ``sg_ok``.
"""

from __future__ import annotations

from ..common.origins import Origins


def prologue(o: Origins, local_offsets: dict[int, int], local_sizes: dict[int, int],
             params_words: dict[int, int]) -> list[str]:
    """C declaring, per object slot, its start, size and read-only flag (``sg_lo<s>``,
    ``sg_sz<s>``, ``sg_ro<s>``) and the table ``sg_rt`` the fault report reads."""
    lines = [f"  u64 sg_rt[{max(3 * len(o.slots), 3)}];"]
    for s, (kind, x) in enumerate(o.slots):
        if kind == "param":
            lo, sz, ro = (f"sgc->preg[{3 * x + k}]" for k in range(3))
        elif kind == "global_var":
            lo, sz, ro = (f"sgc->preg[3 * sgc->nparams + {3 * x + k}]" for k in range(3))
        elif kind == "local_arg":
            lo = f"(u64)sg_local + sg_args[{params_words[x]}]"
            sz, ro = f"sgc->preg[{3 * x + 1}]", "0"
        else:
            lo, sz, ro = f"(u64)sg_local + {local_offsets[x]}", str(local_sizes[x]), "0"
        lines.append(f"  const u64 sg_lo{s} = {lo}, sg_sz{s} = {sz}, sg_ro{s} = {ro};")
        lines.append(f"  sg_rt[{3 * s}] = sg_lo{s}; sg_rt[{3 * s + 1}] = sg_sz{s}; "
                     f"sg_rt[{3 * s + 2}] = sg_ro{s};")
    return lines


def site_table(o: Origins, symbol: str) -> str:
    """The kernel's access sites: {bytes, alignment, kind, slot, local} each."""
    rows = ", ".join(f"{{{n}u, {al}u, {k}u, {s}u, {int(o.slots[s][0].startswith('local'))}u}}"
                     for n, al, k, s in o.sites) or "{0u, 0u, 0u, 0u, 0u}"
    return f"static const u32 {symbol}_sites[][5] = {{{rows}}};"


def bare(o: Origins, ptr: int, p: str, nbytes: int | str, align: int, kind: int) -> str | None:
    """The test of one access through pointer ``ptr`` (C expression ``p``) against its
    object, or None when the object is unknown."""
    s = o.of.get(ptr)
    if s is None or not isinstance(nbytes, int):
        return None
    base = "(u64)sg_local" if o.slots[s][0].startswith("local") else f"sg_lo{s}"
    ro = f" && !sg_ro{s}" if kind else ""
    return f"SG_IN({p}, {nbytes}u, {align}u, sg_lo{s}, sg_sz{s}, {base}){ro}"


def condition(o: Origins, ptr: int, p: str, nbytes: int, align: int, kind: int) -> str:
    """``bare``'s test as a new access site that notes a lane's first fault (SG_CK)."""
    test = bare(o, ptr, p, nbytes, align, kind)
    s = o.of[ptr]
    return f"SG_CK({o.site(nbytes, align, kind, s)}u, {test}, {p}, sg_lo{s})"


def direct(o: Origins, ptr: int, p: str, nbytes: int | str, align: int, kind: int) -> str | None:
    """``bare``'s test recording a fault at once (sg_miss: a call, so no vectorising; for the
    loops over a sub-group's lanes), or None when the object is unknown."""
    test = bare(o, ptr, p, nbytes, align, kind)
    if test is None:
        return None
    s = o.of[ptr]
    local = int(o.slots[s][0].startswith("local"))
    return f"({test} || sg_miss(sg_g, l, (u64)({p}), {nbytes}u, {kind}u, sg_rt, {s}u, {local}u))"
