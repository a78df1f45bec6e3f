"""Sub-group membership by the CPU engine's rule in functions with sub-group collectives.

The lanes that take part in a collective are those that reached it together as the CPU
engine defines it (``engine/cpu/scheduler.py``): per function call, the block with the
lowest index in ``common.block_order`` that any lane waits at runs, for exactly the lanes
waiting there. A warp instead reconverges where NVCC and the hardware decide; with
independent thread scheduling, lanes that left a loop after different trip counts need not
have met again at the collective after it, so ``__activemask()`` can show part of the
sub-group (a softmax row reduced over 8 of its 16 lanes).

A function that uses the membership (a collective, a sub-group barrier, image block IO) or
calls one that does is therefore rendered with that schedule made explicit:

* It takes ``u32 sg_in``, the lanes that called it together (the kernel: ``sg_lanes()``),
  keeps ``sg_pc`` (the index of the block the lane waits at, ``SG_EXIT`` once returned),
  ``sg_m`` (the lanes running the current block: the membership every collective uses)
  and ``sg_wait`` (the lowest block index other lanes of ``sg_in`` wait at).
* A branch whose target is the same for all of ``sg_m`` (a ``__ballot_sync`` over ``sg_m``
  decides for conditional branches) and whose index is below ``sg_wait`` jumps straight
  there: the engine would run that block next, for the same lanes. Any other branch, and
  a return, stores the lane's next index in ``sg_pc`` and enters the scheduler.
* A kernel's own function (never called from another) ends a returning lane's thread at
  its next scheduler round: every live lane of ``sg_in`` meets there, a ballot takes the
  returned lanes out of ``sg_in`` and they exit, so no later ``*_sync`` mask names an exited
  thread. (Exiting at the return itself, with the others' masks still naming the thread,
  stopped an H200 with an illegal instruction in some code layouts: fuzz seed 127.) A
  work-group barrier after some work-items returned still completes, as on the CPU
  engine: the returned lanes have exited by the time the others reach it, since a lane
  that returns leaves through the scheduler, and the others meet it there.
* The scheduler (one place, so all lanes of ``sg_in`` meet at the same instructions) takes
  the lowest ``sg_pc`` over ``sg_in``, returns when it is ``SG_EXIT``, sets ``sg_m`` to the
  lanes waiting there and ``sg_wait`` to the lowest index of the others, and sends the
  lanes of ``sg_m`` to that block; the others go round again.

* Blocks from which no block that uses the membership or waits for the work-group can be
  reached (``Schedule.free``: the code after a function's last collective, say
  ``if (lane == 0) out[i] = sum;``) run as plain gotos: whatever order their lanes run in,
  no collective sees it. A branch into them needs no ballot and no scheduler; a lane that
  returns from them still meets the others in the scheduler (a kernel's own function: the
  thread ends). A work-group barrier or function (or a call reaching one) binds its block
  like a collective: a lane that went ahead to it would wait there for its sub-group's
  other lanes while they wait for it in the scheduler's ``*_sync`` (found by a kernel
  whose lanes left a loop of sub-group reductions after different trip counts into
  ``work_group_any``: the GPU hung, ``tests/cuda/test_diverged_barriers.py``).

Functions without sub-group collectives are rendered as plain gotos.
"""

from __future__ import annotations

from ...spirv import Block, Function, Module
from ..common.block_order import block_order


def targets(block: Block) -> list[int]:
    """The labels ``block``'s terminator may branch to."""
    term = block.terminator
    if term.opname == "OpBranch":
        return [term.operands[0].value]
    if term.opname == "OpBranchConditional":
        return [o.value for o in term.operands[1:3]]
    if term.opname == "OpSwitch":
        return [term.operands[1].value] + [o.value[1] for o in term.operands[2:]]
    return []


def called(module: Module) -> set[int]:
    """The ids of the functions some OpFunctionCall calls."""
    return {inst.operands[0].value for f in module.functions.values() for block in f.blocks
            for inst in block.instructions if inst.opname == "OpFunctionCall"}


def callees_first(module: Module) -> list[Function]:
    """The module's defined functions, every callee before its callers (OpenCL has no recursion)."""
    out: list[Function] = []
    seen: set[int] = set()

    def visit(f: Function) -> None:
        if f.id in seen or f.is_declaration:
            return
        seen.add(f.id)
        for block in f.blocks:
            for inst in block.instructions:
                if inst.opname == "OpFunctionCall":
                    visit(module.functions[inst.operands[0].value])
        out.append(f)

    for f in module.functions.values():
        visit(f)
    return out


class Schedule:
    """The scheduled form of one function's control flow (see the module docstring)."""

    def __init__(self, f: Function, ret_ctype: str, kernel_only: bool, members: set[int]) -> None:
        order = block_order(f)
        order += [b.label for b in f.blocks if b.label not in order]  # unreachable blocks
        self.index = {label: i for i, label in enumerate(order)}
        self.ret_ctype = ret_ctype
        self.kernel_only = kernel_only  # an entry point no function calls: returns end the thread
        # the blocks that reach a block using the membership or waiting for the work-group
        # (``members``): the others are free
        preds: dict[int, list[int]] = {}
        for b in f.blocks:
            for t in targets(b):
                preds.setdefault(t, []).append(b.label)
        bound, todo = set(members), list(members)
        while todo:
            for p in preds.get(todo.pop(), ()):
                if p not in bound:
                    bound.add(p)
                    todo.append(p)
        self.bound = bound

    def free(self, label: int) -> bool:
        """Whether no block using the membership or waiting for the work-group can be
        reached from block ``label``."""
        return label not in self.bound

    def prologue(self) -> list[str]:
        """Declarations at the top of the function."""
        lines = ["  u32 sg_m = sg_in, sg_wait = SG_EXIT, sg_pc = 0;"]
        if self.ret_ctype != "void":
            lines.append(f"  {self.ret_ctype} sg_ret = {{}};")
        return lines

    def jump(self, dst: int, uniform: str) -> str:
        """Go to block ``dst`` (after the edge's phi copies): straight there when ``uniform``
        (a C condition: every lane of sg_m takes this edge) and no other lane waits at a
        lower index, else through the scheduler."""
        if self.free(dst):
            return f"goto L{dst};"
        k = self.index[dst]
        direct = f"if ({uniform + ' && ' if uniform != 'true' else ''}{k}u < sg_wait) goto L{dst}; "
        return f"{direct}sg_pc = {k}u; goto sg_sched;"

    def ret(self, value: str | None) -> str:
        """A return: keep the value and wait in the scheduler for the other lanes to return
        (a kernel's own function: leave at the scheduler's next round)."""
        keep = f"sg_ret = {value}; " if value is not None else ""
        return f"{{ {keep}sg_pc = SG_EXIT; goto sg_sched; }}"

    def epilogue(self) -> list[str]:
        """The scheduler, after the last block."""
        back = "return sg_ret;" if self.ret_ctype != "void" else "return;"
        cases = " ".join(f"case {k}u: goto L{label};" for label, k in sorted(self.index.items(),
                                                                              key=lambda x: x[1]))
        if self.kernel_only:  # returned lanes leave sg_in, then end their threads
            leave = ["    u32 live_ = __ballot_sync(sg_in, sg_pc != SG_EXIT);",
                     "    if (sg_pc == SG_EXIT) return;",
                     "    sg_in = live_;",
                     "    u32 cur_ = sg_min_sync(sg_in, sg_pc);"]
        else:
            leave = ["    u32 cur_ = sg_min_sync(sg_in, sg_pc);",
                     f"    if (cur_ == SG_EXIT) {back}"]
        return [
            " sg_sched:;",
            "  {",
            *leave,
            "    sg_m = __ballot_sync(sg_in, sg_pc == cur_);",
            "    sg_wait = sg_min_sync(sg_in, sg_pc == cur_ ? SG_EXIT : sg_pc);",
            "    if (sg_pc != cur_) goto sg_sched;",
            f"    switch (cur_) {{ {cases} }}",
            "    __trap();",
            "  }",
        ]
