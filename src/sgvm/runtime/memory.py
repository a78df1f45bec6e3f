"""Byte arenas and tagged pointers.

Every piece of memory a kernel can reach is an :class:`Allocation`: a NumPy
``uint8`` array plus its address space and a name for error messages. A
kernel-visible pointer is a 64-bit value ``(allocation id << OFFSET_BITS) |
byte offset``; id 0 is the null pointer. Address spaces, generic pointers,
out-of-bounds detection and reinterpreting loads all follow from this.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field

import numpy as np

OFFSET_BITS = 40
OFFSET_MASK = (1 << OFFSET_BITS) - 1
MAX_ALLOCATION_BYTES = 1 << OFFSET_BITS

# SPIR-V storage classes → OpenCL address space names.
STORAGE_CLASS_SPACE = {
    "CrossWorkgroup": "global",
    "Workgroup": "local",
    "UniformConstant": "constant",
    "Function": "private",
    "Private": "private",
    "Generic": "generic",
    "Input": "private",
}


@dataclass(eq=False)
class Allocation:
    """One contiguous byte range kernels can address.

    ``data`` may be a view into another allocation's array (sub-buffers,
    images created from buffers); ``id`` is unique within the process.
    """

    data: np.ndarray
    space: str  # "global", "local", "constant", "private"
    name: str = ""
    id: int = field(default=0)
    read_only: bool = False
    # dtype → the allocation's whole elements of that dtype as one array (``typed``)
    views: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.data.dtype != np.uint8 or self.data.ndim != 1:
            raise ValueError("an allocation's data is a 1-D uint8 array")
        if self.data.nbytes >= MAX_ALLOCATION_BYTES:
            raise ValueError(f"allocation of {self.data.nbytes} bytes exceeds the 1 TiB limit")
        if not self.id:
            self.id = _registry.register(self)

    @property
    def size(self) -> int:
        return int(self.data.nbytes)

    @property
    def base(self) -> int:
        """The tagged pointer to byte 0."""
        return self.id << OFFSET_BITS

    def pointer(self, offset: int = 0) -> int:
        return self.base | offset

    def typed(self, dtype: np.dtype) -> np.ndarray:
        """The allocation's bytes as whole elements of ``dtype`` (one array per dtype, made
        on first use: engines index it instead of building a view per access)."""
        v = self.views.get(dtype)
        if v is None:
            v = self.views[dtype] = np.ndarray((self.size // dtype.itemsize,), dtype, buffer=self.data)
        return v


def zeroed(size: int, align: int = 128) -> np.ndarray:
    """``size`` zeroed bytes starting at an address that is a multiple of ``align`` (a power
    of two). OpenCL C, "Alignment of Types": "a data item declared to be a data type in
    memory is always aligned to the size of the data type in bytes", and a kernel may read
    any buffer as ``long16`` (128 bytes, the least CL_DEVICE_MEM_BASE_ADDR_ALIGN allows,
    which sub-buffer origins keep). NumPy's own arrays start 16 bytes into a 64-byte line."""
    raw = np.zeros(size + align - 1, np.uint8)
    skip = -raw.ctypes.data % align
    return raw[skip:skip + size]


class _Registry:
    """Allocation ids → live allocations. Ids are recycled once an allocation
    is garbage-collected, so engines may create arenas per launch freely."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next = 1
        self._free: list[int] = []
        # id → weak reference (a plain dict: every memory access of a kernel looks one up)
        self.by_id: dict[int, weakref.ref] = {}

    def register(self, alloc: Allocation) -> int:
        with self._lock:
            if self._free:
                aid = self._free.pop()
            else:
                aid = self._next
                self._next += 1
                if aid >= 1 << (64 - OFFSET_BITS):
                    raise MemoryError("out of allocation ids")
            self.by_id[aid] = weakref.ref(alloc)
        weakref.finalize(alloc, self._recycle, aid)
        return aid

    def _recycle(self, aid: int) -> None:
        # No lock: this runs from garbage collection, possibly inside register()
        # on the same thread; dict.pop and list.append are atomic, and the id is only
        # handed out again after both.
        self.by_id.pop(aid, None)
        self._free.append(aid)


_registry = _Registry()


def allocation(aid: int) -> Allocation | None:
    """The live allocation with id ``aid``, or None."""
    ref = _registry.by_id.get(aid)
    return None if ref is None else ref()


def resolve(ptr: int) -> tuple[Allocation | None, int, int]:
    """``(allocation, id, byte offset)`` of a tagged pointer for messages. A pointer
    stepped below its allocation's start borrows from the id (``out[i - 1]`` at
    ``i = 0`` is id - 1 at offset 2**40 - 4), so an offset in the top half of the
    range, where its own id has no such byte, reads as a negative offset from the
    next allocation when there is one."""
    aid, off = ptr >> OFFSET_BITS, ptr & OFFSET_MASK
    a = allocation(aid) if aid else None
    if off >= 1 << (OFFSET_BITS - 1) and (a is None or off >= a.size):
        nxt = allocation(aid + 1)
        if nxt is not None:
            return nxt, aid + 1, off - (1 << OFFSET_BITS)
    return a, aid, off


def split_pointer(ptr: np.ndarray | int) -> tuple[np.ndarray | int, np.ndarray | int]:
    """(allocation id, byte offset) of tagged pointer(s)."""
    if isinstance(ptr, np.ndarray):
        p = ptr.astype(np.uint64, copy=False)
        return p >> np.uint64(OFFSET_BITS), p & np.uint64(OFFSET_MASK)
    return ptr >> OFFSET_BITS, ptr & OFFSET_MASK
