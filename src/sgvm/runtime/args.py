"""Kernel arguments as the engine receives them (see docs/internals.md, "Launch").

Each class is one kind of ``clSetKernelArg`` value. ``ValueArg`` carries the
exact bytes of a by-value parameter (scalars, vectors, structs in their C
layout); the engine reinterprets them with the parameter's SPIR-V type. Arguments are
immutable (backends remember what they derived from an argument object, ``clSetKernelArg``
makes a new one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .memory import Allocation


class KernelArg:
    """Base class of every kernel argument."""


@dataclass(frozen=True)
class BufferArg(KernelArg):
    """A global or constant buffer (``allocation``), seen from byte ``offset`` on."""

    allocation: Allocation
    offset: int = 0


@dataclass(frozen=True)
class LocalArg(KernelArg):
    """``nbytes`` of local memory, one region per work-group."""

    nbytes: int


@dataclass(frozen=True)
class ValueArg(KernelArg):
    """A by-value argument: exactly ``sizeof`` the parameter's bytes."""

    data: bytes

    def __post_init__(self) -> None:
        if type(self.data) is not bytes:  # a bytearray or buffer: a copy that cannot change
            object.__setattr__(self, "data", bytes(self.data))


@dataclass(frozen=True)
class ImageArg(KernelArg):
    """An image (``sgvm.runtime.images.Image``)."""

    image: Any


@dataclass(frozen=True)
class SamplerArg(KernelArg):
    """A sampler object (addressing mode, normalised coordinates, filter)."""

    sampler: Any


@dataclass(frozen=True)
class NullArg(KernelArg):
    """A NULL buffer pointer."""
