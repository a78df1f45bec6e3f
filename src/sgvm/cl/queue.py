"""Command queues and events.

sgvm's queues run every command to completion when it is enqueued, in order:
a valid schedule for both in-order and out-of-order OpenCL queues. Events are
therefore complete when returned; profiling times are real host times in ns.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from ._base import InfoObject, cl_error, param_text
from .constants import (
    command_execution_status,
    command_queue_info,
    command_queue_properties,
    command_type,
    event_info,
    profiling_info,
)
from .platform import Context, Device

_VALID_PROPERTIES = (command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
                     | command_queue_properties.PROFILING_ENABLE)


class CommandQueue(InfoObject):
    """clCreateCommandQueue: ``CommandQueue(context, device=None, properties=None)``."""

    _info_ns = command_queue_info

    def __init__(self, context: Context, device: Device | None = None, properties: int | None = None) -> None:
        if not isinstance(context, Context):
            raise cl_error("CL_INVALID_CONTEXT", "the first argument must be a cl.Context", "clCreateCommandQueue")
        if device is None:
            device = context.devices[0]
        if device not in context.devices:
            raise cl_error("CL_INVALID_DEVICE", f"{device!r} is not one of the context's devices",
                           "clCreateCommandQueue")
        props = int(properties or 0)
        if props & ~_VALID_PROPERTIES:
            raise cl_error(
                "CL_INVALID_VALUE",
                f"queue properties {props:#x}: only OUT_OF_ORDER_EXEC_MODE_ENABLE and PROFILING_ENABLE exist "
                "for host queues",
                "clCreateCommandQueue",
            )
        self.context = context
        self.device = device
        self.properties = props

    @property
    def profiling(self) -> bool:
        return bool(self.properties & command_queue_properties.PROFILING_ENABLE)

    def get_info(self, param: int) -> Any:
        """clGetCommandQueueInfo."""
        values = {
            command_queue_info.CONTEXT: self.context,
            command_queue_info.DEVICE: self.device,
            command_queue_info.REFERENCE_COUNT: 1,
            command_queue_info.PROPERTIES: self.properties,
        }
        return self._answer(values, param, "clGetCommandQueueInfo")

    def finish(self) -> None:
        """clFinish: every command has already completed."""

    def flush(self) -> None:
        """clFlush: every command has already been submitted."""

    def __enter__(self) -> CommandQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()

    def run(self, ctype: int, work: Callable[[], Any], wait_for: Sequence[Event] | None, routine: str) -> Event:
        """Execute ``work`` as one command of type ``ctype`` and return its completed event."""
        if wait_for is not None:
            check_wait_list(wait_for, self, routine)
        event = Event(self, ctype)
        times = event._times
        times[0] = times[1] = times[2] = time.perf_counter_ns()  # queued, submitted and started at once
        event.result = work()
        times[3] = times[4] = time.perf_counter_ns()
        return event

    def __repr__(self) -> str:
        return f"<pyopencl.CommandQueue on {self.device.model.name!r}>"


def check_wait_list(wait_for: Sequence[Event] | None, queue: CommandQueue, routine: str) -> None:
    """CL_INVALID_EVENT_WAIT_LIST unless ``wait_for`` is None or a sequence of events of the queue's context."""
    if wait_for is None:
        return
    for ev in wait_for:
        if not isinstance(ev, Event):
            raise cl_error("CL_INVALID_EVENT_WAIT_LIST", f"wait_for holds {type(ev).__name__}, not cl.Event", routine)
        if ev.queue is not None and ev.queue.context is not queue.context:
            raise cl_error("CL_INVALID_CONTEXT", "a wait_for event belongs to another context", routine)


class _Profile:
    """``event.profile.start`` etc. (PyOpenCL's ProfilingInfoGetter)."""

    def __init__(self, event: Event) -> None:
        self._event = event

    @property
    def messages(self) -> Any:
        """sgvm extension: the kernel's :class:`sgvm.visa.MessageProfile` (docs/visa.md);
        None for commands other than kernels."""
        self._event.get_profiling_info(profiling_info.END)  # CL_PROFILING_INFO_NOT_AVAILABLE
        return getattr(self._event.result, "profile", None)

    def __getattr__(self, name: str) -> int:
        value = profiling_info._names().get(name.upper())
        if value is None or name.startswith("_"):
            raise AttributeError(name)
        return self._event.get_profiling_info(value)


class Event(InfoObject):
    """A completed command. ``result`` holds what the command produced (a
    kernel's :class:`~sgvm.runtime.launch.LaunchResult`)."""

    _info_ns = event_info

    def __init__(self, queue: CommandQueue | None, ctype: int = command_type.MARKER) -> None:
        self.queue = queue
        self.command_type = ctype
        self.result: Any = None
        self._times = [0, 0, 0, 0, 0]  # queued, submit, start, end, complete

    @property
    def profile(self) -> _Profile:
        return _Profile(self)

    def wait(self) -> None:
        """clWaitForEvents on this event: it is already complete."""

    def get_info(self, param: int) -> Any:
        """clGetEventInfo."""
        values = {
            event_info.COMMAND_QUEUE: self.queue,
            event_info.COMMAND_TYPE: self.command_type,
            event_info.REFERENCE_COUNT: 1,
            event_info.COMMAND_EXECUTION_STATUS: command_execution_status.COMPLETE,
            event_info.CONTEXT: self.queue.context if self.queue else None,
        }
        return self._answer(values, param, "clGetEventInfo")

    def get_profiling_info(self, param: int) -> int:
        """clGetEventProfilingInfo; needs a queue created with PROFILING_ENABLE."""
        if self.queue is None or not self.queue.profiling:
            raise cl_error(
                "CL_PROFILING_INFO_NOT_AVAILABLE",
                "create the queue with properties=cl.command_queue_properties.PROFILING_ENABLE",
                "clGetEventProfilingInfo",
            )
        order = (profiling_info.QUEUED, profiling_info.SUBMIT, profiling_info.START, profiling_info.END,
                 profiling_info.COMPLETE)
        if param not in order:
            raise cl_error("CL_INVALID_VALUE", f"{param_text(param)} is not a cl.profiling_info value",
                           "clGetEventProfilingInfo")
        return self._times[order.index(param)]

    def __repr__(self) -> str:
        return f"<pyopencl.Event {command_type.to_string(self.command_type, '%#x')} (complete)>"


def wait_for_events(events: Sequence[Event]) -> None:
    """clWaitForEvents: every sgvm event is complete when returned."""
    for ev in events:
        if not isinstance(ev, Event):
            raise cl_error("CL_INVALID_EVENT", f"{type(ev).__name__} is not a cl.Event", "clWaitForEvents")


def enqueue_marker(queue: CommandQueue, wait_for: Sequence[Event] | None = None) -> Event:
    """clEnqueueMarkerWithWaitList."""
    return queue.run(command_type.MARKER, lambda: None, wait_for, "clEnqueueMarkerWithWaitList")


def enqueue_barrier(queue: CommandQueue, wait_for: Sequence[Event] | None = None) -> Event:
    """clEnqueueBarrierWithWaitList."""
    return queue.run(command_type.BARRIER, lambda: None, wait_for, "clEnqueueBarrierWithWaitList")
