"""The native backend behind the backend interface: kernels rendered to C++ (``render``),
compiled by the bundled clang (``compile``), run on a thread pool (docs/native.md).

* Work-groups are split into chunks that run on ``SGVM_THREADS`` threads (default: the
  CPUs this process may use); ctypes releases the GIL during each call. Each call gets
  its own frame (lane arrays), local memory and private arena.
* Checks (``SGVM_BOUNDS``, default 1): every global, constant and local access is
  bounds- and alignment-checked and the step budget counts block executions per
  work-group; ``SGVM_BOUNDS=0`` compiles them out.
* What the renderer does not support (``UnsupportedError`` while rendering: program-scope
  variables holding pointers, printf's value read …), launches with
  observers and launches under an implementation-defined variant other than sgvm's own
  (``runtime.variant``) run on the NumPy engine; the first time a kernel does, one line
  on stderr says why.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import BuildError, KernelMemoryError, LogicError, UnsupportedError
from ...runtime import environment
from ...runtime.args import BufferArg, ImageArg, LocalArg, NullArg, SamplerArg, ValueArg
from ...runtime.environment import Settings
from ...runtime.memory import OFFSET_BITS, allocation
from ...runtime.ndrange import NDRange
from ...runtime.variant import Variant
from ...spirv import Module
from .. import backend as backends
from ..backend import Again, Backend, LaunchRequest, LaunchResult
from ..clower import ctypes_ as C
from ..clower import printf
from ..common import faults, limits
from ..common import types as T
from ..common.image_descriptor import host_descriptor
from ..cpu.arenas import groups_per_batch
from ..cpu.program import program_for
from . import compile as compiler
from . import pool
from .regions import BUNDLE, STRAIGHT, groups, rows
from .render import KernelInfo, Renderer

_SOURCES: weakref.WeakKeyDictionary[Module, dict[tuple[int, bool], Any]] = \
    weakref.WeakKeyDictionary()
_ANNOUNCED: dict[tuple[int, str], str] = {}  # (module, kernel) → why it ran on the NumPy engine
SMALL = 1 << 15  # work-items: fewer run on the calling thread
_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


# prelude.h's SgCtx as 64-bit words: enq, goff, gsize, ngr (3 each), dim | nrng << 32, rng,
# fault, steps, local_bytes, checks | nlobj << 32, npobj (and padding), lobj, pobj, pslot,
# preg, nparams, wg; the pointers' words (rng, fault, lobj, pobj, preg) are set once the
# array holding them is made
_CTX = 26
_CTX_POINTERS = [13, 14, 19, 20, 22]


@functools.lru_cache(maxsize=64)
def _own_choices(v: Variant) -> bool:
    """Whether ``v`` makes sgvm's own implementation-defined choices (any sub-group size and
    seed): the variants native code runs."""
    return not v.differences(Variant(sub_group_size=v.sub_group_size, seed=v.seed))


_together = functools.lru_cache(maxsize=256)(groups)  # work-groups run together per shape


@functools.lru_cache(maxsize=256)
def _rows(nd: NDRange, sub_group_size: int, private: bool) -> NDRange:
    """The NDRange a blind kernel's launch runs (regions.rows): ``nd`` or the same work-items
    in rows of work-groups."""
    local = rows(nd.local_size, nd.global_size, sub_group_size, private)
    return nd if local is None else NDRange(nd.global_size, local, nd.global_offset, nd.work_dim)


def checks_enabled(env: Settings | None = None) -> bool:
    """Whether launches check memory accesses and the step budget (``SGVM_BOUNDS=0``: off),
    in ``env`` (None: the environment now)."""
    return (env or environment.current()).SGVM_BOUNDS != "0"


def threads(env: Settings | None = None) -> int:
    """``SGVM_THREADS`` in ``env`` (None: the environment now), else the CPUs this process may
    run on. (Read with the launch's other settings: ``os.environ.get`` of two unset names
    took 25-30 µs of a launch whose interpreter data the benchmark's rewrite of 48 MiB of
    inputs had put out of cache.)"""
    n = (env or environment.current()).SGVM_THREADS
    if n:
        return max(1, int(n))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# The largest C++ the backend hands to clang: a kernel of some 40,000 instructions (every
# conversion of OpenCL C in one kernel, tests/compiler) renders to 40 MiB, which -O3 did
# not build in 10 minutes; typical kernels render to well under 1 MiB. A module past it is
# built kernel by kernel, each once launched.
MAX_SOURCE = 4 << 20


def compiled(module: Module, sub_group_size: int, checked: bool, together: bool = False,
             kernel: str | None = None) -> tuple[Any, dict[str, KernelInfo | UnsupportedError]]:
    """The loaded library of ``module`` and, per kernel, its KernelInfo or why it cannot run
    natively (raises BuildError when the C++ does not compile, UnsupportedError when it is
    too large to; cached per module).
    ``together``: the code for launches that run work-groups together (regions.groups),
    built only once a launch does. ``kernel``: the one launched; where the module's C++ is
    past ``MAX_SOURCE``, the library of that kernel alone."""
    per = _SOURCES.setdefault(module, {})
    key = (sub_group_size, checked, together)
    if key not in per:
        per[key] = _build(module, sub_group_size, checked, together, None)
    if isinstance(per[key], _TooLarge) and kernel is not None:
        key += (kernel,)
        if key not in per:
            per[key] = _build(module, sub_group_size, checked, together, kernel)
    entry = per[key]
    if isinstance(entry, Exception):
        raise entry
    return entry


class _TooLarge(UnsupportedError):
    """A module whose C++ is past ``MAX_SOURCE``: built kernel by kernel."""


def _build(module: Module, sub_group_size: int, checked: bool, together: bool,
           kernel: str | None) -> Any:
    """(library, kernels) of ``module`` or of its one ``kernel``, or the exception saying
    why there is none."""
    try:
        source, kernels = Renderer(module, sub_group_size, checked, together).render(kernel)
        if len(source) > MAX_SOURCE:
            return _TooLarge(f"its C++ is {len(source) / 2**20:.0f} MiB, past the "
                             f"{MAX_SOURCE >> 20} MiB the native backend builds "
                             "(clang would take minutes)")
        return compiler.library(source), kernels
    except (BuildError, UnsupportedError) as e:
        return e


def _announce(module: Module, kernel: str, why: str) -> None:
    key = (id(module), kernel)
    if key not in _ANNOUNCED:
        _ANNOUNCED[key] = why
        sys.stderr.write(f"sgvm: kernel '{kernel}' runs on the NumPy engine: {why}\n")


def fallback_reason(module: Module, kernel: str) -> str | None:
    """Why a launch of ``kernel`` on this backend ran on the NumPy engine (the line the first
    such launch wrote on stderr), or None when none has."""
    return _ANNOUNCED.get((id(module), kernel))


def _leaf_words(arg: ValueArg, t: Any, label: str) -> list[int]:
    data = bytes(arg.data)
    size = T.size_of(t)
    if len(data) != size and not (t.op == "Vector" and t.count == 3 and len(data) == T.data_size(t)):
        raise LogicError(f"argument '{label}': {len(data)} bytes given, parameter takes {size}",
                         "CL_INVALID_ARG_SIZE")
    data = data.ljust(size, b"\0")
    out = []
    for off, x in zip(C.leaf_offsets(t), C.leaf_types(t), strict=True):
        n = max(T.size_of(x), 1)
        out.append(int(np.frombuffer(data, _BITS[n], 1, off)[0]))
    return out


class NativeBackend(Backend):
    """See the module docstring."""

    name = "native"

    def available(self) -> bool:
        return compiler.available()

    def launch(self, request: LaunchRequest) -> LaunchResult:
        plan = self._plan(request)
        if plan is None:
            return backends.get("numpy").launch(request)
        return _run(*plan, request)

    def again(self, request: LaunchRequest) -> Again | None:
        """The launch as a function that calls the pool with the arguments worked out here and
        reads the fault record (``runtime.repeats``): for kernels whose context is reused
        (``_launch_key``: no images, samplers, program-scope variables or printf). Its thread
        count is the one of this launch's environment and CPUs."""
        plan = self._plan(request)
        if plan is None:
            return None
        lib, info, nd, checked, W, n = plan
        if _launch_key(info, request, nd, checked, W) is None:
            return None
        c = _reused_context(info, request, nd, checked, W)
        go = pool.runner(_function(lib, info.symbol), c.address, c.address + 8 * _CTX, c.total, W,
                         n, c.sizes, c.lanes)

        def run(t0: float, request_of: Callable[[], LaunchRequest]) -> LaunchResult:
            return _outcome(info, c, *go(), t0, request_of)
        return run

    def _plan(self, request: LaunchRequest) -> tuple[Any, KernelInfo, NDRange, bool, int, int] | None:
        """How the launch runs natively: (library, kernel, NDRange it runs: ``_rows``,
        checked, work-groups together, threads); None where it runs on the NumPy engine
        (announced once on stderr, but for launches with observers)."""
        module, kernel = request.module, request.kernel
        if request.observers:  # by design (docs/native.md, "Using it"): not announced
            return None
        v = request.variant
        if not _own_choices(v):
            _announce(module, kernel, f"{v.describe()} runs on the reference engine")
            return None
        env = request.settings
        n = 1 if request.ndrange.work_items < SMALL else threads(env)  # (small: not worth threads)
        if n > 1:
            pool.wake()  # while the launch is prepared
        checked = checks_enabled(env)
        try:
            lib, kernels = compiled(module, request.sub_group_size, checked, kernel=kernel)
            info = kernels[kernel]
            if isinstance(info, UnsupportedError):
                raise info
            self._check_args(request, info)
            nd = _rows(request.ndrange, request.sub_group_size, info.private_bytes > 0) \
                if info.blind else request.ndrange
            W = _together(nd.local_size, nd.global_size, request.sub_group_size,
                          STRAIGHT if info.straight else BUNDLE) if info.groupable else 1
            if W > 1:
                lib, kernels = compiled(module, request.sub_group_size, checked, True, kernel)
                info = kernels[kernel]
        except (UnsupportedError, BuildError) as e:
            _announce(module, kernel, f"the native backend cannot run it ({_reason(e)})")
            return None
        return lib, info, nd, checked, W, n

    @staticmethod
    def _check_args(request: LaunchRequest, info: KernelInfo) -> None:
        for (kind, _), arg in zip(info.params, request.args, strict=True):
            ok = isinstance(arg, _ARG_CLASSES.get(kind, ValueArg))
            if not ok:
                raise UnsupportedError(f"a {type(arg).__name__} argument")


_ARG_CLASSES = {"local": LocalArg, "ptr": (BufferArg, NullArg, ValueArg), "image": ImageArg,
                "sampler": SamplerArg}  # per parameter kind (arguments._PARAM_KINDS)


def _reason(e: Exception) -> str:
    if isinstance(e, BuildError):
        return "its C++ did not compile: " + (str(e).splitlines() or ["?"])[0]
    return str(e).removeprefix("native backend: ")


@dataclass
class _Context:
    """What a launch hands its kernel (prelude.h's SgCtx and the words after it, ``buf``)
    and what explains a fault afterwards."""

    buf: np.ndarray
    address: int  # buf's
    record: np.ndarray  # the fault record (the end of ``buf``)
    total: int  # units of W work-groups
    lanes: int  # lanes of one call's frame: W work-groups' (each a whole number of sub-groups)
    sizes: tuple[int, int, int]  # bytes of frame, local memory and private arena per call
    regions: list[faults.Region]
    owners: dict[tuple[str, int], Any]  # a fault's slot (KernelInfo.slots) → its object
    objects: dict[int, np.ndarray]  # start address → contents (printf's strings)
    images: dict[int, tuple[str, Any]]  # descriptor address → (label, image)
    local_objects: list[tuple[str, int, int]]
    keep: list[Any]  # what the words point into: by-value copies, image descriptors
    budget: int  # the step budget


_REUSED = threading.local()  # per thread: launch key → (its arrays, weakly; its _Context)
_REUSE_MOST = 32


def _launch_key(info: KernelInfo, request: LaunchRequest, nd: NDRange, checked: bool, W: int
                ) -> tuple | None:
    """What a launch's context is made of (``_context``), where every part can be compared:
    the buffers by their arrays' identities (held weakly with the context), by-value
    arguments by their bytes; None for launches with images, samplers, program-scope
    variables or printf, whose contexts are made each time."""
    if info.globals or info.printf_sites:
        return None
    args: list[Any] = []
    for arg in request.args:
        if isinstance(arg, BufferArg):
            a = arg.allocation
            args.append((id(a.data), arg.offset, a.read_only, a.name))
        elif isinstance(arg, LocalArg):
            args.append(("local", arg.nbytes))
        elif isinstance(arg, (ValueArg, NullArg)):
            args.append(arg)
        else:
            return None
    return (id(info), checked, W, request.max_steps, limits.max_steps(request.settings),
            request.sub_group_size, nd.work_dim, nd.local_size, nd.global_offset, nd.global_size,
            request.device.local_mem_size, tuple(request.labels), tuple(args))


def _reused_context(info: KernelInfo, request: LaunchRequest, nd: NDRange, checked: bool,
                    W: int) -> _Context:
    """``_context``, reused from this thread's earlier launch of the same kernel with the same
    arguments and sizes: its Python part (the argument words, the objects' table) cost a
    launch of the 4M vector add 0.2-0.3 ms after the benchmark's rewrite of its inputs (the
    interpreter's data out of cache), against about 1.7 for its pass over the lanes."""
    key = _launch_key(info, request, nd, checked, W)
    if key is None:
        return _context(info, request, nd, checked, W)
    table = getattr(_REUSED, "table", None)
    if table is None:
        table = _REUSED.table = {}
    hit = table.get(key)  # (the entry holds its info, so no other object has its id)
    if hit is not None and all(r() is not None for r in hit[1]):
        return hit[2]
    ctx = _context(info, request, nd, checked, W)
    if len(table) >= _REUSE_MOST:
        table.clear()
    table[key] = (info, [weakref.ref(a.allocation.data) for a in request.args
                         if isinstance(a, BufferArg)], ctx)
    return ctx


def _run(lib: Any, info: KernelInfo, nd: NDRange, checked: bool, W: int, n: int,
         request: LaunchRequest) -> LaunchResult:
    """The launch, over work-groups of ``nd`` (the request's, or its rows: ``_rows``), ``W``
    at a time (regions.groups), on up to ``n`` threads."""
    c = _reused_context(info, request, nd, checked, W)
    records = printf.buffer() if info.printf_sites else None
    if records is not None:
        c.buf[_CTX - 1] = records.ctypes.data
    code, chunks = pool.run(_function(lib, info.symbol), c.address, c.address + 8 * _CTX, c.total,
                            W, n, c.sizes, c.lanes)
    return _outcome(info, c, code, chunks, request.t0, lambda: request, records)


def _outcome(info: KernelInfo, c: _Context, code: int, chunks: int, t0: float,
             request_of: Callable[[], LaunchRequest], records: np.ndarray | None = None
             ) -> LaunchResult:
    """The result of a run that returned ``code`` after ``chunks`` chunks, or the error its
    fault record (cleared here: a context's record is zero between launches) or status
    tells."""
    if c.record[0]:
        record = c.record.copy()
        c.record[:] = 0
        request = request_of()
        owners = dict(c.owners)
        owners.update((("local", o[1]), o) for o in c.local_objects)
        owner = owners.get(info.slots[(int(record[3]) >> 48) - 1]) if int(record[3]) >> 48 else None
        own = _error(request.kernel, record, c.regions, c.local_objects, info.private_objects,
                     request.ndrange, c.budget, owner, c.images)
        if isinstance(own, KernelMemoryError):
            _explain(request)  # the reference engine's account of the same fault, if it sees it
        raise own
    if code:
        raise UnsupportedError(f"kernel '{request_of().kernel}': native code stopped with status "
                               f"{code}")
    result = LaunchResult(batches=chunks, seconds=time.perf_counter() - t0)
    if records is not None:  # strings: the module's constants and the buffers, as they are now
        result.printf = printf.format_records(records, info.printf_sites, c.objects)
    return result


def _context(info: KernelInfo, request: LaunchRequest, nd: NDRange, checked: bool, W: int
             ) -> _Context:
    """The launch's context over work-groups of ``nd``: the argument words, the objects per
    parameter, the regions' table, the local and private objects and the fault record
    (raises for an argument or size the device cannot take)."""
    S = request.sub_group_size
    words: list[int] = []
    regions: list[faults.Region] = []
    owners: dict[tuple[str, int], Any] = {}  # a fault's slot (KernelInfo.slots) → its object
    keep: list[Any] = []
    objects: dict[int, np.ndarray] = {}  # start address → contents (printf's strings)
    images: dict[int, tuple[str, Any]] = {}  # descriptor address → (label, image)
    local = info.local_bytes
    local_objects = list(info.local_objects)
    # per parameter, then per program-scope variable: its object [start, size, read-only]
    preg = [0] * (3 * (len(info.params) + len(info.globals)) + 3)
    for i, ((kind, t), arg, label) in enumerate(zip(info.params, request.args, request.labels,
                                                    strict=True)):
        if kind == "local":
            local = -(-local // 16) * 16
            words.append(local)
            local_objects.append((f"{label} (local)", local, arg.nbytes))
            owners["local_arg", i] = local_objects[-1]
            preg[3 * i + 1] = arg.nbytes
            local += arg.nbytes
        elif isinstance(arg, BufferArg):
            a = arg.allocation
            data, ro = a.data, a.read_only
            size = data.nbytes
            if arg.offset > size:
                raise LogicError(f"argument '{label}': offset past the buffer", "CL_INVALID_ARG_VALUE")
            base = data.ctypes.data
            if info.printf_sites:  # (a context kept for reuse holds no buffer)
                objects[base] = data
            words.append(base + arg.offset)
            regions.append(faults.Region(base, size, ro,
                                         f"{label} (buffer '{a.name}')" if a.name else label))
            owners["param", i] = regions[-1]
            preg[3 * i:3 * i + 3] = (base, size, int(ro))
        elif isinstance(arg, NullArg):
            words.append(0)
        elif isinstance(arg, ImageArg):
            desc = host_descriptor(arg.image)
            keep.append(desc)
            words.append(desc.ctypes.data)
            images[desc.ctypes.data] = (label, arg.image)
        elif isinstance(arg, SamplerArg):
            words.append(int(arg.sampler.literal))
        elif kind == "ptr":  # a struct passed by value: a private read-only copy
            data = np.frombuffer(bytes(arg.data), np.uint8).copy()
            keep.append(data)
            words.append(data.ctypes.data)
            regions.append(faults.Region(data.ctypes.data, data.size, True,
                                         f"private allocation '{label}'"))
            owners["param", i] = regions[-1]
            preg[3 * i:3 * i + 3] = (data.ctypes.data, data.size, 1)
        else:
            words += _leaf_words(arg, t, label)
    if info.globals:  # the NumPy engine's storage, so both backends see the same contents
        prog = program_for(request.module, request.kernel)
        for k, vid in enumerate(info.globals):
            a = allocation(int(prog.template[vid]) >> OFFSET_BITS)
            assert a is not None
            base = a.data.ctypes.data
            if info.printf_sites:
                objects[base] = a.data
            words.append(base)
            j = 3 * (len(info.params) + k)
            preg[j:j + 3] = (base, a.size, int(a.read_only))
            regions.append(faults.Region(base, a.size, a.read_only,
                                         f"{a.space} allocation '{a.name}'"))
            owners["global_var", k] = regions[-1]
    local = -(-local // 16) * 16
    groups_per_batch(request.kernel, info.private_need,  # the NumPy engine's limit
                     -(-request.ndrange.group_volume // S) * S, 1)
    pm = -(-nd.group_volume // S) * S
    pm *= W  # the lanes of W work-groups run together
    if local > request.device.local_mem_size:
        raise LogicError(f"kernel '{request.kernel}' needs {local} bytes of local memory, the "
                         f"device has {request.device.local_mem_size}", "CL_OUT_OF_RESOURCES")
    ngr = tuple(-(-g // lsz) for g, lsz in zip(nd.global_size, nd.local_size, strict=True))
    steps = limits.max_steps(request.settings) if request.max_steps is None else request.max_steps
    # One array of 64-bit words holds what the kernel reads: its context (prelude.h's SgCtx,
    # _CTX words), the argument words, the objects per parameter, the regions' table, the
    # local and private objects, then the fault record; built from one list of Python ints.
    table = faults.table(regions)
    lobj = [x for _, off, size in local_objects for x in (off, size)] or [0]
    pobj = [x for _, off, size in info.private_objects for x in (off, size)] or [0]
    words = words or [0]
    at_preg = _CTX + len(words)
    at_rng = at_preg + len(preg)
    at_lobj = at_rng + len(table)
    at_pobj = at_lobj + len(lobj)
    at_rec = at_pobj + len(pobj)
    buf = np.array([*nd.local_size, *nd.global_offset, *nd.global_size, *ngr,
                    nd.work_dim | len(regions) << 32, 0, 0, steps, local,
                    int(checked) | len(local_objects) << 32, len(info.private_objects), 0, 0,
                    info.private_bytes, 0, len(info.params), W, 0,
                    *words, *preg, *table, *lobj, *pobj, *[0] * faults.RECORD_WORDS], np.uint64)
    ctx_p = buf.ctypes.data
    buf[_CTX_POINTERS] = [ctx_p + 8 * at for at in (at_rng, at_rec, at_lobj, at_pobj, at_preg)]
    total = ngr[0] * ngr[1] * ngr[2] // W
    sizes = (info.frame_bytes * pm, max(local, 16), max(info.private_bytes * pm, 16))
    return _Context(buf, ctx_p, buf[at_rec:], total, pm, sizes, regions, owners, objects, images,
                    local_objects, keep, steps)


_PREPARED: dict[tuple[int, str], int] = {}


def _function(lib: Any, symbol: str) -> int:
    """The address of the kernel's entry point (skeleton.py)."""
    key = (id(lib), symbol)
    fn = _PREPARED.get(key)
    if fn is None:
        fn = _PREPARED[key] = ctypes.cast(getattr(lib, symbol), ctypes.c_void_p).value
    return fn


def _explain(request: LaunchRequest) -> None:
    """Re-run a launch that faulted on the NumPy engine, whose ``KernelMemoryError`` names the
    object the faulting pointer came from (native code knows only where the address fell);
    returns when that run sees no fault (its inputs are the faulted launch's outputs)."""
    try:
        backends.get("numpy").launch(request)
    except KernelMemoryError as e:
        raise KernelMemoryError(str(e)) from None


def _error(kernel: str, rec: np.ndarray, regions: list[faults.Region],
           local_objects: list[tuple[str, int, int]], private_objects: list[tuple[str, int, int]],
           nd: Any, budget: int, known: Any = None,
           images: dict[int, tuple[str, Any]] | None = None) -> Exception:
    """The NumPy engine's ``KernelMemoryError`` for fault record ``rec`` (engine/common/faults.py
    has the layout): the object an access fell outside of is the one its pointer came from
    where the check knew it (``known``: a region, or a local object's (label, offset, size)),
    else the one it overran (the nearest below it), its offset from that object's start (in
    the work-group's or work-item's own copy for local and private objects); ``budget``: the
    launch's step budget."""
    info = int(rec[3])
    why = (info >> 40) & 0xFF
    if why == faults.IMAGE_WRITE:
        assert images is not None
        return faults.image_write_error(kernel, rec, *images[int(rec[2])], nd)
    if why == faults.TIMEOUT:
        return faults.timeout_error(kernel, rec, nd, budget, "block executions per work-group")
    if why == faults.UNREACHABLE:
        return faults.unreachable_error(kernel, faults.recorded_id(rec, nd))
    nbytes, what = info & 0xFFFFFFFF, faults.KINDS[(info >> 32) & 0xFF]
    reason = faults.WHY[why & 3]
    addr = int(rec[2])
    if why & (4 | 32):
        a = addr - (1 << 64) if addr >= 1 << 63 else addr
        objects = local_objects if why & 4 else private_objects
        owner = "work-group" if why & 4 else "work-item"
        below = [o for o in objects if o[1] <= a] or objects[:1]
        name, start, size = known if why & 4 and isinstance(known, tuple) else \
            max(below, key=lambda o: o[1]) if below else ("memory", 0, 0)
        where = f"{name} ({size} bytes per {owner})"
        off = a - start
    else:
        def distance(r: faults.Region) -> int:
            return r.start - addr if addr < r.start else max(0, addr - (r.start + r.size) + 1)
        near = known if isinstance(known, faults.Region) else \
            min(regions, key=distance, default=None)
        if near is not None and (near is known or distance(near) < 1 << 20):
            off, where = addr - near.start, f"{near.label} ({near.size} bytes)"
        else:
            reason, off = "invalid", addr
            where = "null pointer" if addr < 1 << 16 else "unknown memory"
    return KernelMemoryError(
        f"kernel '{kernel}': {reason} {what} of {nbytes} bytes at byte offset {off} of {where} "
        f"by work-item with global id {faults.recorded_id(rec, nd)}")


BACKEND = NativeBackend()
