"""Sub-group regions: blocks that run one sub-group at a time (docs/native.md, "Sub-group
regions").

A *region* is an interval ``[lo, hi]`` of consecutive blocks (in ``block_order``) none of
which holds a work-group barrier, a work-group collective or an atomic, and no edge of
which leads below ``lo``. When the lowest block some lane of the work-group waits at lies
in a region, each sub-group in turn runs the region's blocks by itself, lowest block of the
sub-group first, until all its lanes wait past ``hi`` (or have returned). Within the
sub-group the lanes still advance in lock-step, so its collectives see the lanes the
work-group scheduler gives them; what differs is only the interleaving of the sub-groups'
memory accesses, which a kernel without data races cannot observe.

A value defined in a region and live in no block outside it lives in a local array of one
sub-group's lanes (``r24[l - sg_o]``, ``sg_o`` the sub-group's first lane), which clang
keeps in registers through a loop; the other values stay lane arrays of the frame.
"""

from __future__ import annotations

from ...spirv import Block, Function, Instruction
from ..clower import ctypes_ as C
from ..clower.ops import constant_int, ids
from ..common.block_order import block_order, successors

SUBGROUP = 3
BUNDLE = 256  # lanes a bundle holds at most (whole sub-groups; docs/native.md)
# lanes a unit of work-groups of a kernel of one block holds at most (``groups``): its one
# scheduler step per unit is all the unit's fixed cost, and no loop or lane array grows with
# it (the vector add 4M, work-groups of 256: 2.4 → 2.1 ms; a loop's kernel was 30% slower
# in units of 1024 lanes)
STRAIGHT = 2048
_GROUP = {"OpGroupIAdd", "OpGroupFAdd", "OpGroupSMin", "OpGroupUMin", "OpGroupFMin",
          "OpGroupSMax", "OpGroupUMax", "OpGroupFMax", "OpGroupAll", "OpGroupAny",
          "OpGroupBroadcast", "OpControlBarrier"}


def lock_step(r, inst: Instruction) -> bool:
    """Whether ``inst`` makes its block run for the whole work-group in lock-step: a
    barrier or collective of wider than Subgroup scope, or an atomic (whose order between
    sub-groups a kernel without data races can observe)."""
    o = inst.opname
    if o.startswith("OpAtomic"):
        return True
    if o in _GROUP:
        return constant_int(r, ids(inst)[0]) != SUBGROUP
    return False


def bundle(sub_group_size: int) -> int:
    """The lanes of one bundle: whole sub-groups, ``BUNDLE`` lanes or one sub-group."""
    return max(BUNDLE, sub_group_size)


# Built-ins that step by a constant along a row of one work-group but not along a row of
# several (a kernel reading them runs its work-groups one at a time, its addresses affine)
_OWN_GROUP = {"LocalInvocationId", "LocalInvocationIndex", "WorkgroupId"}


def groupable(r, f: Function) -> bool:
    """Whether work-groups of kernel ``f`` may run together, as one unit of lanes in lock-step
    (docs/native.md, "Work-groups together"): no instruction needs its work-group's lock-step
    apart from other work-groups' (``lock_step``: work-group barriers and collectives,
    atomics), and none reads the local id, local linear id or group id (``_OWN_GROUP``).
    The caller checks that the kernel has no local memory (each work-group's own)."""
    return not any(lock_step(r, i) or any(r.builtins.get(x) in _OWN_GROUP for x in i.ids())
                   for b in f.blocks for i in b.instructions)


def groups(local_size: tuple[int, ...], global_size: tuple[int, ...], sub_group_size: int,
           lanes: int = BUNDLE) -> int:
    """How many work-groups of a groupable kernel run together: the most consecutive ones in
    dimension 0 that fit ``lanes`` (a bundle, ``BUNDLE``, or ``STRAIGHT`` for a kernel of
    one block) and divide the count of groups in dimension 0, so that none is split between
    two units; 1 unless every work-group is full and a whole number of sub-groups (so that
    no unit holds padding lanes)."""
    vol = 1
    for n in local_size:
        vol *= n
    if vol % sub_group_size or any(g % n for g, n in zip(global_size, local_size, strict=True)):
        return 1
    across = global_size[0] // local_size[0]
    return max(w for w in range(1, max(lanes // vol, 1) + 1) if across % w == 0)


# The built-ins a kernel may read and still not observe how its NDRange is cut into
# work-groups (``blind``): every other one (local and group ids, sizes and counts of
# work-groups and sub-groups) depends on the cut
_GLOBAL = {"GlobalInvocationId", "GlobalSize", "GlobalOffset", "GlobalLinearId", "WorkDim"}
# lanes of a row a blind kernel's work-groups are re-cut into at most (``rows``): the 2-D
# stencil of cpu_bench.py in work-groups of 16×16, two threads, median of 20 launches in
# separate processes alternated three times: 9.6–10.2 ms as launched, 8.6–10.2 in rows of
# 256 lanes, 8.3–8.9 of 512, 7.9–9.7 of 1024 (best 8.8–9.6, 8.1–8.6, 7.5–8.2, 7.4–7.6)
ROWS = 1024


def blind(r, f: Function) -> bool:
    """Whether kernel ``f`` cannot observe how its NDRange is cut into work-groups, so that
    the launcher may run it in rows of its own choosing (docs/native.md, "Rows"): it reads no
    built-in but the global ones (``_GLOBAL``), holds no barrier (a sub-group barrier orders
    the accesses of a sub-group, whose lanes the rows change), no group or sub-group
    instruction (``OpGroup…``, ``OpSubgroup…``: shuffles, votes, block IO) and no loop (rows
    were measured on loop-free kernels only). The caller checks that its work-groups may run
    together (``groupable``: no local memory, barrier or atomic) and that it has no printf
    (output past the buffer is dropped: which records fit depends on the order the
    work-groups run in)."""
    order = {label: k for k, label in enumerate(block_order(f))}  # a loop's edge goes back
    succ = successors(f)
    for b in f.blocks:
        if any(order[s] <= order[b.label] for s in succ[b.label] if b.label in order):
            return False
        for i in b.instructions:
            if i.opname.startswith(("OpGroup", "OpSubgroup", "OpControlBarrier")) or any(
                    r.builtins.get(x, "GlobalInvocationId") not in _GLOBAL for x in i.ids()):
                return False
    return True


def rows(local_size: tuple[int, ...], global_size: tuple[int, ...], sub_group_size: int,
         private: bool) -> tuple[int, ...] | None:
    """The local size a blind kernel's launch runs with instead of ``local_size`` when its
    work-groups have several rows: rows of the most lanes up to ``ROWS`` (``private``: a
    kernel with private memory, up to its work-group's lanes, so that its private arena does
    not grow) that divide the global size of dimension 0 into whole sub-groups, longer than
    the rows it had; None to keep it."""
    if local_size[1] * local_size[2] == 1:
        return None
    g = global_size[0]
    most = local_size[0] * local_size[1] * local_size[2] if private else ROWS
    w = max((w for w in range(sub_group_size, min(most, g) + 1, sub_group_size) if g % w == 0),
            default=0)
    return (w, 1, 1) if w > local_size[0] else None


def group_macros(together: bool | None) -> list[str]:
    """The C macros of a kernel whose work-groups may run together or not: the lanes of a row
    (``SG_ROW``: one row of all of them where the work-groups are rows, 1-D in their local
    ids, so that the global id runs on from one to the next) and a row's work-group among
    those run together (``sg_wi``, from ``sg_wof`` or the plane ``p`` of the pre-pass); for
    a single work-group the code is as before. None: their ``#undef``."""
    if together is None:
        return ["#undef SG_ROW", "#undef SG_WI", "#undef SG_Z", "#undef SG_W"]
    if together:
        return ["#define SG_ROW (sg_lsz1 * sg_lsz2 == 1 ? sg_vol : (u32)sg_lsz0)",
                "#define SG_WI(w) (w)", "#define SG_Z(p) sg_lid2[(p) * sg_ny * sg_row]",
                "#define SG_W(p) sg_wof[(p) * sg_ny * sg_row]"]
    return ["#define SG_ROW ((u32)sg_lsz0)", "#define SG_WI(w) 0u", "#define SG_Z(p) (p)",
            "#define SG_W(p) 0u"]


def intervals(r, f: Function, blocks: list[Block]) -> list[tuple[int, int]]:
    """The regions of ``blocks`` (in block order) that hold a loop, as (lo, hi) block
    numbers."""
    index = {b.label: k for k, b in enumerate(blocks)}
    succ = successors(f)
    out: list[tuple[int, int]] = []
    lo = None
    for k, b in enumerate(blocks):
        targets = [index[s] for s in succ[b.label] if s in index]
        bad = any(lock_step(r, i) for i in b.instructions) or \
            min(targets, default=k) < (k if lo is None else lo)
        if bad:
            if lo is not None:
                out.append((lo, k - 1))
            lo = None
        elif lo is None:
            lo = k
    if lo is not None:
        out.append((lo, len(blocks) - 1))
    # only regions with a loop in them: straight code gains nothing from a bundle's own
    # scheduler and pays for its local arrays (measured: docs/native.md)
    return [(a, b) for a, b in out if any(
        a <= index[s] <= k for k in range(a, b + 1) for s in succ[blocks[k].label] if s in index)]


def live_in(f: Function, blocks: list[Block]) -> dict[int, set[int]]:
    """Per block label, the SSA values live on entry (phi operands count as used at the
    end of the predecessor they come from)."""
    defined = {i.result_id for b in blocks for i in b.instructions if i.result_id is not None}
    succ = successors(f)
    use: dict[int, set[int]] = {}
    defs: dict[int, set[int]] = {}
    phi_use: dict[int, set[int]] = {b.label: set() for b in blocks}  # pred → operands
    for b in blocks:
        u: set[int] = set()
        d: set[int] = set()
        for inst in b.instructions:
            if inst.opname == "OpPhi":
                for op in inst.operands:
                    value, pred = op.value
                    if value in defined and pred in phi_use:
                        phi_use[pred].add(value)
            else:
                u |= {i for i in inst.ids() if i in defined and i not in d}
            if inst.result_id is not None:
                d.add(inst.result_id)
        use[b.label], defs[b.label] = u, d
    live: dict[int, set[int]] = {b.label: set() for b in blocks}
    changed = True
    while changed:
        changed = False
        for b in reversed(blocks):
            out = set(phi_use[b.label])
            for s in succ[b.label]:
                out |= live.get(s, set())
            new = use[b.label] | (out - defs[b.label])
            if new != live[b.label]:
                live[b.label], changed = new, True
    return live


def local_values(r, f: Function, blocks: list[Block], regions: list[tuple[int, int]]
                 ) -> dict[int, int]:
    """The lane-array values each region can keep in sub-group local arrays: value → the
    region's number. Defined in the region (a phi: every predecessor in it too) and live in
    no block outside it."""
    if not regions:
        return {}
    region_of = {k: n for n, (lo, hi) in enumerate(regions) for k in range(lo, hi + 1)}
    index = {b.label: k for k, b in enumerate(blocks)}
    live = live_in(f, blocks)
    outside: set[int] = set()
    for b in blocks:
        if index[b.label] not in region_of:
            outside |= live[b.label]
    out: dict[int, int] = {}
    for k, b in enumerate(blocks):
        n = region_of.get(k)
        if n is None:
            continue
        for inst in b.instructions:
            vid = inst.result_id
            if vid is None or r.storage.get(vid) != "lane" or vid in outside:
                continue
            if inst.opname == "OpPhi" and any(
                    region_of.get(index.get(op.value[1], -1)) != n for op in inst.operands):
                continue
            out[vid] = n
    return out


def declarations(r, values: list[int]) -> list[str]:
    """The bundle's local arrays of ``values``; zeros at the bundle's sub-groups' lanes
    (a partial one's padding too) where a collective reads one lane's value in another
    (``r.across``), which may be a lane that has not computed it."""
    lines = []
    for vid in values:
        lts = C.leaf_types(r.type_of(vid))
        names = [f"r{vid}"] if len(lts) == 1 else [f"r{vid}_{k}" for k in range(len(lts))]
        for x, n in zip(lts, names, strict=True):
            ct = C.scalar_ctype(x)
            lines.append(f"        alignas(64) {ct} {n}[SG_RW];")
            if vid in r.across:
                lines.append(f"        for (u32 l = 0; l < (sg_n + SG_SIZE - 1) / SG_SIZE * SG_SIZE; "
                             f"l++) {n}[l] = ({ct})0;")
    return lines


def phase(region: tuple[int, int], decls: list[str], cases: list[str]) -> list[str]:
    """The C that runs region ``[lo, hi]`` for each bundle of the work-group in turn (up to
    ``SG_RW`` lanes: whole sub-groups); ``cases`` are its blocks rendered for one bundle
    (``case k: …``), whose lane loops run over the bundle's lanes waiting at the block
    (``sg_first`` to ``sg_end``, ``sg_run`` when they are all the lanes between). The next
    block is known without a scan after a block every lane of the bundle ran and left by
    one edge (``sg_next``, as on the work-group path). The step budget counts, per bundle,
    its own block executions in the region: the most any bundle took is added to the
    work-group's count, which so never exceeds the NumPy engine's."""
    lo, hi = region
    return [
        f"      if (sg_b >= {lo}u && sg_b <= {hi}u) {{ u64 sg_pmax = 0;",
        "      for (u32 sg_o = 0; sg_o < sg_vol; sg_o += SG_RW) {",
        "        const u32 sg_n = sg_vol - sg_o < SG_RW ? sg_vol - sg_o : SG_RW;",
        "        u64 sg_ps = 0;",
        *decls,
        # every lane of the work-group at one block: so is every lane of the bundle (at the
        # entry, whose lanes have no counters set yet)
        "        for (u32 sg_next = sg_hi == sg_b ? sg_b : SG_SCAN;;) {",
        "          u32 sg_b = sg_next, sg_hi = sg_next;",
        "          if (sg_next == SG_SCAN) { sg_b = SG_EXIT; sg_hi = 0;",
        "            for (u32 l = sg_o; l < sg_o + sg_n; l++) { u32 p = sg_pc[l]; "
        "sg_b = p < sg_b ? p : sg_b; sg_hi = p > sg_hi ? p : sg_hi; } }",
        "          sg_next = SG_SCAN;",
        f"          if (sg_b > {hi}u) break;",
        "          if (sgc->checks && sg_steps + ++sg_ps > sgc->steps) {",
        "            sg_fault(sgc->fault, sg_linear_gid(sg_g, 0), 0, 0, 0, 8); return 1; }",
        "          const bool sg_all = sg_hi == sg_b;",
        "          u32 sg_first = sg_o, sg_end = sg_o + sg_n; bool sg_run = sg_all;",
        "          if (!sg_all) { sg_run = sg_lanes_at(sg_pc + sg_o, sg_n, sg_b, &sg_first, &sg_end);",
        "            sg_first += sg_o; sg_end += sg_o; }",
        "          switch (sg_b) {",
        *cases,
        "          default: return 2;",
        "          }",
        "        }",
        "        sg_pmax = sg_ps > sg_pmax ? sg_ps : sg_pmax;",
        "      }",
        "      sg_steps += sg_pmax; continue; }",
    ]
