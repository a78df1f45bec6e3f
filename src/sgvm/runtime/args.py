"""Kernel arguments as the engine receives them (see docs/internals.md, "Launch").

Each class is one kind of ``clSetKernelArg`` value. ``ValueArg`` carries the
exact bytes of a by-value parameter (scalars, vectors, structs in their C
layout); the engine reinterprets them with the parameter's SPIR-V type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .memory import Allocation


class KernelArg:
    """Base class of every kernel argument."""


@dataclass
class BufferArg(KernelArg):
    """A global or constant buffer (``allocation``), seen from byte ``offset`` on."""

    allocation: Allocation
    offset: int = 0


@dataclass
class LocalArg(KernelArg):
    """``nbytes`` of local memory, one region per work-group."""

    nbytes: int


@dataclass
class ValueArg(KernelArg):
    """A by-value argument: exactly ``sizeof`` the parameter's bytes."""

    data: bytes


@dataclass
class ImageArg(KernelArg):
    """An image (``sgvm.runtime.images.Image``)."""

    image: Any


@dataclass
class SamplerArg(KernelArg):
    """A sampler object (addressing mode, normalised coordinates, filter)."""

    sampler: Any


@dataclass
class NullArg(KernelArg):
    """A NULL buffer pointer."""
