"""glibc's allocator kept from returning the engine's lane arrays to the kernel.

The NumPy engine makes a fresh temporary array per operation: a batch of 262,144 lanes
(``backend.DEFAULT_BATCH_LANES``) makes arrays of 1 to 16 MiB. glibc serves arrays above
its mmap threshold (128 KiB at start, raised as large blocks are freed, up to 32 MiB) with
``mmap`` and returns them with ``munmap``, and trims the top of the heap above its trim
threshold: each such array then costs page faults on first touch, and the same launch runs
2-7 times faster or slower depending on what earlier launches left behind. Pinning the
thresholds (``mallopt``, glibc's documented tuning interface) keeps freed lane arrays in
the heap for the next operation to reuse.

It is done once, when the engine is first used, on glibc only (other C libraries keep
their own behaviour); ``SGVM_MALLOPT=0`` leaves the allocator alone. The process keeps up
to ``TRIM_THRESHOLD`` bytes of freed heap instead of returning them to the system.
"""

from __future__ import annotations

import ctypes
import os
import platform

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3  # <malloc.h>
MMAP_THRESHOLD = 32 << 20  # glibc's largest (HEAP_MAX_SIZE / 2 on 64-bit)
TRIM_THRESHOLD = 512 << 20
TOP_PAD = 16 << 20


def pin_thresholds() -> bool:
    """Set glibc's mmap, trim and top-pad thresholds (module docstring); whether it did."""
    if os.environ.get("SGVM_MALLOPT", "1").strip() == "0" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in (
        (M_MMAP_THRESHOLD, MMAP_THRESHOLD), (M_TRIM_THRESHOLD, TRIM_THRESHOLD), (M_TOP_PAD, TOP_PAD)))
