"""Fault records of the native and CUDA backends (engine/cuda/bounds.py) and the errors
they become.

A kernel with checks on guards every global, constant and local access: the address must
lie in one of the launch's *regions* (buffer arguments' allocations, by-value copies,
program-scope globals) or in the work-group's local memory, aligned as the NumPy engine
requires. A faulting access is skipped (loads give 0); the work-item with the lowest
global linear id records it in a seven-word record ``[~linear id (0: none), lock,
address, size | kind << 32 | why << 40 | slot << 48, c0, c1, c2]`` (slot: on the native backend, 1 +
the object slot the access's check tested, whose object the message names, 0 where none
did; kind 0 load, 1 store, 2 atomic; why 1
misaligned, 2 read-only, 3 out of bounds, + 4 when the address is an offset in local
memory, + 32 when it is an offset in a work-item's private memory (native); 8 the step
budget ran out; 16 OpUnreachable was reached; 64 a write_image outside the image,
whose handle is the address and coordinates c0-c2). The backends turn a record into the
NumPy engine's ``KernelMemoryError`` / ``KernelTimeout`` message (``timeout_error``,
``image_write_error`` here; the memory faults' in each backend, which knows its objects).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import KernelMemoryError, KernelTimeout, UnsupportedError
from ...runtime.ndrange import NDRange

KINDS = ("load", "store", "atomic")  # a record's kind
WHY = {1: "misaligned", 2: "read-only memory written:", 3: "out-of-bounds"}  # its why & 3
TIMEOUT, UNREACHABLE, IMAGE_WRITE = 8, 16, 64
RECORD_WORDS = 7


@dataclass
class Region:
    """A device byte range a kernel may access, and how error messages name it."""

    start: int
    size: int
    read_only: bool
    label: str


def table(regions: list[Region]) -> list[int]:
    """``[start, size | read-only << 63]`` per region (at least one), as ``sg_ok`` reads them
    (as 64-bit words)."""
    return [x for r in regions for x in (r.start, r.size | (1 << 63 if r.read_only else 0))] \
        or [0, 0]


def global_id(linear: int, nd: NDRange) -> tuple[int, ...]:
    gx, gy = nd.global_size[0], nd.global_size[1]
    ids = (linear % gx, linear // gx % gy, linear // (gx * gy))
    return tuple(int(i + o) for i, o in zip(ids, nd.global_offset, strict=True))[:nd.work_dim]


def recorded_id(rec: np.ndarray, nd: NDRange) -> tuple[int, ...]:
    """The global id of the work-item a fault record names (word 0: ~its linear id)."""
    return global_id(int(~rec[0] & np.uint64((1 << 64) - 1)), nd)


def image_write_error(kernel: str, rec: np.ndarray, label: str, image: object,
                      nd: NDRange) -> KernelMemoryError:
    """The NumPy engine's message (``image_ops``) for a write_image outside ``image``
    (``rec``: the fault record, its coordinates in words 4-6)."""
    coords = ", ".join(str(int(c)) for c in rec.view(np.int64)[4:4 + image.coord_count])
    return KernelMemoryError(
        f"kernel '{kernel}': write_image at coordinate ({coords}) outside {label} "
        f"({' x '.join(map(str, image.shape))} texels) by work-item with global id "
        f"{recorded_id(rec, nd)}")


def timeout_error(kernel: str, rec: np.ndarray, nd: NDRange, budget: int,
                  steps: str = "loop iterations per work-item and function call") -> KernelTimeout:
    """The NumPy engine's message (``Batch.tick``) for a record of why 8: ``budget``, the
    launch's step budget, counts ``steps``."""
    return KernelTimeout(
        f"kernel '{kernel}' exceeded its step budget of {budget} {steps} "
        f"(set SGVM_MAX_STEPS to raise it); first stopped: "
        f"work-item with global id {recorded_id(rec, nd)}")


def unreachable_error(kernel: str, gid: tuple[int, ...]) -> UnsupportedError:
    """Every backend's message for OpUnreachable reached by the work-item of global id
    ``gid`` (a record of why 16 on the native and CUDA backends). The SPIR-V specification,
    OpUnreachable: "Behavior is undefined if this instruction is executed"."""
    return UnsupportedError(f"kernel '{kernel}': OpUnreachable was reached by work-item "
                            f"with global id {gid} (undefined behaviour: a "
                            "__builtin_unreachable() or a path the compiler proved impossible)")
