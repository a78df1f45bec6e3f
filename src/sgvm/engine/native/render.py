"""SPIR-V Module → C++ for the CPU: one function per kernel that runs a range of work-groups,
each in lock-step over its lanes (docs/native.md).

The execution model is the NumPy engine's, compiled:

* Every SSA value that lives past one *segment* is a lane array in the work-group's frame
  (``r<id>_<leaf>[l]``); a value used only inside its segment is a C local (a register).
* Blocks run in ``block_order`` (engine/common/blocks.py): each lane holds a program
  counter ``pc[l]``; the lowest-ordered block some lane waits at runs next, for exactly
  the lanes waiting there (``all`` when that is every live lane: an unmasked loop).
* A block's instructions are split into segments; a segment runs as one loop over the
  active lanes. Segments end at barriers and collectives (which are loops over each
  sub-group's or the work-group's lanes) and wherever running the segment lane by lane
  could order memory differently from running it instruction by instruction: a segment
  either only reads memory or makes one write and reads nothing (private memory, which
  no other lane sees, does not count).
* Phis are copied per lane on the edge the lane takes; the terminator sets ``pc[l]``.
* Regions of blocks without work-group barriers, work-group collectives or atomics run
  bundle by bundle (whole sub-groups) with their own scheduler, values that never leave
  the region in the bundle's local arrays (``regions.py``).

The per-instruction C comes from the shared lowering (``engine/clower``); this module adds
the structure, the built-in variables and the collectives.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import UnsupportedError
from ...spirv import Block, Function, Instruction, Module, Type
from ..clower import ctypes_ as C
from ..clower import dot, ext, images, ops, printf, spec_ops  # noqa: F401  (dot: into ops.OPS)
from ..common import origins
from ..common import types as T
from ..common.block_order import block_order
from ..common.constants import constant_sampler
from . import (
    affine,
    arguments,
    builtin_vars,
    chains,
    checks,
    counters,
    fused,
    lanes,
    loops,
    merge,
    non_uniform,
    prefix,
    regions,
    scalars,
    schedule,
    segment_joins,
    segmentation,
    skeleton,
    streams,
)
from .collectives import render_collective
from .inline import flatten
from .segmentation import Segment

_HEADER = 28  # frame bytes per lane: pc, local ids, fault notes, work-group (regions.groups)

@dataclass
class KernelInfo:
    """How the launcher passes a kernel's parameters and sizes its frames."""

    name: str
    symbol: str
    params: list[tuple[str, Type]] = field(default_factory=list)  # (kind, type) per parameter
    local_bytes: int = 0  # the kernel's own Workgroup variables
    # (label, offset, size) of each local variable and each private variable (per work-item)
    local_objects: list[tuple[str, int, int]] = field(default_factory=list)
    private_objects: list[tuple[str, int, int]] = field(default_factory=list)
    frame_bytes: int = 0  # per lane, every lane array of the entry function
    private_bytes: int = 0  # per lane, Function variables (a 16-byte multiple)
    private_need: int = 0  # the same, as the NumPy engine counts it (for its limit)
    arg_words: int = 0  # 64-bit words of the argument block
    # program-scope variables the kernel uses, their addresses after the parameters' words
    globals: list[int] = field(default_factory=list)
    printf_sites: list[tuple[Type, ...]] = field(default_factory=list)  # clower.printf
    # work-groups may run together as one (regions.groupable): the launcher chooses how many
    groupable: bool = False
    straight: bool = False  # one block: units of up to regions.STRAIGHT lanes
    # it cannot observe how its NDRange is cut into work-groups (regions.blind, no printf):
    # the launcher may run its work-groups as rows (regions.rows)
    blind: bool = False
    # the object of each slot a fault record names (origins.Origins): ("param", index),
    # ("global_var", index), ("local_arg", parameter index) or ("local", offset)
    slots: list[tuple[str, int]] = field(default_factory=list)


class Renderer:
    """Renders the kernels of one module for one sub-group size; see the module docstring."""

    target = "native backend"

    def __init__(self, module: Module, sub_group_size: int, bounds: bool = True,
                 together: bool = False):
        self.m = flatten(module)
        self.S = sub_group_size
        self.bounds = bounds
        self.together = together  # code for work-groups run together (regions.groups)
        self.builtins = module.builtin_variables()
        self.ops = dict(ops.OPS) | non_uniform.LANE_OPS | images.OPS
        self.ext = {**ext.EXT, **printf.EXT}
        self.printf_sites: list[tuple[Type, ...]] = []  # argument types per printf call
        self.printf_index: dict[int, int] = {}  # printf instruction → its site
        self.lines: list[str] = []
        self.storage: dict[int, str] = {}  # value id → "lane" | "sg" | "sub" | "own" | "local" | "remat" | "wg"
        self.local_offsets: dict[int, int] = {}
        self.private: dict[int, int] = {}  # Function variable → offset in a lane's slot
        self.params: dict[int, str] = {}  # parameter id → C name prefix
        self.origins = origins.Origins()
        self.checking = "slow"  # how guard() checks accesses (lanes.guard)
        self.noted = False  # the lane loop being rendered notes faults (checks.SG_CK)
        self.slow = False  # … and checks some access with sg_ok
        self.guarded_ptrs: list[int] = []  # … through these pointers
        self.sub_group = False  # rendering a region's blocks for one bundle (regions.py)
        self.fused = ""  # … a block for a chunk of full sub-groups: its lanes (fused.py)
        self.across: set[int] = set()  # values some lane reads of another (collectives.at)
        self.pre_checks: list[tuple[int, str, int]] = []  # what a pre-pass tests (lanes.py)
        self.affine_tested: dict[int, int] = {}  # pointer → its step, tested at rows' ends
        self.fixed: dict[int, str] = {}  # value → the C a sub-group's loop computes it by (fused.py)
        self.sunk: dict[int, int] = {}  # value → its block: stored on the edges (segmentation.sink)
        self.sinking: set[int] = set()  # … those of the block being rendered, C locals there
        self.live: dict[int, set[int]] = {}  # block label → values live on entry
        self.joined: dict[int, int] = {}  # block → the block whose lane loop runs it (chains.py)
        self.merges: dict[int, int] = {}  # chain head → its merge block (merge.py)
        self.merging: int | None = None  # the merge block of the fused loop being rendered
        self.streamable = streams.allowed(self.m)  # its kernels may stream stores (streams.py)
        self.streams: dict[int, streams.Stream] = {}  # … those of the fused loop being rendered
        self.blocks: list[Block] = []  # in block order
        self.terminates: dict[int, Block] = {}  # id() of each terminator → its block
        self.groupable = False  # rendering a kernel for work-groups run together
        self.scalars: set[int] = set()  # work-group scalars (scalars.py)
        self.counting = False  # the block's branch counts its lanes' lower edge (schedule.py)
        self.roles: dict[int, str | None] = {}  # block → its part in counters.py
        self.lazy = False  # the kernel has alike blocks (counters.py)
        self.alike = False  # rendering an alike block, whose edges write no counter

    # -- the interface the shared lowering uses (engine/clower) --------------------------
    def type_of(self, vid: int) -> Type:
        return self.m.type_of(vid)

    def rtype(self, inst: Instruction) -> Type:
        return self.m.types[inst.result_type]

    def leaves(self, vid: int) -> list[str]:
        m = self.m
        if vid in m.constants:
            return self._const_leaves(vid)
        if vid in m.undefs:
            return [C.zero(t) for t in C.leaf_types(m.undefs[vid])]
        if vid in self.local_offsets:
            return [f"(sg_g.local + {self.local_offsets[vid]})"]
        if vid in self.private:
            return [f"(sg_g.priv + (u64)l * {self.private_bytes} + {self.private[vid]})"]
        if vid in self.globals:
            return [f"g{vid}"]
        if vid in m.variables and vid not in self.builtins:
            raise UnsupportedError("native backend: a variable of another kernel")
        if vid in self.sinking:  # the C local its block computes it in (segmentation.sink)
            return self._names(vid, "s")
        return self._stored(vid)

    def _names(self, vid: int, prefix: str = "r") -> list[str]:
        n = len(C.leaf_types(self.type_of(vid)))
        base = self.params.get(vid, f"{prefix}{vid}")
        return [base] if n == 1 else [f"{base}_{k}" for k in range(n)]

    def _stored(self, vid: int) -> list[str]:
        """Where value ``vid`` is kept between segments."""
        names = self._names(vid)
        if self.storage.get(vid) == "lane":
            return [f"{x}[l]" for x in names]
        if self.storage.get(vid) == "sg":  # a bundle's local array (regions.py)
            return [f"{x}[l - sg_o]" for x in names]
        if self.storage.get(vid) == "sub":  # a sub-group's own (fused.py)
            return [f"{x}[l - sg_c]" for x in names]
        if self.storage.get(vid) == "own":  # a loop's phi, held by its sub-group (loops.py)
            return [f"{x}_o[l - sg_c]" for x in names]
        return names

    def leaf(self, vid: int) -> str:
        (x,) = self.leaves(vid)
        return x

    def _const_leaves(self, cid: int) -> list[str]:
        c = self.m.constants[cid]
        t = c.type
        if c.op == "OpConstantSampler":
            return [f"{int(constant_sampler(c.value))}ULL"]
        if c.op == "OpSpecConstantOp":
            n = len(C.leaf_types(t))
            return [f"r{cid}"] if n == 1 else [f"r{cid}_{k}" for k in range(n)]
        if c.value is None:
            return [C.zero(x) for x in C.leaf_types(t)]
        if t.op in ("Vector", "Struct", "Array"):
            return [x for i in c.value for x in self.leaves(i)]
        return [C.literal(t, c.value)]

    def result_names(self, inst: Instruction) -> list[str]:
        return self.leaves(inst.result_id)

    def emit(self, line: str) -> None:
        self.lines.append("      " + line)

    def assign(self, inst: Instruction, exprs: list[str]) -> None:
        for name, e in zip(self.result_names(inst), exprs, strict=True):
            self.emit(f"{name} = {e};")

    printf_context = "sg_g, l"  # sg_printf's first arguments (prelude.h): the calling lane
    image_fault = "sgc->fault, sg_linear_gid(sg_g, l)"  # sg_img_write's record (clower/images.py)

    def printf_site(self, inst: Instruction, types: tuple[Type, ...]) -> int:
        """The call site's number, the same each time the call is rendered (a block has
        several loops)."""
        site = self.printf_index.get(inst.result_id)
        if site is None:
            site = self.printf_index[inst.result_id] = len(self.printf_sites)
            self.printf_sites.append(types)
        return site

    def guard(self, ptr: int, p: str, nbytes: int | str, align: int, kind: int) -> str:
        sc = self.type_of(ptr).storage_class
        if not self.bounds or self._inside_private(ptr, nbytes, align):
            return ""
        if self.checking != "slow":
            cond = lanes.guard(self, ptr, p, nbytes, align, kind)
            if cond is not None:
                return cond
            self.slow = True
        else:
            cond = checks.direct(self.origins, ptr, p, nbytes, align, kind)
            if cond is not None:
                return cond
        space = {"Workgroup": 1, "CrossWorkgroup": 0, "UniformConstant": 0, "Function": 3}.get(sc, 2)
        return f"sg_ok(sgc, {p}, {nbytes}, {align}, {kind}, {space})"

    def _inside_private(self, ptr: int, nbytes: int | str, align: int) -> bool:
        """Whether an access of ``nbytes`` through ``ptr`` lies in one private variable, which
        no check can fail: ``ptr`` is the variable or a constant offset from it
        (``affine.root``: casts, ``p + 1``), the variable's bytes hold the access's, and the
        address is aligned for every work-item (each slot of the 64-byte aligned arena is a
        multiple of 16 bytes: ``_private_layout``). -cl-opt-disable keeps every value in such
        variables: their checks were most of its kernels' C and three quarters of their
        compile time."""
        var, at = affine.root(self, self.defs, ptr)
        off, al = self.private.get(var), max(align, 1)
        return off is not None and isinstance(nbytes, int) and at >= 0 \
            and at + nbytes <= T.size_of(self.type_of(var).pointee) \
            and 16 % al == 0 and (off + at) % al == 0

    def guarded_assign(self, inst: Instruction, cond: str, exprs: list[str]) -> None:
        if not cond:
            self.assign(inst, exprs)
            return
        zeros = [C.zero(x) for x in C.leaf_types(self.rtype(inst))]
        self.emit(f"{{ bool ok_ = {cond}; " + " ".join(
            f"{n} = ok_ ? {e} : {z};" for n, e, z in zip(self.result_names(inst), exprs, zeros,
                                                         strict=True)) + " }")

    def guarded(self, cond: str, lines: list[str]) -> None:
        if cond:
            self.emit(f"if ({cond}) {{ " + " ".join(lines) + " }")
        else:
            for line in lines:
                self.emit(line)

    # -- module ----------------------------------------------------------------------------
    def render(self, only: str | None = None) -> tuple[str, dict[str, KernelInfo | UnsupportedError]]:
        """The C++ source and, per kernel, how to call it (or why it cannot run natively;
        the module's other kernels still do). With ``together``, the source holds only the
        kernels whose work-groups may run together (the others never use it); ``only``: the
        one kernel of that name alone."""
        out = [f"#define SG_SIZE {self.S}u\n#define SG_RW {regions.bundle(self.S)}u\n"
               f"#define SG_CH {loops.chunk(self.S)}u", PRELUDE, non_uniform.HEADER]
        kernels: dict[str, KernelInfo | UnsupportedError] = {}
        for i, ep in enumerate(self.m.entry_points):
            if ep.execution_model != "Kernel" or only not in (None, ep.name):
                continue
            try:
                info, text = self._kernel(ep.function, ep.name, f"sgvm_k{i}")
            except UnsupportedError as e:
                kernels[ep.name] = e
                continue
            kernels[ep.name] = info
            if info.groupable or not self.together:
                out.append(text)
        return "\n".join(out) + "\n", kernels

    def _kernel(self, fid: int, name: str, symbol: str) -> tuple[KernelInfo, str]:
        f = self.m.functions[fid]
        info = KernelInfo(name, symbol)
        self.symbol = symbol
        self.printf_sites, self.printf_index = info.printf_sites, {}
        self.storage, self.params, self.private, self.local_offsets = {}, {}, {}, {}
        self.globals: dict[int, int] = {}  # program-scope variable → its argument word
        self.defs = {i.result_id: i for b in f.blocks for i in b.instructions
                     if i.result_id is not None}
        self._local_layout(name, info)
        head, pointers, words = arguments.argument_words(self, f, name, info)
        info.groupable = not info.local_bytes and "local" not in (
            k for k, _ in info.params) and regions.groupable(self, f)
        self.groupable = info.groupable and self.together
        info.straight = len(f.blocks) == 1
        sizes = {vid: size for vid, (_, _, size) in zip(self.local_offsets, info.local_objects,
                                                           strict=True)}
        self.origins = origins.origins(self.m, f, pointers, set(self.local_offsets),
                                      {vid: k for k, vid in enumerate(info.globals)})
        info.slots = [(k, x) if k in ("param", "global_var", "local_arg")
                      else ("local", self.local_offsets[x]) for k, x in self.origins.slots]
        # the objects' extents: the checks', and the streams' and prefetches' sizes (with
        # checks off too; clang drops what nothing reads)
        head += checks.prologue(self.origins, self.local_offsets, sizes, words)
        order = block_order(f)
        by_label = {b.label: b for b in f.blocks}
        blocks = [by_label[label] for label in order]
        index = {label: k for k, label in enumerate(order)}
        self.labels = set(index)
        self.blocks = blocks
        self.terminates = {id(b.terminator): b for b in blocks}
        segments = [segmentation.split(self, b) for b in blocks]
        spans = regions.intervals(self, f, blocks)
        self.joined = chains.fuse(f, blocks, segments, spans, scalars.alike(self, blocks))
        self.scalars = scalars.find(self, f, blocks, segments, spans)
        self.storage.update(dict.fromkeys(self.scalars, "wg"))
        self.merges = merge.find(f, blocks, segments, self.joined, spans)
        self.segments = segments
        segmentation.classify(self, f, blocks, segments)
        kept = regions.local_values(self, f, blocks, spans)
        self.storage.update(dict.fromkeys(kept, "sg"))
        self.sunk = segmentation.sink(self, blocks, segments)
        self.live = regions.live_in(f, blocks)
        self.private_bytes = info.private_bytes = self._private_layout(f, info)
        frame, offsets = self._frame(f)
        info.frame_bytes = frame
        body: list[str] = []
        phases: list[str] = []
        in_region = {k for lo, hi in spans for k in range(lo, hi + 1)}
        self.roles = counters.roles(self, blocks, index, in_region)
        self.lazy = counters.ALIKE in self.roles.values()
        for k, (b, segs) in enumerate(zip(blocks, segments, strict=True)):
            if k not in in_region and k not in self.joined:
                body += self._case(k, b, segs, index)
        for n, (lo, hi) in enumerate(spans):
            self.sub_group = True
            try:
                cases = [x for k in range(lo, hi + 1)
                         for x in self._case(k, blocks[k], segments[k], index)]
            finally:
                self.sub_group = False
            decls = regions.declarations(self, sorted(v for v, m in kept.items() if m == n))
            phases += regions.phase((lo, hi), decls, cases)
        spec = spec_ops.values(self, spec_ops.used_by(self, f))
        # The frame's arrays are parameters marked __restrict: clang then knows a store to a
        # lane array changes no buffer and no other lane array, and vectorises loops that
        # also load through pointers it cannot bound (gathers, pointers held in lane arrays).
        header = ["sg_pc", "sg_lid0", "sg_lid1", "sg_lid2", "sg_fsl", "sg_fpl", "sg_wof"]
        arrays = [("u32", n, k * 4) for k, n in enumerate(header)] + \
            [(ct, n, _HEADER + off) for n, ct, off in offsets]
        text = skeleton.function(symbol, checks.site_table(self.origins, symbol), arrays,
                                 info.private_bytes, self.groupable, head, spec,
                                 scalars.declarations(self, self.scalars),
                                 counters.head(self.roles), phases, body)
        info.blind = info.groupable and not info.printf_sites and regions.blind(self, f)
        return info, text

    # -- layout ----------------------------------------------------------------------------
    def _local_layout(self, kernel: str, info: KernelInfo) -> None:
        """The kernel's Workgroup variables, in definition order (as ``cpu.program``)."""
        used = self.m.entry_point_variables(kernel)
        off = 0
        for vid, var in self.m.variables.items():
            if var.storage_class != "Workgroup" or vid in self.builtins or vid not in used:
                continue
            al = max(T.align_of(var.pointee), 1)
            off = -(-off // al) * al
            self.local_offsets[vid] = off
            info.local_objects.append((f"local variable '{self.m.names.get(vid) or f'%{vid}'}'",
                                       off, T.size_of(var.pointee)))
            off += T.size_of(var.pointee)
        info.local_bytes = -(-off // 16) * 16

    def _private_layout(self, f: Function, info: KernelInfo) -> int:
        off = 0
        for block in f.blocks:
            for inst in block.instructions:
                if inst.opname == "OpVariable":
                    t = self.rtype(inst).pointee
                    al = max(T.align_of(t), 1)
                    off = -(-off // al) * al
                    self.private[inst.result_id] = off
                    vid = inst.result_id
                    info.private_objects.append(
                        (f"private variable '{self.m.names.get(vid) or f'%{vid}'}'", off,
                         T.size_of(t)))
                    off += -(-max(T.size_of(t), 1) // al) * al
        info.private_need = off
        return -(-off // 16) * 16

    def _frame(self, f: Function) -> tuple[int, list[tuple[str, str, int]]]:
        """Lane arrays: (C name, C type, offset in units of lanes × bytes)."""
        out = []
        off = 0
        for vid, kind in self.storage.items():
            if kind != "lane":
                continue
            lts = C.leaf_types(self.type_of(vid))
            names = [f"r{vid}"] if len(lts) == 1 else [f"r{vid}_{k}" for k in range(len(lts))]
            for x, n in zip(lts, names, strict=True):
                out.append((n, C.scalar_ctype(x), off))
                off += 8
        return off + _HEADER, out

    def _case(self, k: int, b: Block, segs: list[Segment], index: dict[int, int]) -> list[str]:
        """Block number ``k`` as a case of the scheduler's switch."""
        joins = k + 1 in self.joined  # its last loop runs block k + 1 too (chains.py)
        # the lanes taking a branch's lower edge are counted on the work-group path (schedule.py)
        self.counting = not (self.sub_group or joins or k in self.joined) \
            and schedule.counted(b.terminator, index) and b.terminator.ids()[0] not in self.scalars
        out = [f"    case {k}: {{ u32 sg_took = 0{', sg_took2 = 0' if joins else ''}"
               f"{schedule.COUNT if self.counting else ''};"]
        role = None if self.sub_group or not self.lazy else self.roles[k]
        if role == counters.REWRITES:  # it writes every lane's counter (counters.py)
            out.append("      sg_lazy = 0;")
        self.alike = role == counters.ALIKE  # its edges write no counter
        self.sinking = {v for v, at in self.sunk.items() if at == k}
        merged = False
        try:
            steps = scalars.prologue(self, k, b, index)
            parts = [self._segment(seg, b, k, index) for seg in segs]
            both = fused.render(self, k, b, segs, index)  # sub-group by sub-group
            if both is None and k in self.merges:  # the last segment with its merge block
                parts[-1], merged = merge.render(self, segs[-1], b, k, index, parts[-1])
            parts = segment_joins.render(self, segs, b, k, index, parts)
            body = [x for lines in parts for x in lines]
            loop = loops.render(self, k, b, segs, index)  # each sub-group to the loop's end
            split = None if both or merged or joins or k in self.joined or loop else \
                prefix.render(self, b, index)  # lanes that split at a local id
            if split:
                body = [*split, *body, "    }"]
            steps += body if both is None else [*both, "    else {", *body, "    }"]
            steps += scalars.copies(self, b, index)
            out += steps if loop is None else [*loop, "    if (!sg_lp) {", *steps, "    }"]
        finally:
            self.sinking = set()
            self.alike = False
        if role == counters.ALIKE:
            out += counters.after(self, k, b, index)
        wg = not self.sub_group
        after = schedule.next_block(b.terminator, index, wg, self.counting)
        if joins:
            tail = self.blocks[k + 1]
            after = chains.next_block(b, tail, after, schedule.next_block(tail.terminator, index, wg))
        if merged:
            after = merge.after(self, k, index, after)
        return [*out, *after, "      break; }"]

    def _segment(self, seg: Segment, block: Block, k: int, index: dict[int, int]) -> list[str]:
        if seg.kind == "barrier":
            return []  # lock-step: the lanes that reach it arrive together; memory is coherent
        if seg.kind == "collective":
            self.lines = []
            render_collective(self, seg.insts[0], k)
            return self.lines
        return lanes.render(self, seg, block, k, index)

    # -- instructions ------------------------------------------------------------------------
    def _instruction(self, inst: Instruction, block: Block, index: dict[int, int]) -> None:
        if inst.result_id in self.fixed:
            self.assign(inst, [self.fixed[inst.result_id]])
            return
        block = self.terminates.get(id(inst), block)  # a joined block's own (chains.py)
        k = index.get(block.label, -1)

        def one(took: str) -> None:
            self._one(inst, block, index, took)
        if not (merge.terminator(self, inst, block, k, one)
                or chains.terminator(self, inst, block, k, one)):
            one("sg_took")

    def _one(self, inst: Instruction, block: Block, index: dict[int, int], took: str) -> None:
        """One instruction; a conditional branch notes the edges its lanes took in ``took``."""
        o = inst.opname
        if o == "OpBranch":
            self.emit(self._edge(block.label, inst.operands[0].value, index))
        elif o == "OpBranchConditional":
            c, a, b = (x.value for x in inst.operands[:3])
            self.emit(f"{took} |= {self.leaf(c)} ? 1u : 2u;")
            if self.counting and inst is block.terminator:
                self.emit(schedule.count(self.leaf(c), inst, index))
            self.emit(f"if ({self.leaf(c)}) {self._edge(block.label, a, index)} "
                      f"else {self._edge(block.label, b, index)}")
        elif o == "OpSwitch":
            sel, default = inst.operands[0].value, inst.operands[1].value
            t = self.type_of(sel)
            self.emit(f"switch ({self.leaf(sel)}) {{")
            for x in inst.operands[2:]:
                lit, target = x.value
                v = int.from_bytes(b"".join(w.to_bytes(4, "little") for w in lit), "little") \
                    if isinstance(lit, tuple) else int(lit)
                self.emit(f"  case {C.literal(t, v)}: {self._edge(block.label, target, index)} "
                          "break;")
            self.emit(f"  default: {self._edge(block.label, default, index)}")
            self.emit("}")
        elif o in ("OpReturn", "OpReturnValue"):
            # the entry block runs once, for every lane (the target of no branch), so when it
            # returns no counter is read again (the next work-group starts at its entry)
            if index.get(block.label) != 0 or self.sub_group:
                self.emit("sg_pc[l] = SG_EXIT;")
        elif o == "OpUnreachable":
            self.emit("sg_pc[l] = SG_EXIT; sg_fault(sgc->fault, sg_linear_gid(sg_g, l), 0, 0, 0, 16);")
        elif o == "OpVariable":
            self._store(inst.result_id, inst.operands[1].value, 0)
        elif o == "OpLoad":
            self._load(inst)
        elif o == "OpStore":
            from ..clower.ops import memory_alignment

            self._store(inst.operands[0].value, inst.operands[1].value, memory_alignment(inst, 2))
        else:
            self.ops[o](self, inst)

    def _edge(self, src: int, dst: int, index: dict[int, int]) -> str:
        if index[dst] in self.joined:  # it has no phis (chains.py)
            return "{ sg_go = true; }"
        copies, temps = self.phi_copies(src, dst, scalars=False)
        for vid in sorted(self.sinking & self.live[dst]):  # the values the edge's target reads
            temps += [f"{a} = {x};" for a, x in zip(self._stored(vid), self.leaves(vid), strict=True)]
        # a lane that loops on its block already holds its number (the entry block, whose
        # lanes may hold none, is the target of no branch)
        same = src == dst and index[dst] != 0
        if index[dst] == self.merging:  # the merge block runs next in this loop (merge.py)
            return "{ " + " ".join([*copies, *temps, "sg_gm = true;"]) + " }"
        write = not (same or self.alike)  # an alike block's: after its loops (counters.py)
        return "{ " + " ".join(copies + temps + ([f"sg_pc[l] = {index[dst]}u;"] if write else [])) + " }"

    def phi_copies(self, src: int, dst: int, scalars: bool) -> tuple[list[str], list[str]]:
        """The edge ``src → dst``'s copies into the phis of ``dst`` that are work-group
        scalars (``scalars``) or not: every value read into a temporary, then written."""
        reads, writes = [], []
        for inst in self._phis(dst):
            if (inst.result_id in self.scalars) != scalars:
                continue
            for op in inst.operands:
                value, pred = op.value
                if pred != src:
                    continue
                t = self.type_of(inst.result_id)
                for x, e, d in zip(C.leaf_types(t), self.leaves(value), self.leaves(inst.result_id),
                                   strict=True):
                    reads.append(f"{C.scalar_ctype(x)} t{len(reads)}_ = {e};")
                    writes.append(f"{d} = t{len(writes)}_;")
        return reads, writes

    def _phis(self, label: int) -> list[Instruction]:
        fn = self._function_of(label)
        for b in fn.blocks:
            if b.label == label:
                return [i for i in b.instructions if i.opname == "OpPhi"]
        return []

    def _function_of(self, label: int) -> Function:
        for fn in self.m.functions.values():
            if any(b.label == label for b in fn.blocks):
                return fn
        raise KeyError(label)

    def _load(self, inst: Instruction) -> None:
        from ..clower.ops import load

        ptr = inst.operands[0].value
        if ptr in self.builtins:
            self.assign(inst, builtin_vars.values(self.builtins[ptr], self.rtype(inst), self.S,
                                                  self.groupable, self.fused == "SG_SIZE"))
            return
        load(self, inst)

    def _store(self, ptr: int, value: int, align: int) -> None:
        from ..clower.ops import store

        if ptr in self.streams:  # into the stage of the fused loop's piece of a row
            self.emit(streams.store(self.streams[ptr], self.leaf(value)))
            return
        store(self, ptr, value, align)


def _read_prelude() -> str:
    from pathlib import Path

    here = Path(__file__)
    return here.with_name("prelude.h").read_text() + \
        (here.parents[1] / "clower" / "images.h").read_text()


PRELUDE = _read_prelude()
