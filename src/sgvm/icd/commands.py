"""Command scheduling: queues, events, wait lists, user events, markers and barriers.

sgvm.cl runs a command to completion when it is enqueued. Here a command runs
at once when everything it waits for is complete, which is always unless a
user event is involved: then it is held until that event completes (OpenCL API
s5.11, "commands ... wait for the events in event_wait_list to complete"). In an
in-order queue every command also waits for the one before it; a barrier makes
every later command of its queue wait for it; a marker or barrier with an empty
wait list waits for every command enqueued before it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..cl.constants import command_execution_status, command_queue_properties
from ..errors import CL_ERROR_CODES, Error
from . import handles, state

COMPLETE, RUNNING, SUBMITTED, QUEUED = (command_execution_status.COMPLETE, command_execution_status.RUNNING,
                                        command_execution_status.SUBMITTED, command_execution_status.QUEUED)
FAILED_DEPENDENCY = CL_ERROR_CODES["CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"]


@dataclass(eq=False)
class Event:
    """A command's (or a user event's) status, times and callbacks."""

    context: handles.Handle
    command_type: int
    queue: Queue | None = None
    status: int = QUEUED
    times: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # queued, submit, start, end
    callbacks: list[tuple[int, Callable[[int], None]]] = field(default_factory=list)
    result: Any = None  # what the command produced (a kernel's LaunchResult …)
    error: BaseException | None = None

    @property
    def done(self) -> bool:
        return self.status <= COMPLETE

    def set_status(self, status: int) -> None:
        """Move to ``status``, run the callbacks registered for it (OpenCL API s5.11,
        clSetEventCallback) and wake every waiter."""
        self.status = status
        due = [cb for cb in self.callbacks if status <= cb[0]]
        self.callbacks = [cb for cb in self.callbacks if status > cb[0]]
        for _, fn in due:
            fn(status)
        state.CHANGED.notify_all()

    def on_status(self, when: int, fn: Callable[[int], None]) -> None:
        """Call ``fn(status)`` once the event reaches ``when`` (at once if it has)."""
        if self.status <= when:
            fn(self.status)
        else:
            self.callbacks.append((when, fn))


@dataclass(eq=False)
class Command:
    event: Event
    waits: list[Event]
    work: Callable[[], Any]


class Queue:
    """One command queue: its sgvm.cl queue and the commands held back."""

    def __init__(self, context: handles.Handle, device: handles.Handle, properties: int,
                 properties_array: list[int], cl_queue: Any) -> None:
        self.context = context
        self.device = device
        self.properties = properties
        self.properties_array = properties_array  # as given to clCreateCommandQueueWithProperties
        self.cl_queue = cl_queue
        self.pending: list[Command] = []
        self.closed = False
        self.last: Event | None = None
        self.barrier: Event | None = None
        _QUEUES.append(self)

    @property
    def in_order(self) -> bool:
        return not self.properties & command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE

    @property
    def profiling(self) -> bool:
        return bool(self.properties & command_queue_properties.PROFILING_ENABLE)

    def close(self) -> None:
        """The application released the queue: its held commands still run when their
        events complete (clReleaseCommandQueue "performs an implicit flush"), then it goes."""
        self.closed = True
        if not self.pending and self in _QUEUES:
            _QUEUES.remove(self)

    def submit(self, ctype: int, work: Callable[[], Any], waits: list[Event], *, blocking: bool = False,
               all_before: bool = False, is_barrier: bool = False) -> Event:
        """Enqueue ``work`` after ``waits``; ``all_before``: also after every command before it."""
        for ev in waits:
            if ev.context is not self.context:
                raise Error("an event in the wait list belongs to another context", "CL_INVALID_CONTEXT")
        event = Event(self.context, ctype, self)
        event.times[0] = time.perf_counter_ns()
        deps = list(waits)
        if all_before:
            deps += [c.event for c in self.pending]
        for implicit in ((self.last if self.in_order else None), self.barrier):
            if implicit is not None and not implicit.done:
                deps.append(implicit)
        command = Command(event, deps, work)
        self.last = event
        if is_barrier:
            self.barrier = event
        if self._ready(command):
            self._run(command)
        else:
            self.pending.append(command)
        if blocking:
            wait_for([event])
            if event.status < 0:
                raise _failure(event)
        return event

    def _ready(self, command: Command) -> bool:
        if self.in_order and self.pending and self.pending[0] is not command:
            return False
        return all(ev.done for ev in command.waits)

    def _run(self, command: Command) -> None:
        """Execute a command whose wait list is complete; a failure sets the event's status
        to the error code and propagates (to the enqueue call, or to :func:`drain`)."""
        event = command.event
        if any(ev.status < 0 for ev in command.waits):
            event.error = Error("a command it waited for failed", "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST")
            event.set_status(FAILED_DEPENDENCY)
            return
        event.times[1] = event.times[2] = time.perf_counter_ns()
        event.status = RUNNING
        try:
            event.result = command.work()
        except BaseException as exc:
            event.times[3] = time.perf_counter_ns()
            event.error = exc
            event.set_status(exc.code if isinstance(exc, Error) else CL_ERROR_CODES["CL_OUT_OF_RESOURCES"])
            raise
        event.times[3] = time.perf_counter_ns()
        event.set_status(COMPLETE)

    def finish(self) -> None:
        wait_for([c.event for c in self.pending])


_QUEUES: list[Queue] = []


def _failure(event: Event) -> Error:
    if isinstance(event.error, Error):
        return event.error
    return Error("a command it depends on failed", "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST")


def drain() -> None:
    """Run every held command whose wait list is now complete."""
    progress = True
    while progress:
        progress = False
        for q in list(_QUEUES):
            for command in list(q.pending):
                if q._ready(command):
                    q.pending.remove(command)
                    try:
                        q._run(command)
                    except Exception as exc:  # a held command failed: its event carries the code
                        from .entry import report

                        report(exc, "a held command")
                    progress = True
                elif q.in_order:
                    break
            if q.closed and not q.pending and q in _QUEUES:
                _QUEUES.remove(q)


def wait_for(events: list[Event]) -> None:
    """Block until every event is complete (another host thread may complete a user event)."""
    drain()
    while not all(ev.done for ev in events):
        state.CHANGED.wait()
        drain()


def complete_user_event(event: Event, status: int) -> None:
    event.times[3] = time.perf_counter_ns()
    event.set_status(status)
    drain()
