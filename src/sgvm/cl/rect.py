"""The rectangular buffer commands: clEnqueueReadBufferRect, WriteBufferRect and CopyBufferRect
(OpenCL API s5.2.3), and PyOpenCL's ``enqueue_copy`` with ``buffer_origin``/``host_origin``/``region``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ._base import cl_error
from .constants import command_type
from .memory import Buffer, host_bytes
from .queue import CommandQueue, Event


def _pitches(region: Sequence[int], row_pitch: int, slice_pitch: int, what: str, routine: str) -> tuple[int, int]:
    """The spec's defaults and checks: "If row_pitch is 0, row_pitch is computed as region[0]";
    slice_pitch defaults to region[1] * row_pitch and must be a multiple of row_pitch."""
    row_pitch = row_pitch or region[0]
    slice_pitch = slice_pitch or region[1] * row_pitch
    if row_pitch < region[0] or slice_pitch < region[1] * row_pitch or slice_pitch % row_pitch:
        raise cl_error("CL_INVALID_VALUE", f"{what} pitches ({row_pitch}, {slice_pitch}) do not hold the region "
                       f"{tuple(region)}", routine)
    return row_pitch, slice_pitch


def _box(data: np.ndarray, origin: Sequence[int], region: Sequence[int], row_pitch: int, slice_pitch: int,
         what: str, routine: str) -> np.ndarray:
    """A (slices, rows, bytes) view of the region of ``data`` at ``origin``."""
    if len(origin) != 3 or len(region) != 3 or min(region) < 1 or min(origin) < 0:
        raise cl_error("CL_INVALID_VALUE", f"{what}: origin and region are 3 sizes, region all at least 1",
                       routine)
    start = origin[2] * slice_pitch + origin[1] * row_pitch + origin[0]
    end = start + (region[2] - 1) * slice_pitch + (region[1] - 1) * row_pitch + region[0]
    if end > data.nbytes:
        raise cl_error("CL_INVALID_VALUE", f"{what}: the region ends at byte {end}, past its {data.nbytes} bytes",
                       routine)
    return as_strided(data[start:], (region[2], region[1], region[0]), (slice_pitch, row_pitch, 1))


def read_buffer_rect(queue: CommandQueue, buf: Buffer, host: Any, buffer_origin: Sequence[int],
                     host_origin: Sequence[int], region: Sequence[int], buffer_pitches: Sequence[int] = (0, 0),
                     host_pitches: Sequence[int] = (0, 0), wait_for: Sequence[Event] | None = None) -> Event:
    routine = "clEnqueueReadBufferRect"
    bp = _pitches(region, *buffer_pitches, "buffer", routine)
    hp = _pitches(region, *host_pitches, "host", routine)
    dst = _box(host_bytes(host, routine, writable=True), host_origin, region, *hp, "host", routine)
    src = _box(buf.data, buffer_origin, region, *bp, "buffer", routine)
    return queue.run(command_type.READ_BUFFER_RECT, lambda: dst.__setitem__(..., src), wait_for, routine)


def write_buffer_rect(queue: CommandQueue, buf: Buffer, host: Any, buffer_origin: Sequence[int],
                      host_origin: Sequence[int], region: Sequence[int], buffer_pitches: Sequence[int] = (0, 0),
                      host_pitches: Sequence[int] = (0, 0), wait_for: Sequence[Event] | None = None) -> Event:
    routine = "clEnqueueWriteBufferRect"
    bp = _pitches(region, *buffer_pitches, "buffer", routine)
    hp = _pitches(region, *host_pitches, "host", routine)
    src = _box(host_bytes(host, routine), host_origin, region, *hp, "host", routine)
    dst = _box(buf.data, buffer_origin, region, *bp, "buffer", routine)
    return queue.run(command_type.WRITE_BUFFER_RECT, lambda: dst.__setitem__(..., src), wait_for, routine)


def copy_buffer_rect(queue: CommandQueue, src: Buffer, dst: Buffer, src_origin: Sequence[int],
                     dst_origin: Sequence[int], region: Sequence[int], src_pitches: Sequence[int] = (0, 0),
                     dst_pitches: Sequence[int] = (0, 0), wait_for: Sequence[Event] | None = None) -> Event:
    routine = "clEnqueueCopyBufferRect"
    sp = _pitches(region, *src_pitches, "source", routine)
    dp = _pitches(region, *dst_pitches, "destination", routine)
    if src is dst and sp != dp:
        raise cl_error("CL_INVALID_VALUE", "copying within one buffer needs equal source and destination pitches",
                       routine)
    a = _box(src.data, src_origin, region, *sp, "source", routine)
    b = _box(dst.data, dst_origin, region, *dp, "destination", routine)
    if np.shares_memory(a, b):
        raise cl_error("CL_MEM_COPY_OVERLAP", "the source and destination regions overlap", routine)
    return queue.run(command_type.COPY_BUFFER_RECT, lambda: b.__setitem__(..., a), wait_for, routine)
