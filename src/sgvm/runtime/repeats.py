"""Launches that repeat an earlier one: the backend's prepared run (``Backend.again``).

Hosts launch the same kernel with the same arguments again and again (an iteration, a
benchmark, a pipeline stage per frame); OpenCL's ``clSetKernelArg`` state makes that the
common case, and ``sgvm.cl`` keeps an argument object for as long as the value set is the
same (``runtime.args``: arguments are immutable). The first launch of a kind is remembered;
the second asks the backend for the launch as a function (``Backend.again``) and runs it;
every later one runs that function and nothing else: no validation, look-up or context
building that the first launch already did with the very same inputs.

A launch is "the same" when its kernel (``launch._Kernel``), device, options, environment
(``environment.Settings``, one object per set of values), variant and step budget are the
same objects, its NDRange is equal, its argument objects are the same objects (held
weakly: the table keeps no buffer alive) and each buffer argument's allocation holds the
same array, read-only flag and name (an allocation can be given new bytes), the options'
``-sgvm-*`` settings and the parameter names equal. What those decide is all a launch's
preparation reads.

Measured (docs/native.md, "Fourteenth round"): a 1024-item kernel launches about twice as
often per second; before the 4M-element vector add's kernel, 0.20-0.23 ms of Python
instead of 0.31-0.35 (its data and the interpreter's out of the caches after the kernel's
48 MiB pass), though that launch as a whole is no shorter: the full path's Python had
overlapped the pool's helpers waking up.

The table is per thread (a backend's prepared state, a fault record among it, serves one
launch at a time) and holds ``MOST`` entries, emptied when full.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

from ..engine.backend import Again
from .args import BufferArg, KernelArg
from .device import DeviceModel
from .environment import Settings
from .ndrange import NDRange
from .variant import Variant

MOST = 32
_LOCAL = threading.local()


class Entry:
    """One kind of launch seen on this thread: what it is compared by, and ``run``: None
    after one launch, the backend's function after two, False where the backend has none."""

    __slots__ = ("pinned", "args", "memory", "sgvm", "names", "run")

    def __init__(self, pinned: tuple, args: Sequence[KernelArg], sgvm: tuple,
                 names: Sequence[str] | None) -> None:
        self.pinned = pinned  # the objects whose ids make the key, so no other object takes one
        self.args = [weakref.ref(a) for a in args]
        # per buffer argument: its position, its allocation's array (weakly), read-only flag, name
        self.memory = [(i, weakref.ref(a.allocation.data), a.allocation.read_only,
                        a.allocation.name) for i, a in enumerate(args) if isinstance(a, BufferArg)]
        self.sgvm = sgvm
        self.names = tuple(names) if names else ()
        self.run: Again | None | bool = None

    def serves(self, args: Sequence[KernelArg], sgvm: tuple, names: Sequence[str] | None) -> bool:
        """Whether a launch with these arguments, ``-sgvm-*`` settings and names is this one."""
        refs = self.args
        if len(refs) != len(args) or sgvm != self.sgvm:
            return False
        for r, a in zip(refs, args, strict=True):
            if r() is not a:
                return False
        for i, data, read_only, name in self.memory:
            m = args[i].allocation  # type: ignore[attr-defined]
            if data() is not m.data or m.read_only != read_only or m.name != name:
                return False
        return (tuple(names) if names else ()) == self.names


def _key(kernel: Any, device: DeviceModel, options: Any, env: Settings, variant: Variant | None,
         max_steps: int | None, ndrange: NDRange) -> tuple:
    return (id(kernel), id(device), id(options), id(env), id(variant), max_steps, ndrange)


def find(kernel: Any, device: DeviceModel, options: Any, env: Settings, variant: Variant | None,
         max_steps: int | None, ndrange: NDRange, args: Sequence[KernelArg], sgvm: tuple,
         names: Sequence[str] | None) -> Entry | None:
    """This thread's entry for the launch, if one was seen before."""
    table = getattr(_LOCAL, "table", None)
    if table is None:
        return None
    e = table.get(_key(kernel, device, options, env, variant, max_steps, ndrange))
    return e if e is not None and e.serves(args, sgvm, names) else None


def remember(kernel: Any, device: DeviceModel, options: Any, env: Settings,
             variant: Variant | None, max_steps: int | None, ndrange: NDRange,
             args: Sequence[KernelArg], sgvm: tuple, names: Sequence[str] | None) -> None:
    """Note a launch's first sighting on this thread."""
    table = getattr(_LOCAL, "table", None)
    if table is None:
        table = _LOCAL.table = {}
    if len(table) >= MOST:
        table.clear()
    table[_key(kernel, device, options, env, variant, max_steps, ndrange)] = \
        Entry((kernel, device, options, env, variant), args, sgvm, names)
