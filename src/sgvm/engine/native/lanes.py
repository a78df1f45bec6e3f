"""The lane loops of one segment (docs/native.md, "The code it generates").

A segment of a block runs as one loop over the work-group's lanes, by rows (local ids 1 and
2 fixed, id 0 the loop's induction variable, so that ids and the addresses affine in them
vectorise). Values other segments defined are read from their lane arrays, except the pure
ones (functions of the work-item's ids and the launch's constants: ``pure``), which the
segment computes again.

A block runs for the lanes waiting at it: when they form one run of consecutive local linear
ids (every lane, or ``if (l < s)``'s first ``s``), its loops go over that run unmasked,
clipped to it at the first and last row; otherwise over the lanes from the first to the
last waiting one, skipping the others (``RUN``).

With checks on, each access through a pointer of known object (``checks.py``) is tested
against it. When every access of the segment is and no address depends on a value the
segment loads, a pre-pass over a run tests every access: an address affine in the row
(``affine.py``) at the row's two ends, any other at each lane, computing the addresses alone.
If every test passes, the segment runs without checks, else (and whenever the lanes are not
a run) it runs with them, noting each lane's first fault; a lane writes its note only when
it faulted.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...spirv import Block, Function, Instruction
from ..clower import ctypes_ as C
from . import affine, checks, uniform

_IMPURE = {"OpPhi", "OpVariable", "OpFunctionCall", "OpCopyMemory", "OpCopyMemorySized",
           "OpStore", "OpFunctionParameter"}


def pure(r, f: Function, impure: set[str], given: set[int] = frozenset()
         ) -> dict[int, Instruction]:
    """Values that are the same function of the work-item's ids and the launch's
    constants wherever they are computed (no memory, no phi): a segment using one
    another segment defined computes it again rather than keeping a lane array.
    ``impure``: opcodes that touch memory or other lanes besides ``_IMPURE``; ``given``:
    values taken as such constants too (the work-group scalars, within one block)."""
    out: dict[int, Instruction] = {}
    defined = {i.result_id for b in f.blocks for i in b.instructions
               if i.result_id is not None and i.opname != "OpVariable"} - set(given)
    for b in f.blocks:  # in order: an operand's definition dominates its use
        for inst in b.instructions:
            if computes(r, inst, impure) and all(i in out or i not in defined for i in inst.ids()):
                out[inst.result_id] = inst
    return out


def cheap(pure: dict[int, Instruction], vid: int, most: int = 16) -> bool:
    """Whether pure value ``vid`` takes at most ``most`` instructions to compute again (a
    longer computation is kept in a lane array: it would bloat every segment using it). 16
    takes in tiled matmul's ``&As[lr][lc]`` (12), whose stores then test at the rows' ends
    and vectorise: 45 → 35 ms of CPU (10 kept it in a lane array)."""
    seen: set[int] = set()
    todo = [vid]
    while todo:
        v = todo.pop()
        if v in seen or v not in pure:
            continue
        seen.add(v)
        if len(seen) > most:
            return False
        todo += pure[v].ids()
    return True


def computes(r, inst: Instruction, impure: set[str]) -> bool:
    """Whether ``inst`` computes a value from its operands alone (no memory, no other lane)."""
    o = inst.opname
    if inst.result_id is None or inst.result_type is None or o in _IMPURE or o in impure \
            or o.startswith("OpAtomic") or (o == "OpExtInst" and inst.ext_opname in impure):
        return False
    return o != "OpLoad" or inst.operands[0].value in r.builtins


def recomputed(r, seg, block: Block) -> list[Instruction]:
    """The definitions of the pure values ``seg`` uses but does not define, with the
    pure values they use in turn, in definition order."""
    own = {i.result_id for i in seg.insts}
    used = [i for inst in seg.insts for i in inst.ids()]
    for inst in seg.insts:  # the phis of the edges taken (two blocks' when joined: chains.py)
        term = r.terminates.get(id(inst))
        for label in inst.ids() if term is not None else ():
            if label in r.labels:
                for phi in r._phis(label):
                    used += [op.value[0] for op in phi.operands if op.value[1] == term.label]
    out: dict[int, Instruction] = {}
    while used:
        vid = used.pop()
        inst = r.pure.get(vid)
        if inst is None or vid in own or vid in out or r.storage.get(vid) in ("lane", "sg", "sub", "own", "wg"):
            continue
        out[vid] = inst
        used += inst.ids()
    return sorted(out.values(), key=lambda i: r.position[i.result_id])


VALUE = re.compile(r"(?<![\w])r(\d+)")  # a value's C name (its leaves: r<id>_<k>)
# C around the pre-pass's tests of a row or lane: before them, at each end, after them
Wrap = tuple[list[str], list[list[str]], list[str]]
# (pointer, test) of each access, the slice computing their addresses, the ends: the Wrap
Around = Callable[[list[tuple[int, str]], dict[int, Instruction], int], Wrap]


def guard(r, ptr: int, p: str, nbytes: int | str, align: int, kind: int) -> str | None:
    """The check of one access in a lane loop, by ``r.checking``: "noted" (the test, noting a
    fault: checks.condition), "off" (none), "pre" (the test alone, kept for the pre-pass);
    None where the pointer's object is unknown (the caller's general check). The values
    the address ``p`` names (``r<id>``: an index a vstore_half or an access chain folded
    into the access adds to ``ptr``) join ``r.guarded_ptrs`` with it: the pre-pass computes
    them all."""
    if checks.bare(r.origins, ptr, p, nbytes, align, kind) is None:
        return None
    r.guarded_ptrs += [ptr, *(int(v) for v in VALUE.findall(p))]
    if r.checking == "off":
        return ""
    if r.checking == "pre":
        r.pre_checks.append((ptr, checks.bare(r.origins, ptr, p, nbytes, align, kind), align))
        return ""
    r.noted = True
    return checks.condition(r.origins, ptr, p, nbytes, align, kind)


def render(r, seg, block: Block, k: int, index: dict[int, int]) -> list[str]:
    """The C of lane segment ``seg`` of block number ``k``."""
    again = recomputed(r, seg, block)
    insts = again + seg.insts
    r.noted, r.slow, r.guarded_ptrs = False, False, []
    checked = body(r, insts, block, index, "noted")
    noted, ptrs = r.noted, list(r.guarded_ptrs)
    skip = f"if (!sg_run && sg_pc[l] != {k}) continue;"
    if not noted:
        return _plain(r, insts, checked, skip)
    checked.append("      if (sg_fs) { sg_fsl[l] = sg_fs; sg_fpl[l] = sg_fp; } sg_bad |= sg_fs;")
    checked.insert(0, "      u32 sg_fs = 0, sg_fp = 0;")
    flush = (f"    if (sg_bad) sg_flush(sg_g, sg_vol, sg_fsl, sg_fpl, {r.symbol}_sites, sg_rt); }}")
    addresses = None if r.slow else address_slice(r, insts, ptrs)
    if addresses is None:
        return ["    { u32 sg_bad = 0;", *loop("sg_run", ""), *checked, "    } }",
                *loop("!sg_run", skip), *checked, "    } }", flush]
    r.affine_tested = {}
    pre = prepass(r, insts, addresses, block, index, {})
    same = uniform.candidates(r, insts, addresses)
    # without a lane array read as one value: addresses stepped from the row's first lane
    first = [] if same else starts(r, insts, block, index, ("sg_xa", "sg_l0 + sg_xa"),
                                   "(sg_x - sg_xa)")
    try:
        unchecked = body(r, insts, block, index, "off")
    finally:
        r.fixed = {}
    if not same:
        head = loop("sg_clean", "")
        if first:
            head = [*head[:3], *first, *head[3:]]
        return ["    { u32 sg_bad = 0; bool sg_clean = false;",
                "    if (sg_run) { u32 sg_pre = 0;", *pre, "      sg_clean = !sg_pre; }",
                *head, *unchecked, "    } }" + (" }" if first else ""),
                *_checked(r, seg, k, checked, skip), "    } }", flush]
    pre_same = prepass(r, insts, addresses, block, index, same)
    return ["    { u32 sg_bad = 0; bool sg_clean = false;", *uniform.test(same),
            "    if (sg_run) { u32 sg_pre = 0;",
            "    if (sg_uni) {", *pre_same, "    } else {", *pre, "    }",
            "      sg_clean = !sg_pre; }",
            *loop("sg_clean && sg_uni", ""), *uniform.substitute(unchecked, same), "    } }",
            *loop("sg_clean && !sg_uni", ""), *unchecked, "    } }",
            *loop("!sg_clean", skip), *checked,
            "    } }", flush]


def _checked(r, seg, k: int, checked: list[str], skip: str) -> list[str]:
    """The segment's loop with checks (closed by the caller), left scalar (it tests each
    lane's counter), with a vectorised copy for runs where the segment runs a joined block
    (``chains.py``): the pre-pass tests the joined block's addresses at lanes that do not
    take the edge too, so a run whose other lanes compute addresses outside their buffer (the
    5-point stencil's first and last rows of work-groups, ``a[i - w]`` of a border lane)
    fails it and runs here."""
    if r.sub_group or k + 1 not in r.joined or seg is not r.segments[k][-1]:
        return [*loop("!sg_clean", skip), *checked]
    return [*loop("!sg_clean && sg_run", ""), *checked, "    } }",
            *loop("!sg_clean && !sg_run", skip), *checked]


def starts(r, insts: list[Instruction], block: Block, index: dict[int, int],
           first: tuple[str, str], offset: str) -> list[str]:
    """Each address of ``insts`` the pre-pass tested at the rows' ends (``r.affine_tested``:
    step ``k`` in the row, no extension wrapping in it) computed once at the loop's first
    lane (``first``: its ``sg_x`` and ``l``) as ``sg_a<id>``, in a scope the caller closes,
    and in the loop as ``sg_a<id> + offset * k`` (``r.fixed``; ``offset``: the lane's
    distance from the first, a C expression): clang then loads and stores it as one vector
    where a sign extension in the address (``(long)(int)i``) made a gather. Exact: the
    pre-pass found the address affine over the row's lanes."""
    accessed = {i.operands[0].value for i in insts if i.opname in ("OpLoad", "OpStore")}
    defined = {i.result_id for i in insts}
    steps = {p: k for p, k in r.affine_tested.items() if p in accessed and p in defined and k}
    addresses = address_slice(r, insts, list(steps)) if steps else None
    if addresses is None:
        return []
    decl, lines = computations(r, insts, addresses, block, index)
    r.fixed = {p: f"(sg_a{p} + (s64){offset} * {k})" for p, k in steps.items()}
    return ["    { " + " ".join(f"char *sg_a{p};" for p in steps),
            f"    {{ const u32 sg_x = {first[0]}; const u32 l = {first[1]};", decl, *lines,
            *(f"      sg_a{p} = (char *)r{p};" for p in steps), "    }"]


def _plain(r, insts: list[Instruction], lines: list[str], skip: str) -> list[str]:
    """A segment without checks; when its addresses read lane arrays, a copy reading one
    value for runs where every lane holds the same (``uniform.py``)."""
    ptrs = [i.operands[0].value for i in insts if i.opname in ("OpLoad", "OpStore")]
    addresses = address_slice(r, insts, ptrs) if ptrs else None
    same = uniform.candidates(r, insts, addresses) if addresses else {}
    if not same:  # a run without the test of each lane's counter (clang does not unswitch)
        return _ways(r, insts, [*loop("sg_run", ""), *lines, "    } }", *loop("!sg_run", skip),
                                *lines, "    } }"])
    return ["    {", *uniform.test(same), *loop("sg_uni", ""), *uniform.substitute(lines, same),
            "    } }", *loop("!sg_uni", skip), *lines, "    } } }"]


def _ways(r, insts: list[Instruction], loops: list[str]) -> list[str]:
    """``loops`` (a segment's lane loops) once for each way its block's branch goes where
    that is a work-group scalar (``scalars.py``), computed before them: clang, which does not
    unswitch a loop at -O2, then knows the way in each copy and vectorises the edge's phi
    copies, where it kept one scalar loop with a branch per lane (the shuffle GEMM's latch
    of ``k0``, 256 lanes × 4 accumulators each of its 48 iterations: 20% of its time);
    ``loops`` as they are otherwise."""
    t = insts[-1] if insts else None
    if t is None or t.opname != "OpBranchConditional" or t.operands[0].value not in r.scalars:
        return loops
    return [f"    if ({r.leaf(t.operands[0].value)}) {{", *loops, "    } else {", *loops, "    }"]


def body(r, insts: list[Instruction], block: Block, index: dict[int, int], mode: str) -> list[str]:
    r.lines, r.checking = [], mode
    try:
        for inst in insts:
            r._instruction(inst, block, index)
    finally:
        r.checking = "slow"
    return [_declare(r, insts), *r.lines]


def _declare(r, insts: list[Instruction]) -> str:
    names = []
    for inst in insts:
        rid = inst.result_id
        if rid is not None and (r.storage.get(rid) in ("local", "remat") or rid in r.sinking):
            lts = C.leaf_types(r.rtype(inst))
            names += [f"{C.scalar_ctype(x)} {n};" for x, n in zip(lts, r.leaves(rid), strict=True)]
    return "      " + " ".join(names)


def address_slice(r, insts: list[Instruction], ptrs: list[int]) -> set[int] | None:
    """The instructions of ``insts`` the addresses of ``ptrs`` are computed by, or None where
    one of them reads memory (the address is known only once the segment runs)."""
    here = {i.result_id: i for i in insts if i.result_id is not None}
    out: set[int] = set()
    todo = list(ptrs)
    while todo:
        vid = todo.pop()
        inst = here.get(vid)
        if inst is None or vid in out:
            continue
        if not computes(r, inst, r.impure):
            return None
        out.add(vid)
        todo += inst.ids()
    return out


def prepass(r, insts: list[Instruction], addresses: set[int], block: Block,
            index: dict[int, int], same: dict[int, tuple[str, str]],
            ranges: list[list[tuple[int, int]]] = (), by_sub_group: bool = False,
            around: Around | None = None) -> list[str]:
    """The pre-pass: the address computations and the tests of every access, no access.
    An address affine in the row (``affine.py``) is tested at the row's two ends, the others
    in a loop over the lanes; ``same``: lane arrays read as one value (``uniform.py``).
    ``ranges``: groups of (pointer, bytes) of accesses whose addresses are affine in the row;
    the pre-pass bounds the bytes group ``n`` touches over the run in ``sg_fa<n>`` to
    ``sg_fb<n>`` (``merge.py``). ``by_sub_group``: an address not affine in the row but
    along each sub-group (computed from the sub-group local id, rendered as the lane's
    distance from ``sg_c``: ``fused.py`` sets ``r.fused``) is tested at each sub-group's two
    ends; only those affine in the row are marked as tested (``r.affine_tested``: stepped
    along a lane loop of any width). ``around``: given the tests of a row (or lane) and the
    slice, the C put around them inside its loop and at each end (``loops.py`` runs a
    loop's iterations there)."""
    tests: list[tuple[int, str, int]] = []  # (pointer, test, alignment) of each access
    saved = {v: r.storage.get(v) for v in addresses}
    r.storage.update(dict.fromkeys(addresses, "local"))  # the leaves _ends names too

    def note(inst: Instruction) -> None:
        if inst.opname != "OpVariable":
            r.lines, r.checking, r.pre_checks = [], "pre", []
            r._instruction(inst, block, index)
            tests.extend(r.pre_checks)
    try:
        decl, lines = computations(r, insts, addresses, block, index, note)
        lines = uniform.substitute(lines, same)
        defs = {i.result_id: i for i in insts if i.result_id in addresses}
        steps = affine.Steps(r, defs, set(same))
        along = affine.Steps(r, defs, set(same), sub_group=True) if by_sub_group else None
        ends, by_sub, each = [], [], []  # (pointer, test, step) of each kind of test
        aligns: dict[int, int] = {}
        for ptr, test, align in tests:
            s = steps.of(ptr)
            if _fits(s, align):
                ends.append((ptr, test, s))
                aligns[ptr] = max(aligns.get(ptr, 1), align)
                r.affine_tested[ptr] = s.k
            elif along is not None and _fits(along.of(ptr), align):
                by_sub.append((ptr, test, along.of(ptr)))
            else:
                each.append((ptr, test, s))
        if not r.bounds:  # no tests: the ranges' ends test the extensions (``merge.test``
            # renders no other pre-pass), so the fused loop may step these addresses too
            r.affine_tested.update((p, steps.of(p).k) for g in ranges for p, _ in g
                                   if _fits(steps.of(p), 1))
        out = []

        def wrap(kind: list[tuple[int, str, affine.Step | None]], ends: int) -> Wrap:
            if around is None:
                return [], [[] for _ in range(ends)], []
            return around([(p, t) for p, t, _ in kind], defs, ends)
        spans = [[(r.leaf(p), n) for p, n in group] for group in ranges]
        # where the sub-group local id is the lane's distance from sg_c, a row's lane has
        # its sub-group's first lane as sg_c (whole sub-groups lie in rows)
        base = ["      const u32 sg_c = l - l % SG_SIZE;"] if by_sub_group else []
        if ends or spans:
            exts = _extensions([s for *_, s in ends] + [steps.of(p) for g in ranges for p, _ in g])
            plane = None if by_sub_group or around is not None else _plane(
                r, steps, exts, ends, aligns, ranges)
            out += _ends(r, [t for _, t, _ in ends], exts, decl, [*base, *lines], wrap(ends, 2),
                         spans, plane=plane)
        if by_sub:
            out += _ends(r, [t for _, t, _ in by_sub], _extensions([s for *_, s in by_sub]),
                         decl, lines, wrap(by_sub, 2), by_sub_group=True)
        if each:
            head, (at,), tail = wrap(each, 1)
            out += [*loop("true", ""), *base, *head, decl, *lines,
                    *(f"      sg_pre |= !({t});" for _, t, _ in each), *at, *tail, "    } }"]
    finally:
        r.checking = "slow"
        r.storage.update(saved)
    return out


def _fits(s: affine.Step | None, align: int) -> bool:
    """Whether an access of step ``s`` and alignment ``align`` may be tested at its ends."""
    return s is not None and abs(s.k) < affine.LIMIT and s.k % align == 0


def _extensions(steps: list[affine.Step]) -> list[affine.Extension]:
    return sorted({e for s in steps for e in s.extensions}, key=lambda e: e.vid)


# A plane's extensions, and of each address its C name, step along the row, alignment,
# tests and the groups (``spans``: number, bytes) it is bounded in (``_plane``)
Plane = tuple[list[affine.Extension],
              list[tuple[str, int, int, list[str], list[tuple[int, int]]]]]
# The most lanes of a row and rows of a plane tested as a plane, and the largest step across
# its rows of an address: the linear functions of ``_corners`` then stay far inside 64 bits
_PLANE_SIDE, _PLANE_STEP = 1 << 20, 1 << 40


def _plane(r, steps: affine.Steps, exts: list[affine.Extension],
           ends: list[tuple[int, str, affine.Step]], aligns: dict[int, int],
           ranges: list[list[tuple[int, int]]]) -> Plane | None:
    """What a pre-pass that may test a plane of whole rows as a whole (``_corners``) instead
    of each row at its ends needs, or None: every address affine across the rows as well
    (``affine.Steps.across``), each test of the address itself (not of an index added to
    it), no extension's step along the row ``_PLANE_STEP`` or more."""
    pointers = {p: [] for p, _, _ in ends} | {p: [] for g in ranges for p, _ in g}
    for p, test, _ in ends:
        if not test.startswith(f"SG_IN({r.leaf(p)}, "):
            return None
        pointers[p].append(test)
    across = [steps.across(p) for p in pointers]
    if None in across:
        return None
    exts = sorted(set(exts) | {e for a in across for e in a.extensions}, key=lambda e: e.vid)
    if any(abs(e.k) >= _PLANE_STEP for e in exts):
        return None
    return exts, [(r.leaf(p), steps.of(p).k, aligns.get(p, 1), tests,
                   [(n, nbytes) for n, g in enumerate(ranges) for q, nbytes in g if q == p])
                  for p, tests in pointers.items()]


def computations(r, insts: list[Instruction], addresses: set[int], block: Block,
                 index: dict[int, int], other: Callable[[Instruction], None] | None = None
                 ) -> tuple[str, list[str]]:
    """The declarations and C of the instructions of ``insts`` that compute ``addresses``, as C
    locals at one lane (``l``, ``sg_x`` …, whatever the caller sets); ``other`` is called
    for each other instruction, in order."""
    saved = {v: r.storage.get(v) for v in addresses}
    for v in addresses:
        r.storage[v] = "local"
    lines: list[str] = []
    try:
        for inst in insts:
            if inst.result_id in addresses:
                r.lines, r.checking = [], "off"
                r._instruction(inst, block, index)
                lines += r.lines
            elif other is not None:
                other(inst)
        return _declare(r, [i for i in insts if i.result_id in addresses]), lines
    finally:
        r.checking = "slow"
        for v, s in saved.items():
            r.storage[v] = s


# The sub-groups from lane sg_first to sg_end as rows (fused.py: whole sub-groups lying in
# rows), closed by "}": a sub-group's lanes sg_xa to sg_xb of its row, from its first, sg_c
_SUB_GROUP_ROWS = [
    "    for (u32 sg_c = sg_first; sg_c < sg_end; sg_c += SG_SIZE) {",
    "      const u32 sg_l0 = sg_c / sg_row * sg_row, sg_xa = sg_c - sg_l0, sg_xb = sg_xa + SG_SIZE;",
    "      const u32 sg_y = sg_lid1[sg_l0], sg_z = sg_lid2[sg_l0], sg_wi = SG_WI(sg_wof[sg_l0]);"]


def _ends(r, tests: list[str], exts: list[affine.Extension], decl: str,
          lines: list[str], around: Wrap,
          spans: list[list[tuple[str, int]]] = (), by_sub_group: bool = False,
          plane: Plane | None = None) -> list[str]:
    """Per row: the addresses computed at its first and last lane and tested there, and each
    extension's exact values at both ends compared (``affine.py``); ``spans``: groups of
    (address, bytes), group ``n``'s lowest and one past its highest byte bounded in
    ``sg_fa<n>`` and ``sg_fb<n>``. The rows are counted by plane and local id 1 (row
    ``y + p * lsz1`` holds lanes from ``(y + p * lsz1) * lsz0``; plane ``p`` is local id 2 of
    work-group ``p / lsz2`` of those run together, ``regions.groups``), so that the loop over
    a plane's rows vectorises. ``around``: C around each row's tests and at each end
    (``prepass``). ``plane``: a plane of two rows or more, all of them whole, is tested at
    its corners instead (``_corners``)."""
    names = [(f"sg_e{n}a", f"sg_e{n}b") for n in range(len(exts))]
    out = ["    {", *_SUB_GROUP_ROWS] if by_sub_group else ["    { const u32 sg_r0 = sg_first / sg_row, sg_r1 = (sg_end - 1) / sg_row + 1, "
           "sg_ny = (u32)sg_lsz1;",
           *(["    const bool sg_whole = sg_first % sg_row == 0 && sg_end % sg_row == 0;"]
             if plane else []),
           "    for (u32 sg_p = sg_r0 / sg_ny; sg_p * sg_ny < sg_r1; sg_p++) {",
           "      const u32 sg_z = SG_Z(sg_p), sg_wi = SG_W(sg_p);",
           "      const u32 sg_ya = sg_r0 > sg_p * sg_ny ? sg_r0 - sg_p * sg_ny : 0, "
           "sg_yb = sg_r1 - sg_p * sg_ny < sg_ny ? sg_r1 - sg_p * sg_ny : sg_ny;",
           *_corners(r, decl, lines, plane),
           "      for (u32 sg_y = sg_ya; sg_y < sg_yb; sg_y++) {",
           "      const u32 sg_l0 = (sg_p * sg_ny + sg_y) * sg_row;",
           loop("true", "")[2]]
    close = "    } }" if by_sub_group else "    } } }"
    head, at_end, tail = around
    out += head
    if names:
        out.append("      s64 " + ", ".join(x for pair in names for x in pair) + ";")
    for end, x in ((0, "sg_xa"), (1, "sg_xb - 1")):
        out += [f"      {{ const u32 sg_x = {x}; const u32 l = sg_l0 + sg_x;", decl, *lines,
                *(f"      sg_pre |= !({t});" for t in tests), *at_end[end]]
        for e, pair in zip(exts, names, strict=True):
            ct = f"{'s' if e.signed else 'u'}{e.width}"
            out.append(f"      {pair[end]} = (s64)({ct}){r.leaf(e.vid)};")
        for n, group in enumerate(spans):
            for p, nbytes in group:
                out.append(_bound(n, p, nbytes))
        out.append("      }")
    for e, (a, b) in zip(exts, names, strict=True):
        out.append(f"      sg_pre |= {a} + (s64){e.k}LL * (s64)(sg_xb - 1 - sg_xa) != {b};")
    return [*out, *tail, close]


def _corners(r, decl: str, lines: list[str], plane: Plane | None) -> list[str]:
    """A plane of whole rows tested as a whole, an ``if`` whose ``else`` tests each row. Over
    such a plane an address is ``a + k * x + K * y`` modulo 2^64 at lane ``x`` of row ``y``
    (``affine.Steps.across``: ``a`` its value at the plane's first lane, ``k`` its step along
    the row, ``K`` the difference from there to the first lane of the second row), and so is
    each extension's narrow value modulo 2^width. The addresses are computed at those two
    lanes only: an extension is exact at every lane where that linear function (from its
    exact value at the first lane) stays in the narrow type's range at the plane's corners,
    being linear; an address is then the linear function itself, inside its object at every
    lane when it is at the least and the greatest corner, aligned when it is at the first
    lane and ``k`` and ``K`` are multiples of the alignment. The group bounds of ``spans``
    are those corners too."""
    if plane is None:
        return []
    exts, ptrs = plane
    out = [f"      if (sg_whole && sg_yb - sg_ya >= 2 && sg_row <= {_PLANE_SIDE}u && "
           f"sg_yb - sg_ya <= {_PLANE_SIDE}u) {{",
           "      const u32 sg_xa = 0, sg_xb = sg_row;",
           "      const s64 sg_dx = (s64)(sg_xb - 1 - sg_xa), sg_dy = (s64)(sg_yb - 1 - sg_ya);",
           "      " + " ".join([*(f"s64 sg_v{n}[2];" for n in range(len(exts))),
                               *(f"u64 sg_q{n}[2];" for n in range(len(ptrs)))])]
    for j in range(2):
        out += [f"      {{ const u32 sg_x = sg_xa, sg_y = sg_ya + {j}; "
                "const u32 sg_l0 = (sg_p * sg_ny + sg_y) * sg_row, l = sg_l0 + sg_x;",
                decl, *lines,
                *(f"      sg_v{n}[{j}] = (s64)({'s' if e.signed else 'u'}{e.width}){r.leaf(e.vid)};"
                  for n, e in enumerate(exts)),
                *(f"      sg_q{n}[{j}] = (u64){p};" for n, (p, *_) in enumerate(ptrs)), "      }"]
    for n, e in enumerate(exts):
        lo, hi = e.range
        lo = f"{lo}LL" if lo >= 0 else f"(-{-lo - 1}LL - 1)"
        out += [*_steps(e.k, f"sg_v{n}[1] - sg_v{n}[0]", 1),
                f"      sg_pre |= (__int128)sg_v{n}[0] + SG_MIN0(sg_kx) + SG_MIN0(sg_ky) < {lo} || "
                f"(__int128)sg_v{n}[0] + SG_MAX0(sg_kx) + SG_MAX0(sg_ky) > {hi}LL; }}"]
    for n, (p, k, align, tests, spans) in enumerate(ptrs):
        out += _steps(k, f"(s64)(sg_q{n}[1] - sg_q{n}[0])", align)
        for f in ("SG_MIN0", "SG_MAX0"):
            out.append(f"      {{ char *{p} = (char *)(sg_q{n}[0] + (u64)({f}(sg_kx) + {f}(sg_ky)));")
            out += [f"      sg_pre |= !({t});" for t in tests]
            out += [_bound(g, p, nbytes) for g, nbytes in spans]
            out.append("      }")
        out.append("      }")
    return [*out, "      } else"]


def _steps(k: int, across: str, align: int) -> list[str]:
    """Opens a scope holding a plane's ``sg_kx`` and ``sg_ky``: a value's change from the
    plane's first lane to its last lane along the row (step ``k``) and to its last row (the
    C ``across``: its difference from the first row to the second, tested below
    ``_PLANE_STEP`` and a multiple of ``align``, so that no product overflows)."""
    ok = f"(sg_k1 < {_PLANE_STEP}LL && sg_k1 > -{_PLANE_STEP}LL)"
    return [f"      {{ const s64 sg_kx = {k}LL * sg_dx, sg_k1 = {across};",
            f"      sg_pre |= !{ok}" + (f" || sg_k1 % {align}" if align > 1 else "") + ";",
            f"      const s64 sg_ky = ({ok} ? sg_k1 : 0) * sg_dy;"]


def _bound(n: int, p: str, nbytes: int) -> str:
    """Group ``n``'s bounds (``sg_fa<n>`` to ``sg_fb<n>``) widened to ``nbytes`` at ``p``."""
    return (f"      sg_fa{n} = SG_MIN(sg_fa{n}, (u64){p}); "
            f"sg_fb{n} = SG_MAX(sg_fb{n}, (u64){p} + {nbytes}u);")


def loop(when: str, skip: str) -> list[str]:
    """The head of a lane loop over lanes ``sg_first`` to ``sg_end`` by rows (the module
    docstring), closed by ``} }``."""
    return [f"    if ({when}) for (u32 sg_l0 = sg_first / sg_row * sg_row; sg_l0 < sg_end; "
            "sg_l0 += sg_row) {",
            "      const u32 sg_y = sg_lid1[sg_l0], sg_z = sg_lid2[sg_l0], sg_wi = SG_WI(sg_wof[sg_l0]);",
            "      const u32 sg_xa = sg_l0 < sg_first ? sg_first - sg_l0 : 0, "
            "sg_xb = sg_end - sg_l0 < sg_row ? sg_end - sg_l0 : sg_row;",
            # no interleaving: a vector loop of 16 lanes runs for rows of 16 (2-D work-groups);
            # a loop testing each lane's counter is left scalar (it runs for lanes that are
            # not one run, or after a fault; vectorising every copy doubled compile times)
            '      _Pragma("clang loop vectorize(disable)")' if skip else
            '      _Pragma("clang loop interleave_count(1)")',
            f"      for (u32 sg_x = sg_xa; sg_x < sg_xb; sg_x++) {{ const u32 l = sg_l0 + sg_x; {skip}"]
