"""Where an Allocation's current bytes live when a device keeps its own copy.

The CPU engine works on ``Allocation.data`` directly. A device with its own
memory (the CUDA backend) registers a backend here; the host API calls
:func:`host_access` before it reads or writes an allocation's bytes, which
brings device-side changes back and marks the device copy stale. With no
device backend loaded this costs one empty loop.
"""

from __future__ import annotations

from typing import Protocol

from .memory import Allocation


class Backend(Protocol):
    def host_access(self, alloc: Allocation) -> None:
        """Make ``alloc.data`` current; the host may change it afterwards."""


_BACKENDS: list[Backend] = []


def register(backend: Backend) -> None:
    if backend not in _BACKENDS:
        _BACKENDS.append(backend)


def host_access(alloc: Allocation) -> None:
    """See the module docstring."""
    for b in _BACKENDS:
        b.host_access(alloc)
