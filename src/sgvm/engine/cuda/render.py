"""SPIR-V Module → CUDA C: the structure (functions, blocks, phis, memory, kernels).

One ``__device__`` function per SPIR-V function, one label per block, OpPhi as
parallel copies on the incoming edges (through temporaries, so a phi reading
another phi of the same block sees the old value), one ``__global__`` wrapper per
kernel that builds the launch geometry (``SgCtx``, prelude.cuh) and turns the
parameter bits into values. Values are flattened into scalar leaves
(``ctypes_``). The instructions themselves are rendered by ``render_ops`` and
``render_groups``; the sub-group size is a compile-time constant ``SG_SIZE``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...errors import UnsupportedError
from ...spirv import Function, Instruction, Module, Type
from ..clower import ctypes_ as C
from ..clower import ops, spec_ops
from ..common import origins
from ..common import types as T
from ..common.constants import constant_sampler
from ..common.signature import by_value
from .render_globals import GlobalInit
from .render_sched import Schedule, called, callees_first, targets

# SubgroupEqMask ... SubgroupLtMask → sg_lane_mask's kind (non_uniform.cuh)
LANE_MASKS = {"SubgroupEqMask": 0, "SubgroupGeMask": 1, "SubgroupGtMask": 2, "SubgroupLeMask": 3,
              "SubgroupLtMask": 4}
PRELUDE = "".join(p.read_text() for p in (
    *(Path(__file__).with_name(f) for f in ("prelude.cuh", "non_uniform.cuh")),
    Path(__file__).parents[1] / "clower" / "images.h", Path(__file__).with_name("images.cuh")))
BUILTIN_DIMS = ("GlobalInvocationId", "LocalInvocationId", "WorkgroupId", "WorkgroupSize",
                "EnqueuedWorkgroupSize", "GlobalSize", "NumWorkgroups", "GlobalOffset")


@dataclass
class KernelInfo:
    """How the launcher passes a kernel's parameters: per parameter, its kind
    (``ptr``, ``local``, ``byval`` or ``value``) and the C types of its leaves."""

    name: str
    cuda_name: str
    params: list[tuple[str, list[str], Type]] = field(default_factory=list)
    local_bytes: int = 0  # dynamic shared memory taken by the kernel's __local variables
    printf_sites: list[tuple[Type, ...]] = field(default_factory=list)  # argument types per call
    strings: dict[int, bytes] = field(default_factory=dict)  # constant i8 arrays (printf %s)
    # program-scope globals for the bounds checks: (id, bytes, read-only, name)
    globals: list[tuple[int, int, bool, str]] = field(default_factory=list)


def regions_of(m: Module, f: Function) -> dict[int, int]:
    """Kernel function ``f``'s buffer parameters (global and constant pointers, not by-value
    structs), each with its region's index in the launch's table, where every pointer and
    by-value parameter has one, in order (``runtime._pack``)."""
    out, k = {}, 0
    for p in f.params:
        t = m.types[p.result_type]
        if t.op != "Pointer" or t.storage_class == "Workgroup":
            continue
        if not by_value(m, p.result_id):
            out[p.result_id] = k
        k += 1
    return out


class Renderer:
    """Renders one module for one sub-group size; see the module docstring."""

    target = "CUDA backend"  # how unsupported-instruction errors name the target

    def __init__(self, module: Module, sub_group_size: int, bounds: bool = False):
        self.m = module
        self.S = sub_group_size
        self.bounds = bounds  # check every global/local access (docs/cuda.md, "Memory errors")
        # and count loop back-edges against the step budget ("Runaway kernels")
        self.order: dict[int, int] = {}  # block label → position in the function
        self.globals: list[tuple[int, int, bool, str]] = []
        self.builtins = module.builtin_variables()
        self.lines: list[str] = []
        self.decls: list[str] = []
        self.uses_wg = False
        self.local_offsets: dict[int, int] = {}  # Workgroup variable → offset in sg_dyn
        self.kernel_local: dict[str, int] = {}  # kernel → bytes of its Workgroup variables
        self.printf_sites: list[tuple[Type, ...]] = []
        self.strings: dict[int, bytes] = {}  # initialised i8 arrays (g<id>) → their bytes
        self.scheduled: set[int] = set()  # functions run under the sub-group schedule (render_sched)
        self.sched: Schedule | None = None  # the current function's schedule, if it has one
        self.uses_members = False  # the current function needs sub-group membership
        self.member_blocks: set[int] = set()  # the current function's blocks that need it,
        # or wait for the whole work-group (render_sched: lanes enter them only together)
        self.waits: set[int] = set()  # functions that wait for the work-group (or call one)
        self.block = 0  # the label of the block being rendered
        self.function = 0  # the id of the function being rendered
        self.kernel_only: set[int] = set()  # entry points' functions that nothing calls
        # the current function's pointers whose object is a buffer argument: their origins'
        # slots → the argument's region in the launch's table (``regions_of``)
        self.origins = origins.Origins()
        self.region_of_slot: dict[int, int] = {}
        # function → its pointers' origins and each origin's region (``_param_regions``)
        self.param_regions: dict[int, tuple[origins.Origins, dict[int, int]]] = {}
        from ..clower import dot, ext, printf  # noqa: F401  (dot registers into ops.OPS)
        from . import render_groups, render_images, render_non_uniform

        self.ops = {**ops.OPS, **render_groups.OPS, **render_non_uniform.OPS, **render_images.OPS}
        self.ext = {**ext.EXT, **printf.EXT}

    # -- values ----------------------------------------------------------------
    def type_of(self, vid: int) -> Type:
        return self.m.type_of(vid)

    def rtype(self, inst: Instruction) -> Type:
        return self.m.types[inst.result_type]

    def leaves(self, vid: int) -> list[str]:
        """C expressions of the leaves of value ``vid``."""
        m = self.m
        if vid in m.constants:
            return self.const_leaves(vid)
        if vid in m.undefs:
            return [C.zero(t) for t in C.leaf_types(m.undefs[vid])]
        if vid in self.local_offsets:
            return [f"((char*)(sg_dyn + {self.local_offsets[vid]}))"]
        if vid in m.variables and vid not in self.builtins:
            return [f"((char*)&g{vid})"]
        t = self.type_of(vid)
        n = len(C.leaf_types(t))
        return [f"r{vid}"] if n == 1 else [f"r{vid}_{k}" for k in range(n)]

    def leaf(self, vid: int) -> str:
        (x,) = self.leaves(vid)
        return x

    def const_leaves(self, cid: int) -> list[str]:
        c = self.m.constants[cid]
        t = c.type
        if c.op == "OpConstantSampler":
            return [f"{int(constant_sampler(c.value))}ULL"]
        if c.op == "OpSpecConstantOp":  # computed at the top of each function (clower.spec_ops)
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
        self.lines.append("  " + line)

    def assign(self, inst: Instruction, exprs: list[str]) -> None:
        for name, e in zip(self.result_names(inst), exprs, strict=True):
            self.emit(f"{name} = {e};")

    printf_context = "sgc"  # sg_printf's first argument (prelude.cuh): the calling thread's
    image_fault = "sgc.fault, sg_global_linear(sgc)"  # sg_img_write's record (clower/images.py)

    def printf_site(self, inst: Instruction, types: tuple[Type, ...]) -> int:
        """A new call site's number (clower.printf; a function rendered again drops the
        sites of its first rendering, ``_function_text``)."""
        self.printf_sites.append(types)
        return len(self.printf_sites) - 1

    # -- module ----------------------------------------------------------------
    def render(self) -> tuple[str, dict[str, KernelInfo]]:
        """The CUDA source and, per kernel name, how to pass its arguments."""
        head = [f"#define SG_SIZE {self.S}", PRELUDE]
        self._globals(head)
        self._local_layout()
        funcs = callees_first(self.m)
        self.kernel_only = {ep.function for ep in self.m.entry_points} - called(self.m)
        if self.bounds:
            self.param_regions = self._param_regions(funcs)
        bodies = [self._function_text(f) for f in funcs]
        protos = [self._signature(f) + ";" for f in funcs]
        kernels: dict[str, KernelInfo] = {}
        wrappers = []
        for i, ep in enumerate(self.m.entry_points):
            if ep.execution_model != "Kernel":
                continue
            size = ep.execution_modes.get("LocalSize")  # reqd_work_group_size
            bound = size[0] * size[1] * size[2] if size else 1024
            info, text = self._kernel(ep.function, ep.name, f"sgvm_k{i}", bound)
            info.printf_sites, info.strings = self.printf_sites, self.strings
            info.globals = self.globals
            kernels[ep.name] = info
            wrappers.append(text)
        if self.uses_wg:
            head.append("__shared__ u64 sg_wgbuf[1024];")
        return "\n".join(head + self.decls + protos + bodies + wrappers) + "\n", kernels

    def _globals(self, head: list[str]) -> None:
        """Program-scope variables: initialised __device__ objects (``render_globals``;
        Workgroup ones live in dynamic shared memory, ``_local_layout``)."""
        init = GlobalInit(self.m, self.builtins)
        for vid, var in self.m.variables.items():
            if vid in self.builtins or var.storage_class == "Workgroup":
                continue
            if var.storage_class not in ("CrossWorkgroup", "UniformConstant"):
                raise UnsupportedError(f"CUDA backend: module-scope {var.storage_class} variable")
            decl, data = init.declaration(vid, var.pointee, var.initializer)
            head.append(decl)
            t = var.pointee
            if var.initializer is not None and t.op == "Array" and t.component.op == "Int" \
                    and t.component.width == 8:
                self.strings[vid] = data
            self.globals.append((vid, max(T.size_of(t), 1), var.storage_class == "UniformConstant",
                                 self.m.names.get(vid, f"%{vid}")))

    def _local_layout(self) -> None:
        """Offsets of the Workgroup variables in the dynamic shared memory (may pass 48 KiB).

        Each kernel counts only the variables it uses (``Module.entry_point_variables``),
        as the CPU engine does; two variables overlap unless one kernel uses both
        (first fit, 16-byte aligned), so every function sees one constant offset.
        """
        m = self.m
        local = [vid for vid, var in m.variables.items()
                 if var.storage_class == "Workgroup" and vid not in self.builtins]
        users = {ep.name: m.entry_point_variables(ep.name) & set(local)
                 for ep in m.entry_points if ep.execution_model == "Kernel"}
        placed: dict[int, tuple[int, int]] = {}
        for vid in local:
            size = max(T.size_of(m.variables[vid].pointee), 1)
            taken = sorted({placed[u] for used in users.values() if vid in used
                            for u in used if u in placed})
            off = 0
            for start, n in taken:
                if off + size <= start:
                    break
                off = max(off, -(-(start + n) // 16) * 16)
            placed[vid] = (off, size)
            self.local_offsets[vid] = off
        self.kernel_local = {k: max((sum(placed[v]) for v in used), default=0)
                             for k, used in users.items()}

    # -- functions -------------------------------------------------------------
    def _ret_ctype(self, t: Type) -> str:
        lt = C.leaf_types(t)
        if not lt:
            return "void"
        if len(lt) == 1:
            return C.scalar_ctype(lt[0])
        name = f"R{t.id}"
        decl = f"struct {name} {{ " + " ".join(
            f"{C.scalar_ctype(x)} v{k};" for k, x in enumerate(lt)) + " };"
        if decl not in self.decls:
            self.decls.append(decl)
        return name

    def members(self) -> str:
        """The C expression of the lanes of the sub-group that run the current instruction
        together (render_sched); the function is then rendered under the schedule."""
        self.uses_members = True
        self.member_blocks.add(self.block)
        return "sg_m"

    def waits_for_work_group(self) -> None:
        """The current instruction waits for every work-item of the work-group (a barrier,
        a work-group function): under the schedule its block is entered only by the lanes
        of a sub-group together, never by one lane while the others of ``sg_in`` wait for
        it in the scheduler's ``*_sync`` (render_sched, ``Schedule.free``)."""
        self.member_blocks.add(self.block)
        self.waits.add(self.function)

    def _function_text(self, f: Function) -> str:
        """Function ``f`` as plain gotos, or, when it turns out to need sub-group membership
        (its callees are rendered before it), again under the schedule."""
        sites = len(self.printf_sites)
        self.function = f.id
        self.uses_members = False
        self.member_blocks = set()
        self.lines = []
        self._function(f)
        if self.uses_members and f.id not in self.scheduled:
            del self.printf_sites[sites:]
            self.scheduled.add(f.id)
            self.lines = []
            self._function(f)
        return "\n".join(self.lines)

    def _signature(self, f: Function) -> str:
        params = ["const SgCtx &sgc"] + (["u32 sg_in"] if f.id in self.scheduled else [])
        for p in f.params:
            t = self.m.types[p.result_type]
            params += [f"{C.scalar_ctype(x)} {n}"
                       for x, n in zip(C.leaf_types(t), self.leaves(p.result_id), strict=True)]
        return f"__device__ {self._ret_ctype(f.result_type)} f{f.id}({', '.join(params)})"

    def _param_regions(self, funcs: list[Function]
                       ) -> dict[int, tuple[origins.Origins, dict[int, int]]]:
        """Per function, the origins of its pointers that point into one buffer argument and
        each origin's region: from a kernel's buffer parameters (``regions_of``), and from a
        called function's parameters that every call passes a pointer into the same one
        (-cl-opt-disable calls the kernel's body from a wrapper)."""
        known: dict[int, tuple[origins.Origins, dict[int, int]]] = {}
        passed: dict[int, list[list[int | None]]] = {}  # callee → per call, per argument
        for f in reversed(funcs):  # callers first
            if f.id in self.kernel_only:
                regions = regions_of(self.m, f)
            else:
                calls = passed.get(f.id, [])
                regions = {p.result_id: r for k, p in enumerate(f.params)
                           if calls and (r := calls[0][k]) is not None
                           and all(c[k] == r for c in calls)}
            o, by_slot = known[f.id] = self._origins(f, regions)
            for b in f.blocks:
                for inst in b.instructions:
                    if inst.opname == "OpFunctionCall":
                        passed.setdefault(inst.operands[0].value, []).append(
                            [by_slot.get(o.of.get(op.value, -1)) for op in inst.operands[1:]])
        return known

    def _origins(self, f: Function, regions: dict[int, int]) -> tuple[origins.Origins, dict[int, int]]:
        """The origins of ``f``'s pointers whose object is one of ``regions``' parameters, and
        each such origin's slot → its region."""
        index = {p.result_id: i for i, p in enumerate(f.params)}
        o = origins.origins(self.m, f, {p: index[p] for p in regions}, set(), {})
        return o, {k: regions[f.params[i].result_id] for k, (_, i) in enumerate(o.slots)}

    def _function(self, f: Function) -> None:
        self.fn = f
        self.origins, self.region_of_slot = self.param_regions.get(f.id, (origins.Origins(), {}))
        self.lines.append(self._signature(f) + " {")
        decl_at = len(self.lines)
        declared: list[str] = []
        self.preds = self._phi_sources(f)
        self.order = {b.label: k for k, b in enumerate(f.blocks)}
        self.sched = Schedule(f, self._ret_ctype(f.result_type), f.id in self.kernel_only,
                              self.member_blocks) if f.id in self.scheduled else None
        if self.sched:
            declared += self.sched.prologue()
        if self.bounds and any(self.order[dst] <= self.order[b.label]
                               for b in f.blocks for dst in targets(b)):
            declared.append("  u64 sg_n = 0;")
        for block in f.blocks:
            self.block = block.label
            self.lines.append(f" L{block.label}:;")
            for inst in block.instructions:
                if inst.result_id is not None and inst.result_type is not None \
                        and inst.opname != "OpVariable":
                    t = self.rtype(inst)
                    declared += [f"  {C.scalar_ctype(x)} {n};"
                                 for x, n in zip(C.leaf_types(t), self.leaves(inst.result_id),
                                                 strict=True)]
                self.instruction(inst, block.label)
        if self.sched:
            self.lines += self.sched.epilogue()
        self.lines[decl_at:decl_at] = declared + self._variables(f) + spec_ops.values(self)
        self.lines.append("}")

    def _variables(self, f: Function) -> list[str]:
        """Function-scope OpVariables: an aligned byte array per variable per work-item."""
        out = []
        for block in f.blocks:
            for inst in block.instructions:
                if inst.opname == "OpVariable":
                    t = self.rtype(inst).pointee
                    size = max(T.size_of(t), 1)
                    out.append(f"  __align__(16) u8 v{inst.result_id}[{size}];")
                    out.append(f"  char *r{inst.result_id} = (char*)v{inst.result_id};")
        return out

    def _phi_sources(self, f: Function) -> dict[tuple[int, int], list[tuple[int, int]]]:
        """(predecessor, block) → [(phi result, incoming value)]."""
        out: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for block in f.blocks:
            for inst in block.instructions:
                if inst.opname != "OpPhi":
                    continue
                for op in inst.operands:
                    value, pred = op.value
                    out.setdefault((pred, block.label), []).append((inst.result_id, value))
        return out

    def edge(self, src: int, dst: int, uniform: str = "true") -> str:
        """Code for the edge src → dst: the phi copies (through temporaries), then goto (under
        the schedule: ``Schedule.jump``, ``uniform`` saying whether all running lanes take it);
        a backward edge (every loop has one) first counts a step when checks are on."""
        copies = self.preds.get((src, dst), [])
        parts = ["sg_tick(sgc, sg_n);"] if self.bounds and self.order[dst] <= self.order[src] else []
        temps = []
        for k, (phi, value) in enumerate(copies):
            t = self.type_of(phi)
            for j, (x, e) in enumerate(zip(C.leaf_types(t), self.leaves(value), strict=True)):
                parts.append(f"{C.scalar_ctype(x)} t{k}_{j} = {e};")
                temps.append((self.leaves(phi)[j], f"t{k}_{j}"))
        parts += [f"{d} = {s};" for d, s in temps]
        jump = self.sched.jump(dst, uniform) if self.sched else f"goto L{dst};"
        return "{ " + " ".join(parts + [jump]) + " }"

    def instruction(self, inst: Instruction, label: int) -> None:
        op = inst.opname
        if op in ("OpPhi", "OpLoopMerge", "OpSelectionMerge", "OpLine", "OpNoLine", "OpVariable",
                  "OpLifetimeStart", "OpLifetimeStop", "OpNop", "OpMemoryNamedBarrier"):
            if op == "OpVariable" and len(inst.operands) > 1:
                ops.store(self, inst.result_id, inst.operands[1].value)
            return
        if op == "OpBranch":
            self.emit(self.edge(label, inst.operands[0].value))
        elif op == "OpBranchConditional":
            c, a, b = (o.value for o in inst.operands[:3])
            if self.sched and not (self.sched.free(a) and self.sched.free(b)):
                self.emit(f"{{ bool c_ = {self.leaf(c)}; u32 b_ = __ballot_sync(sg_m, c_); "
                          "bool u_ = b_ == sg_m || b_ == 0;")
                self.emit(f"  if (c_) {self.edge(label, a, 'u_')} else {self.edge(label, b, 'u_')} }}")
            else:
                self.emit(f"if ({self.leaf(c)}) {self.edge(label, a)} else {self.edge(label, b)}")
        elif op == "OpSwitch":
            sel, default = inst.operands[0].value, inst.operands[1].value
            t = self.type_of(sel)
            self.emit(f"switch ({self.leaf(sel)}) {{")
            for o in inst.operands[2:]:
                lit, target = o.value
                v = int.from_bytes(b"".join(w.to_bytes(4, "little") for w in lit), "little")
                self.emit(f"  case {C.literal(t, v)}: {self.edge(label, target, 'false')}")
            self.emit(f"  default: {self.edge(label, default, 'false')}")
            self.emit("}")
        elif op == "OpReturn":
            self.emit(self.sched.ret(None) if self.sched else "return;")
        elif op == "OpReturnValue":
            vals = self.leaves(inst.operands[0].value)
            ret = self._ret_ctype(self.fn.result_type)
            value = vals[0] if len(vals) == 1 else f"{ret}{{{', '.join(vals)}}}"
            self.emit(self.sched.ret(value) if self.sched else f"return {value};")
        elif op == "OpUnreachable":  # (checks off: undefined, as the SPIR-V spec has it)
            self.emit("sg_unreachable(sgc.fault, sg_global_linear(sgc));" if self.bounds
                      else "__trap();")
        elif op == "OpFunctionCall":
            self._call(inst)
        elif op == "OpLoad":
            self._load(inst)
        elif op == "OpStore":
            ops.store(self, inst.operands[0].value, inst.operands[1].value,
                      ops.memory_alignment(inst, 2))
        elif op in self.ops:
            self.ops[op](self, inst)
        else:
            raise UnsupportedError(f"CUDA backend: {op}" + (f" ({inst.ext_opname})"
                                                           if inst.ext_opname else ""))

    def _call(self, inst: Instruction) -> None:
        fid = inst.operands[0].value
        f = self.m.functions[fid]
        if f.is_declaration:
            raise UnsupportedError(f"call to undefined function '{f.name or fid}'")
        members = [self.members()] if fid in self.scheduled else []
        if fid in self.waits:
            self.waits_for_work_group()
        args = ["sgc", *members] + [x for o in inst.operands[1:] for x in self.leaves(o.value)]
        call = f"f{fid}({', '.join(args)})"
        names = self.result_names(inst) if len(C.leaf_types(f.result_type)) else []
        if not names:
            self.emit(call + ";")
        elif len(names) == 1:
            self.emit(f"{names[0]} = {call};")
        else:
            self.emit(f"{{ auto rv = {call}; " + " ".join(
                f"{n} = rv.v{k};" for k, n in enumerate(names)) + " }")

    # -- memory ----------------------------------------------------------------
    def guard(self, ptr: int, p: str, nbytes: int | str, align: int, kind: int) -> str:
        """The C condition under which an access of ``nbytes`` at ``p`` (pointer value
        ``ptr``) goes ahead, recording the fault otherwise (``sg_ok``; kind 0 load, 1
        store, 2 atomic); '' with bounds checks off or for private memory."""
        sc = self.type_of(ptr).storage_class
        if not self.bounds or sc == "Function":
            return ""
        region = self.region_of_slot.get(self.origins.of.get(ptr, -1))
        if region is not None:  # that argument's buffer alone (sg_ok_in)
            return f"sg_ok_in(sgc, {p}, {nbytes}, {align}, {kind}, {region}u)"
        space = 1 if sc == "Workgroup" else 0 if sc in ("CrossWorkgroup", "UniformConstant") else 2
        return f"sg_ok(sgc, {p}, {nbytes}, {align}, {kind}, {space})"

    def guarded_assign(self, inst: Instruction, cond: str, exprs: list[str]) -> None:
        """Assign ``exprs`` to the result where ``cond`` holds, else zeros (a skipped load)."""
        if not cond:
            self.assign(inst, exprs)
            return
        zeros = [C.zero(x) for x in C.leaf_types(self.rtype(inst))]
        self.emit(f"{{ bool ok_ = {cond}; " + " ".join(
            f"{n} = ok_ ? {e} : {z};" for n, e, z in zip(self.result_names(inst), exprs, zeros,
                                                         strict=True)) + " }")

    def guarded(self, cond: str, lines: list[str]) -> None:
        """Emit ``lines`` (stores) where ``cond`` holds."""
        if cond:
            self.emit(f"if ({cond}) {{ " + " ".join(lines) + " }")
        else:
            for line in lines:
                self.emit(line)

    def _load(self, inst: Instruction) -> None:
        ptr = inst.operands[0].value
        if ptr in self.builtins:
            self.assign(inst, self._builtin(self.builtins[ptr], self.rtype(inst)))
            return
        ops.load(self, inst)

    def _builtin(self, name: str, t: Type) -> list[str]:
        """Leaves of a built-in variable's value (docs/subgroups.md for the sub-group ones)."""
        if name in BUILTIN_DIMS:
            f = {"GlobalInvocationId": "sg_gid(sgc, {d})", "LocalInvocationId": "sg_local({d})",
                 "WorkgroupId": "sg_group(sgc, {d})", "WorkgroupSize": "sg_lsize({d})",
                 "EnqueuedWorkgroupSize": "sgc.enq[{d}]", "GlobalSize": "sgc.gsize[{d}]",
                 "NumWorkgroups": "sgc.ngr[{d}]", "GlobalOffset": "sgc.goff[{d}]"}[name]
            lt = C.leaf_types(t)
            return [f"({C.scalar_ctype(x)}){f.format(d=d)}" for d, x in enumerate(lt)]
        expr = {"WorkDim": "sgc.dim", "GlobalLinearId": "sg_global_linear(sgc)",
                "LocalInvocationIndex": "sg_linear()", "SubgroupSize": "sg_size()",
                "SubgroupMaxSize": "SG_SIZE", "NumSubgroups": "sg_num()",
                "NumEnqueuedSubgroups": "sg_enq_num(sgc)", "SubgroupId": "sg_id()",
                "SubgroupLocalInvocationId": "sg_lane()"}.get(name)
        if name in LANE_MASKS:  # get_sub_group_<kind>_mask: lanes < SG_SIZE <= 32 in component 0
            return [f"sg_lane_mask({LANE_MASKS[name]})", "0u", "0u", "0u"]
        if expr is None:
            raise UnsupportedError(f"CUDA backend: built-in {name}")
        return [f"({C.scalar_ctype(t)}){expr}"]

    # -- kernels ---------------------------------------------------------------
    def _kernel(self, fid: int, name: str, cuda_name: str, bound: int) -> tuple[KernelInfo, str]:
        f = self.m.functions[fid]
        info = KernelInfo(name, cuda_name, local_bytes=self.kernel_local.get(name, 0))
        params = [f"u64 c{i}" for i in range(15)] + ["u32 cdim", "u64 *cpf", "const u64 *crng",
                                                    "u32 cnrng", "u32 cdyn", "u64 *cfault",
                                                    "u64 csteps"]
        body = ["  SgCtx sgc = {{c0, c1, c2}, {c3, c4, c5}, {c6, c7, c8}, {c9, c10, c11}, "
                "{c12, c13, c14}, cdim, cpf, crng, cnrng, cdyn, cfault, csteps};"]
        if self.bounds:
            body.append("  if (sg_linear() == 0) sg_abort = 0;\n  sg_barrier();")
        args = ["sgc"] + (["sg_lanes()"] if fid in self.scheduled else [])
        for i, p in enumerate(f.params):
            t = self.m.types[p.result_type]
            if t.op == "Pointer":
                kind = "byval" if by_value(self.m, p.result_id) else (
                    "local" if t.storage_class == "Workgroup" else "ptr")
                if kind == "local":
                    params.append(f"u64 a{i}")
                    args.append(f"(char*)(sg_dyn + a{i})")
                else:
                    params.append(f"char *a{i}")
                    args.append(f"a{i}")
                info.params.append((kind, ["char*"], t))
                continue
            lts = C.leaf_types(t)
            ctypes = []
            for k, x in enumerate(lts):
                bits = {8: "u8", 16: "u16", 32: "u32", 64: "u64"}[T.size_of(x) * 8] \
                    if x.op != "Bool" else "u8"
                params.append(f"{bits} a{i}_{k}")
                ctypes.append(bits)
                args.append(f"sg_from_bits<{C.scalar_ctype(x)}>((u64)a{i}_{k})"
                            if x.op != "Bool" else f"(a{i}_{k} != 0)")
            info.params.append(("value", ctypes, t))
        text = (f'extern "C" __global__ void __launch_bounds__({bound}) {cuda_name}('
                + ", ".join(params) + ") {\n" + "\n".join(body)
                + f"\n  f{fid}({', '.join(args)});\n}}")
        return info, text
