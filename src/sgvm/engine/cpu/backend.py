"""The NumPy backend: a launch as batches of work-groups run in lock-step by the
interpreter (docs/engine.md).

The work-groups are split into batches of about ``SGVM_BATCH_LANES`` lanes
(default 262144, measured fastest of 16K/64K/256K on the benchmarks: big enough that
Python's per-instruction cost vanishes, small enough that lane arrays stay
cache-friendly and memory stays bounded); each batch runs through ``scheduler.call``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import numpy as np

from ...errors import LogicError, UnsupportedError
from ...runtime.args import BufferArg, ImageArg, KernelArg, LocalArg, NullArg, SamplerArg, ValueArg
from ...runtime.memory import Allocation
from ..backend import Backend, LaunchRequest, LaunchResult
from ..common import limits
from ..common import types as T
from ..common.constants import sampler_handle
from ..common.values import unpack
from .arenas import allocate, groups_per_batch, patterned
from .batch import Batch, Geometry
from .image_ops import image_handle
from .program import program_for
from .scheduler import call

DEFAULT_BATCH_LANES = 1 << 18
PROGRESS_AFTER_S = 2.0


def _arg_value(arg: KernelArg, t: Any, name: str, byval: bool, keep: list) -> Any:
    if isinstance(arg, BufferArg):
        if arg.offset > arg.allocation.size:
            raise LogicError(f"argument '{name}': offset past the buffer", "CL_INVALID_ARG_VALUE")
        return np.uint64(arg.allocation.pointer(arg.offset))
    if isinstance(arg, NullArg):
        return np.uint64(0)
    if isinstance(arg, ValueArg):
        data = np.frombuffer(bytes(arg.data), np.uint8)
        target = t.pointee if byval else t
        size = T.size_of(target)
        if len(data) != size and not (target.op == "Vector" and target.count == 3
                                      and len(data) == T.data_size(target)):
            raise LogicError(f"argument '{name}': {len(data)} bytes given, parameter takes {size}",
                             "CL_INVALID_ARG_SIZE")
        if byval:
            a = Allocation(data.copy(), "private", name, read_only=True)
            keep.append(a)
            return np.uint64(a.base)
        if t.op == "Pointer":
            return np.uint64(int.from_bytes(data.tobytes(), "little"))
        return unpack(target, data)
    if isinstance(arg, ImageArg):
        return image_handle(arg.image)
    if isinstance(arg, SamplerArg):
        return sampler_handle(arg.sampler)
    raise LogicError(f"argument '{name}': unsupported argument kind {type(arg).__name__}",
                     "CL_INVALID_ARG_VALUE")


class _Progress:
    def __init__(self, total: int, kernel: str):
        self.total, self.kernel = total, kernel
        self.start = time.perf_counter()
        self.shown = False
        self.enabled = sys.stderr.isatty()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        el = time.perf_counter() - self.start
        if el < PROGRESS_AFTER_S and not self.shown:
            return
        self.shown = True
        frac = done / self.total
        bar = "#" * int(30 * frac)
        sys.stderr.write(f"\r{self.kernel}: [{bar:<30}] {100 * frac:5.1f}% {el:6.1f}s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


class NumpyBackend(Backend):
    """See the module docstring."""

    name = "numpy"

    def launch(self, request: LaunchRequest) -> LaunchResult:
        module, kernel, ndrange = request.module, request.kernel, request.ndrange
        prog = program_for(module, kernel)
        S, variant = request.sub_group_size, request.variant
        geom = Geometry(ndrange, S, Geometry.lanes_for(ndrange, S, variant), variant)
        result = LaunchResult()
        keep: list[Allocation] = []
        names: dict[int, str] = {}
        values: list[tuple[int, Any]] = []
        local_args: list[tuple[int, int, str]] = []  # (param id, bytes, label)
        local_bytes = prog.local_bytes
        for param, arg, name in zip(request.params, request.args, request.labels, strict=False):
            if isinstance(arg, LocalArg):
                local_bytes = -(-local_bytes // 16) * 16 + arg.nbytes
                local_args.append((param.id, arg.nbytes, name))
                continue
            if isinstance(arg, BufferArg):
                names[arg.allocation.id] = name
            elif isinstance(arg, ImageArg):
                names[arg.image.data.id] = name
            values.append((param.id, _arg_value(arg, param.type, name, param.byval, keep)))
        if local_bytes > request.device.local_mem_size:
            raise LogicError(f"kernel '{kernel}' needs {local_bytes} bytes of local memory, the "
                             f"device has {request.device.local_mem_size}", "CL_OUT_OF_RESOURCES")

        target = int(os.environ.get("SGVM_BATCH_LANES", DEFAULT_BATCH_LANES))
        max_steps = limits.max_steps() if request.max_steps is None else request.max_steps
        P = geom.lanes_per_group
        per_batch = groups_per_batch(kernel, prog.private_bytes, P, max(1, target // P))
        total = ndrange.total_groups
        progress = _Progress(total, kernel)
        printf: list[tuple[int, str]] = []
        completed = 0
        with np.errstate(all="ignore"):
            for first, n, groups in _batches(variant, total, per_batch):
                st = Batch(geom, first, n, kernel=kernel, max_steps=max_steps,
                           observers=request.observers, groups=groups)
                st.names = names
                _prepare(st, prog, values, local_args)
                try:
                    call(prog.entry, st.template.copy(), st, st.live)
                except RecursionError as e:
                    raise UnsupportedError(f"kernel '{kernel}': call depth too large") from e
                result.steps += st.steps
                result.batches += 1
                printf.extend(st.printf)
                completed += n
                progress.update(completed)
        progress.close()
        printf.sort(key=lambda x: x[0])
        result.printf = "".join(s for _, s in printf)
        result.seconds = time.perf_counter() - request.t0
        return result


BACKEND = NumpyBackend()

# Work-group order variants (runtime.variant) run in this many steps: step ``b`` holds
# the work-groups at positions b, b + STEPS, b + 2·STEPS ... of the order, in lock-step.
GROUP_ORDER_STEPS = 16


def _batches(variant: Any, total: int, per_batch: int):
    """``(first, count, groups)`` per batch: contiguous runs of ``per_batch`` work-groups
    (``groups`` None), or under a work-group order variant the order's positions in
    ``GROUP_ORDER_STEPS`` strided steps, so that neighbours in the order never share one."""
    sequence = variant.permutation(total, variant.group_order)
    if sequence is None:
        for first in range(0, total, per_batch):
            yield first, min(per_batch, total - first), None
        return
    for step in range(min(total, GROUP_ORDER_STEPS)):
        members = sequence[step::GROUP_ORDER_STEPS]
        for k in range(0, len(members), per_batch):
            chunk = members[k:k + per_batch]
            yield int(chunk[0]), len(chunk), chunk


def _prepare(st: Any, prog: Any, values: list, local_args: list) -> None:
    """Per-batch arenas and the register template with arguments and local pointers."""
    tpl = list(prog.template)
    for pid, v in values:
        tpl[pid] = v
    if st.geom.variant.memory_init == "pattern":  # uninitialised register values too
        for uid in prog.module.undefs:
            tpl[uid] = patterned(tpl[uid])
    for rid, v in allocate(st, prog, local_args).items():
        tpl[rid] = v
    for cid, fn in prog.batch_constants:
        tpl[cid] = fn(tpl, st)
    st.template = tpl
