"""``launch``: run one kernel over an NDRange on the CPU engine (docs/internals.md, "Launch").

The work-groups are split into batches of about ``SGVM_BATCH_LANES`` lanes
(default 262144, measured fastest of 16K/64K/256K on the benchmarks: big enough that Python's per-instruction cost vanishes, small
enough that lane arrays stay cache-friendly and memory stays bounded); each
batch runs in lock-step through ``engine.cpu.scheduler``.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..compiler.subgroup_size import kernel_sub_group_size
from ..errors import LogicError, UnsupportedError
from ..spirv import Module, Type
from .args import BufferArg, ImageArg, KernelArg, LocalArg, NullArg, SamplerArg, ValueArg
from .device import CPU_DEVICE, CUDA_DEVICE, DeviceModel
from .memory import Allocation
from .ndrange import NDRange

DEFAULT_BATCH_LANES = 1 << 18
DEFAULT_MAX_STEPS = 10_000_000
PROGRESS_AFTER_S = 2.0


@dataclass
class LaunchResult:
    """What a launch reports: printf output (work-item order), step counts, timing, and
    the message profile when a profiling queue ran it (``sgvm.visa.MessageProfile``)."""

    printf: str = ""
    steps: int = 0
    batches: int = 0
    seconds: float = 0.0
    profile: Any = None


def sub_group_size(entry_modes: dict, options: Any, device: DeviceModel) -> int:
    """The kernel's SubgroupSize mode, else -sgvm-sub-group-size / SGVM_SUB_GROUP_SIZE, else the
    default; a size the device lacks raises (``compiler.subgroup_size.kernel_sub_group_size``)."""
    required = entry_modes.get("SubgroupSize")
    return kernel_sub_group_size(required[0] if required else None, options, device)


def _arg_value(arg: KernelArg, t: Type, name: str, byval: bool, keep: list) -> Any:
    from ..engine.cpu import types as T
    from ..engine.cpu.image_ops import image_handle, sampler_handle
    from ..engine.cpu.memory_ops import unpack

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


def launch(module: Module, kernel: str, args: Sequence[KernelArg], ndrange: NDRange, *,
           device: DeviceModel = CPU_DEVICE, observers: Sequence[Any] = (),
           options: Any = None, param_names: Sequence[str] | None = None) -> LaunchResult:
    """Run ``kernel`` of ``module`` over ``ndrange`` with ``args``; see the module docstring.

    ``param_names``: the kernel's parameter names as the source spells them (clang's
    SPIR-V has none), used in error messages."""
    from ..engine.cpu.batch import Batch, Geometry
    from ..engine.cpu.program import arg_label, program_for
    from ..engine.cpu.scheduler import call

    t0 = time.perf_counter()
    if kernel not in module.kernel_names:
        raise LogicError(f"no kernel named '{kernel}'", "CL_INVALID_KERNEL_NAME")
    prog = program_for(module, kernel)
    if len(args) != len(prog.params):
        raise LogicError(f"kernel '{kernel}' takes {len(prog.params)} arguments, {len(args)} given",
                         "CL_INVALID_KERNEL_ARGS")
    if ndrange.group_volume > device.max_work_group_size:
        raise LogicError(f"work-group size {ndrange.local_size} exceeds the device maximum "
                         f"{device.max_work_group_size}", "CL_INVALID_WORK_GROUP_SIZE")
    if options is not None and getattr(options, "uniform_work_groups_required", False) \
            and not ndrange.uniform:
        raise LogicError(f"global size {ndrange.global_size} is not a multiple of the work-group "
                         f"size {ndrange.local_size}", "CL_INVALID_WORK_GROUP_SIZE")
    S = sub_group_size(prog.entry_point.execution_modes, options, device)
    P = -(-ndrange.group_volume // S) * S
    geom = Geometry(ndrange, S, P)
    result = LaunchResult()
    if ndrange.work_items == 0:
        return result
    labels = [arg_label(param_names[i], i) if param_names and i < len(param_names)
              and param_names[i] and not param_names[i].startswith("argument ") else name
              for i, (_, _, name, _) in enumerate(prog.params)]
    if device.name == CUDA_DEVICE.name:  # the CUDA backend (docs/cuda.md)
        if observers:
            raise UnsupportedError("observers (checker, profiler) need the CPU device")
        from ..engine.cuda.runtime import launch_cuda

        return launch_cuda(module, kernel, args, ndrange, S, result, labels)

    keep: list[Allocation] = []
    names: dict[int, str] = {}
    values: list[tuple[int, Any]] = []
    local_args: list[tuple[int, int]] = []  # (param id, offset in the group region)
    local_bytes = prog.local_bytes
    for (pid, t, _, byval), arg, name in zip(prog.params, args, labels, strict=False):
        if isinstance(arg, LocalArg):
            local_bytes = -(-local_bytes // 16) * 16
            local_args.append((pid, local_bytes))
            local_bytes += arg.nbytes
            continue
        if isinstance(arg, BufferArg):
            names[arg.allocation.id] = name
        values.append((pid, _arg_value(arg, t, name, byval, keep)))
    if local_bytes > device.local_mem_size:
        raise LogicError(f"kernel '{kernel}' needs {local_bytes} bytes of local memory, the device "
                         f"has {device.local_mem_size}", "CL_OUT_OF_RESOURCES")

    target = int(os.environ.get("SGVM_BATCH_LANES", DEFAULT_BATCH_LANES))
    max_steps = int(os.environ.get("SGVM_MAX_STEPS", DEFAULT_MAX_STEPS))
    per_batch = max(1, target // P)
    total = ndrange.total_groups
    progress = _Progress(total, kernel)
    printf: list[tuple[int, str]] = []
    with np.errstate(all="ignore"):
        for first in range(0, total, per_batch):
            n = min(per_batch, total - first)
            st = Batch(geom, first, n, kernel=kernel, max_steps=max_steps, observers=observers)
            st.names = names
            _prepare(st, prog, values, local_args, local_bytes)
            try:
                call(prog.entry, st.template.copy(), st, st.live)
            except RecursionError as e:
                raise UnsupportedError(f"kernel '{kernel}': call depth too large") from e
            result.steps += st.steps
            result.batches += 1
            printf.extend(st.printf)
            progress.update(first + n)
    progress.close()
    printf.sort(key=lambda x: x[0])
    result.printf = "".join(s for _, s in printf)
    result.seconds = time.perf_counter() - t0
    return result


@functools.lru_cache(maxsize=4)
def _group_offsets(ngroups: int, lanes_per_group: int, local_bytes: int) -> np.ndarray:
    """Per lane: the byte offset of its work-group's region in a batch's local arena
    (the same for every full batch of a launch, so computed once)."""
    group = np.repeat(np.arange(ngroups, dtype=np.uint64), lanes_per_group)
    out = group * np.uint64(local_bytes)
    out.flags.writeable = False
    return out


def _prepare(st: Any, prog: Any, values: list, local_args: list, local_bytes: int) -> None:
    """Per-batch arenas and the register template with arguments and local pointers."""
    tpl = list(prog.template)
    for pid, v in values:
        tpl[pid] = v
    L = st.L
    if prog.private_bytes:
        st.private = Allocation(np.zeros(prog.private_bytes * L, np.uint8), "private", "private")
    if local_bytes:
        st.local = Allocation(np.zeros(local_bytes * st.ngroups, np.uint8), "local", "local")
        offsets = _group_offsets(st.ngroups, st.geom.lanes_per_group, local_bytes)
        st.local_base = offsets + np.uint64(st.local.base)
        for vid, off in prog.local_vars.items():
            tpl[vid] = st.local_base + np.uint64(off)
        for pid, off in local_args:
            tpl[pid] = st.local_base + np.uint64(off)
        for cid, fn in prog.batch_constants:
            tpl[cid] = fn(tpl, st)
    st.template = tpl
