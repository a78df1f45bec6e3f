"""Coarse-grained SVM buffers (OpenCL API s5.6) as sgvm buffers at host addresses.

clSVMAlloc returns the address of host memory that an sgvm.cl buffer uses
(CL_MEM_USE_HOST_PTR), so host and kernels see one pointer value. A kernel
argument set with clSetKernelArgSVMPointer becomes that buffer at the pointer's
offset. Pointers stored *inside* buffers are not translated: sgvm's kernels see
tagged buffer pointers, so only coarse-grained buffer SVM (no pointer sharing
through memory) is reported.
"""

from __future__ import annotations

import bisect
from typing import Any

from ..cl import Buffer
from ..cl.constants import command_type, mem_flags
from ..cl.memory import BufferPointer, enqueue_fill_buffer
from ..errors import Error
from ..runtime.memory import zeroed
from . import handles, state
from .api_kernel import get_kernel
from .api_memory import address_of, host_view
from .api_queue import enqueue, get_queue
from .entry import POINTER, VOID, api
from .values import is_null

SVM_FINE_GRAIN_BUFFER, SVM_ATOMICS = 1 << 10, 1 << 11
_starts: list[int] = []
_allocations: dict[int, tuple[int, Buffer, Any]] = {}  # start → (size, buffer, context)


def find(pointer: int) -> tuple[Buffer, int] | None:
    """The SVM buffer holding ``pointer`` and the offset into it."""
    i = bisect.bisect_right(_starts, pointer) - 1
    if i < 0:
        return None
    start = _starts[i]
    size, buf, _ = _allocations[start]
    return (buf, pointer - start) if pointer < start + size else None


def _find(ptr: Any, what: str) -> tuple[Buffer, int]:
    found = find(handles.address(ptr))
    if found is None:
        raise Error(f"{what} is not inside an SVM allocation of this platform", "CL_INVALID_VALUE")
    return found


@api(POINTER)
def clSVMAlloc(context: Any, flags: int, size: int, alignment: int) -> Any:
    ctx = handles.get(context, handles.CONTEXT)
    if flags & (SVM_FINE_GRAIN_BUFFER | SVM_ATOMICS):
        raise Error("sgvm supports coarse-grained SVM buffers only", "CL_INVALID_VALUE")
    if size == 0 or size > ctx.obj.devices[0].model.max_mem_alloc_size:
        raise Error(f"size {size} is 0 or above CL_DEVICE_MAX_MEM_ALLOC_SIZE", "CL_INVALID_VALUE")
    if alignment & (alignment - 1):
        raise Error(f"alignment {alignment} is not a power of two", "CL_INVALID_VALUE")
    align = max(alignment, 128)
    memory = zeroed(size, align)
    access = flags & (mem_flags.READ_WRITE | mem_flags.WRITE_ONLY | mem_flags.READ_ONLY)
    buf = Buffer(ctx.obj, access | mem_flags.USE_HOST_PTR, size, memory)
    start = address_of(memory)
    bisect.insort(_starts, start)
    _allocations[start] = (size, buf, ctx)
    handles.retain(ctx)
    return state.ffi.cast("void *", start)


def _free(start: int) -> None:
    if start in _allocations:
        _, _, ctx = _allocations.pop(start)
        _starts.remove(start)
        handles.release(ctx)


@api(VOID)
def clSVMFree(context: Any, pointer: Any) -> None:
    handles.get(context, handles.CONTEXT)
    if not is_null(pointer):
        _free(handles.address(pointer))


@api()
def clEnqueueSVMFree(queue: Any, num_pointers: int, pointers: Any, notify: Any, user_data: Any, num: int,
                     waits: Any, event: Any) -> None:
    get_queue(queue)
    if num_pointers == 0 or is_null(pointers):
        raise Error("give at least one SVM pointer", "CL_INVALID_VALUE")
    starts = [handles.address(pointers[i]) for i in range(num_pointers)]

    def work() -> None:
        if not is_null(notify):
            notify(queue, num_pointers, pointers, user_data)
        else:
            for s in starts:
                _free(s)

    enqueue(queue, command_type.SVM_FREE, work, num, waits, event)


@api()
def clEnqueueSVMMemcpy(queue: Any, blocking: int, dst: Any, src: Any, size: int, num: int, waits: Any,
                       event: Any) -> None:
    get_queue(queue)
    if is_null(dst) or is_null(src):
        raise Error("dst_ptr or src_ptr is NULL", "CL_INVALID_VALUE")
    a, b = handles.address(src), handles.address(dst)
    if size and a < b + size and b < a + size:
        raise Error("the source and destination regions overlap", "CL_MEM_COPY_OVERLAP")
    source, target = host_view(src, size), host_view(dst, size)
    enqueue(queue, command_type.SVM_MEMCPY, lambda: target.__setitem__(slice(None), source), num, waits,
            event, blocking=bool(blocking))


@api()
def clEnqueueSVMMemFill(queue: Any, pointer: Any, pattern: Any, pattern_size: int, size: int, num: int,
                        waits: Any, event: Any) -> None:
    q = get_queue(queue)
    buf, offset = _find(pointer, "svm_ptr")
    if is_null(pattern):
        raise Error("pattern is NULL", "CL_INVALID_VALUE")
    pat = host_view(pattern, pattern_size).copy()
    enqueue(queue, command_type.SVM_MEMFILL, lambda: enqueue_fill_buffer(q.cl_queue, buf, pat, offset, size),
            num, waits, event)


@api()
def clEnqueueSVMMap(queue: Any, blocking: int, flags: int, pointer: Any, size: int, num: int, waits: Any,
                    event: Any) -> None:
    get_queue(queue)
    buf, offset = _find(pointer, "svm_ptr")
    if size == 0 or offset + size > buf.size:
        raise Error("the mapped region is empty or leaves the SVM allocation", "CL_INVALID_VALUE")
    enqueue(queue, command_type.SVM_MAP, lambda: buf.data, num, waits, event, blocking=bool(blocking))


@api()
def clEnqueueSVMUnmap(queue: Any, pointer: Any, num: int, waits: Any, event: Any) -> None:
    get_queue(queue)
    _find(pointer, "svm_ptr")
    enqueue(queue, command_type.SVM_UNMAP, lambda: None, num, waits, event)


@api()
def clEnqueueSVMMigrateMem(queue: Any, num_pointers: int, pointers: Any, sizes: Any, flags: int, num: int,
                           waits: Any, event: Any) -> None:
    get_queue(queue)
    if num_pointers == 0 or is_null(pointers):
        raise Error("give at least one SVM pointer", "CL_INVALID_VALUE")
    for i in range(num_pointers):
        _find(pointers[i], f"svm_pointers[{i}]")
    enqueue(queue, command_type.SVM_MIGRATE_MEM, lambda: None, num, waits, event)


@api()
def clSetKernelArgSVMPointer(kernel: Any, index: int, pointer: Any) -> None:
    k = get_kernel(kernel).obj
    if is_null(pointer):
        k.set_arg(index, None)
        return
    buf, offset = _find(pointer, "arg_value")
    k.set_arg(index, BufferPointer(buf, offset))
