"""The NumPy backend: a launch as batches of work-groups run in lock-step by the
interpreter (docs/engine.md).

The work-groups are split into batches of about ``SGVM_BATCH_LANES`` lanes
(default 262144, measured fastest of 16K/64K/256K on the benchmarks: big enough that
Python's per-instruction cost vanishes, small enough that lane arrays stay
cache-friendly and memory stays bounded); each batch runs through ``scheduler.call``.
"""

from __future__ import annotations

import sys
import time
import weakref
from typing import Any

import numpy as np

from ...errors import LogicError, UnsupportedError
from ...runtime import environment
from ...runtime.args import BufferArg, ImageArg, KernelArg, LocalArg, NullArg, SamplerArg, ValueArg
from ...runtime.memory import Allocation
from ...runtime.ndrange import NDRange
from ...runtime.variant import Variant
from ..backend import Backend, LaunchRequest, LaunchResult
from ..common import limits
from ..common import types as T
from ..common.constants import sampler_handle
from ..common.values import unpack
from .arenas import allocate, groups_per_batch, patterned
from .batch import Batch, Geometry
from .image_ops import image_handle
from .malloc import pin_thresholds
from .program import program_for
from .scheduler import call

DEFAULT_BATCH_LANES = 1 << 18
PROGRESS_AFTER_S = 2.0
MALLOC_PINNED = pin_thresholds()  # glibc keeps lane arrays in the heap (``malloc``)


def _arg_value(arg: KernelArg, t: Any, name: str, byval: bool, keep: list) -> Any:
    if isinstance(arg, BufferArg):
        if arg.offset > arg.allocation.size:
            raise LogicError(f"argument '{name}': offset past the buffer", "CL_INVALID_ARG_VALUE")
        return np.uint64(arg.allocation.pointer(arg.offset))
    if isinstance(arg, NullArg):
        return np.uint64(0)
    if isinstance(arg, ValueArg):
        if not byval:
            return _plain_value(bytes(arg.data), t, name)
        data = np.frombuffer(bytes(arg.data), np.uint8)
        _check_size(data, t.pointee, name)
        a = Allocation(data.copy(), "private", name, read_only=True)
        keep.append(a)
        return np.uint64(a.base)
    if isinstance(arg, ImageArg):
        return image_handle(arg.image)
    if isinstance(arg, SamplerArg):
        return sampler_handle(arg.sampler)
    raise LogicError(f"argument '{name}': unsupported argument kind {type(arg).__name__}",
                     "CL_INVALID_ARG_VALUE")


def _check_size(data: np.ndarray, target: Any, name: str) -> None:
    size = T.size_of(target)
    if len(data) != size and not (target.op == "Vector" and target.count == 3
                                  and len(data) == T.data_size(target)):
        raise LogicError(f"argument '{name}': {len(data)} bytes given, parameter takes {size}",
                         "CL_INVALID_ARG_SIZE")


_PLAIN: dict[tuple[bytes, Any], Any] = {}  # (bytes, parameter type) → register value


def _plain_value(raw: bytes, t: Any, name: str) -> Any:
    """The register value of a by-value argument that is not a struct; remembered, since
    hosts pass the same values launch after launch (arrays read-only: shared by launches)."""
    hit = _PLAIN.get((raw, t))
    if hit is not None:
        return hit
    data = np.frombuffer(raw, np.uint8)
    _check_size(data, t, name)
    value = np.uint64(int.from_bytes(raw, "little")) if t.op == "Pointer" else unpack(t, data)
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    if len(_PLAIN) >= 4096:
        _PLAIN.clear()
    _PLAIN[(raw, t)] = value
    return value


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


Bound = tuple[dict[int, str], list[tuple[int, Any]], list[tuple[int, int, str]], int]
# Per program and labels: the last arguments bound (weakly: no buffer is kept alive for it).
_BOUND: dict[tuple[int, int], tuple[tuple[weakref.ref, ...], Any, Bound]] = {}


def _bind(request: LaunchRequest, prog: Any, keep: list) -> Bound:
    """The arguments as the launch uses them: allocation id → label (error messages),
    (param id, register value), local arguments (param id, bytes, label) and the local bytes.
    Remembered per argument objects (a host enqueueing a kernel again passes the same ones),
    except where a launch makes its own copies (structs by value) or asks images."""
    args = request.args
    key = (id(prog), id(request.labels))
    hit = _BOUND.get(key)
    if hit is not None and hit[1] is request.labels and len(hit[0]) == len(args):
        for ref, arg in zip(hit[0], args, strict=True):
            if ref() is not arg:
                break
        else:
            return hit[2]
    names: dict[int, str] = {}
    values: list[tuple[int, Any]] = []
    local_args: list[tuple[int, int, str]] = []  # (param id, bytes, label)
    local_bytes = prog.local_bytes
    memo = True
    for param, arg, name in zip(request.params, args, request.labels, strict=False):
        if isinstance(arg, LocalArg):
            local_bytes = -(-local_bytes // 16) * 16 + arg.nbytes
            local_args.append((param.id, arg.nbytes, name))
            continue
        if isinstance(arg, BufferArg):
            names[arg.allocation.id] = name
        elif isinstance(arg, ImageArg):
            names[arg.image.data.id] = name
        memo = memo and not param.byval and isinstance(arg, BufferArg | ValueArg | NullArg)
        values.append((param.id, _arg_value(arg, param.type, name, param.byval, keep)))
    bound = (names, values, local_args, local_bytes)
    if memo:
        if len(_BOUND) >= 256:
            _BOUND.clear()
        _BOUND[key] = (tuple(weakref.ref(a) for a in args), request.labels, bound)
    return bound


class NumpyBackend(Backend):
    """See the module docstring."""

    name = "numpy"

    def launch(self, request: LaunchRequest) -> LaunchResult:
        module, kernel, ndrange = request.module, request.kernel, request.ndrange
        prog = program_for(module, kernel)
        geom = _geometry(ndrange, request.sub_group_size, request.variant)
        result = LaunchResult()
        keep: list[Allocation] = []
        names, values, local_args, local_bytes = _bind(request, prog, keep)
        if local_bytes > request.device.local_mem_size:
            raise LogicError(f"kernel '{kernel}' needs {local_bytes} bytes of local memory, the "
                             f"device has {request.device.local_mem_size}", "CL_OUT_OF_RESOURCES")

        env = request.settings or environment.current()
        max_steps = limits.max_steps(env) if request.max_steps is None else request.max_steps
        batches = _schedule(prog, geom, env.SGVM_BATCH_LANES)
        progress = _Progress(ndrange.total_groups, kernel) if len(batches) > 1 else None
        printf: list[tuple[int, str]] = []
        completed = 0
        with np.errstate(all="ignore"):
            for first, n, groups in batches:
                reuse = groups is None and not request.observers
                st = _batch(prog, geom, first, n, max_steps) if reuse else \
                    Batch(geom, first, n, kernel=kernel, max_steps=max_steps, observers=request.observers,
                          groups=groups)
                st.names = names
                _prepare(st, prog, values, local_args)
                try:
                    call(prog.entry, st.template.copy(), st, st.live)
                except RecursionError as e:
                    raise UnsupportedError(f"kernel '{kernel}': call depth too large") from e
                result.steps += st.steps
                result.batches += 1
                if st.printf:
                    printf.extend(st.printf)
                completed += n
                if reuse:
                    _release(prog, st)
                if progress is not None:
                    progress.update(completed)
        if progress is not None:
            progress.close()
        if printf:
            printf.sort(key=lambda x: x[0])
            result.printf = "".join(s for _, s in printf)
        result.seconds = time.perf_counter() - request.t0
        return result


BACKEND = NumpyBackend()


_GEOMETRIES: dict[tuple[NDRange, int, int], tuple[Variant, Geometry]] = {}


def _geometry(ndrange: NDRange, S: int, variant: Variant) -> Geometry:
    """The launch's lane layout (``Geometry.lanes_for``), one per NDRange, size and variant
    (by identity: ``runtime.variant`` hands out one Variant per setting)."""
    key = (ndrange, S, id(variant))
    hit = _GEOMETRIES.get(key)
    if hit is not None and hit[0] is variant:
        return hit[1]
    geom = Geometry(ndrange, S, Geometry.lanes_for(ndrange, S, variant), variant)
    if len(_GEOMETRIES) >= 64:
        _GEOMETRIES.clear()
    _GEOMETRIES[key] = (variant, geom)
    return geom

# Idle batches of earlier launches without observers, by (program, geometry, first group,
# groups): a host relaunching a kernel over the same NDRange skips setting up the lane
# layout and the built-in lane arrays (``Batch.reset``). A batch in use is taken out, so
# launches from several threads never share one.
_IDLE: dict[tuple[int, int, int, int], tuple[Any, Geometry, Batch]] = {}
_IDLE_MAX = 16
_IDLE_LANES = 1 << 14  # larger batches are not kept: their set-up is small beside their work


def _batch(prog: Any, geom: Geometry, first: int, n: int, max_steps: int) -> Batch:
    """An idle batch of this layout made ready (``Batch.reset``), else a new one."""
    hit = _IDLE.pop((id(prog), id(geom), first, n), None)
    if hit is None or hit[0] is not prog or hit[1] is not geom:
        return Batch(geom, first, n, kernel=prog.kernel, max_steps=max_steps, observers=())
    st = hit[2]
    st.reset(max_steps)
    return st


def _release(prog: Any, st: Batch) -> None:
    if st.L > _IDLE_LANES:
        return
    st.private, st.local, st.template = [], [], []  # arenas go when the launch does
    if len(_IDLE) >= _IDLE_MAX:
        _IDLE.pop(next(iter(_IDLE)))
    _IDLE[(id(prog), id(st.geom), st.first_group, st.ngroups)] = (prog, st.geom, st)


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


# Per program, layout and SGVM_BATCH_LANES: the batches of a launch (``_schedule``).
_SCHEDULES: dict[tuple[int, int, str | None], tuple[Any, Geometry, list]] = {}


def _schedule(prog: Any, geom: Geometry, lanes: str | None) -> list:
    """The launch's batches (``_batches``), remembered per program, layout (which fixes the
    variant) and ``SGVM_BATCH_LANES`` (``lanes``)."""
    key = (id(prog), id(geom), lanes)
    hit = _SCHEDULES.get(key)
    if hit is not None and hit[0] is prog and hit[1] is geom:
        return hit[2]
    P = geom.lanes_per_group
    target = int(lanes or DEFAULT_BATCH_LANES)
    per_batch = groups_per_batch(prog.kernel, prog.private_bytes, P, max(1, target // P))
    batches = list(_batches(geom.variant, geom.ndrange.total_groups, per_batch))
    if len(_SCHEDULES) >= 64:
        _SCHEDULES.clear()
    _SCHEDULES[key] = (prog, geom, batches)
    return batches


def _prepare(st: Any, prog: Any, values: list, local_args: list) -> None:
    """Per-batch arenas and the register template with arguments and local pointers."""
    tpl = list(prog.template)
    for pid, v in values:
        tpl[pid] = v
    if st.geom.variant.memory_init == "pattern":  # uninitialised register values too
        for uid in prog.module.undefs:
            tpl[uid] = patterned(tpl[uid])
    if prog.private_vars or prog.local_vars or local_args:  # (a new or reset batch has none)
        for rid, v in allocate(st, prog, local_args).items():
            tpl[rid] = v
    for cid, fn in prog.batch_constants:
        tpl[cid] = fn(tpl, st)
    st.template = tpl
