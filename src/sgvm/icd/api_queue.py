"""Command queues and events (OpenCL API s5.1, s5.11-5.14)."""

from __future__ import annotations

from typing import Any

from ..cl import CommandQueue
from ..cl.constants import (
    command_queue_info,
    command_queue_properties,
    command_type,
    event_info,
    profiling_info,
)
from ..errors import Error
from . import commands, handles, state
from .commands import COMPLETE, SUBMITTED, Event, Queue
from .entry import CREATE, api
from .exit_report import profiling_forced
from .values import events_in, flat, give, is_null, properties

QUEUE_PROPERTIES, QUEUE_SIZE = 0x1093, 0x1094
QUEUE_DEVICE_DEFAULT, QUEUE_PROPERTIES_ARRAY = 0x1095, 0x1098
_HOST_QUEUE = (command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
               | command_queue_properties.PROFILING_ENABLE)


def _create_queue(context: Any, device: Any, props: int, array: list[int]) -> Any:
    ctx = handles.get(context, handles.CONTEXT)
    dev = handles.get(device, handles.DEVICE)
    if dev.obj not in ctx.obj.devices:
        raise Error("the device is not one of the context's devices", "CL_INVALID_DEVICE")
    if props & (command_queue_properties.ON_DEVICE | command_queue_properties.ON_DEVICE_DEFAULT):
        raise Error("sgvm has no device-side queues (CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES is 0)",
                    "CL_INVALID_QUEUE_PROPERTIES")
    if props & ~_HOST_QUEUE:
        raise Error(f"unknown queue properties {props:#x}", "CL_INVALID_VALUE")
    # Timestamps are the ICD's own (commands.py); sgvm.cl's profiling queues also collect the message
    # profile, which costs time: only under SGVM_PROFILE.
    cl_props = command_queue_properties.PROFILING_ENABLE if profiling_forced() else 0
    queue = Queue(ctx, dev, props, array, CommandQueue(ctx.obj, dev.obj, cl_props))
    h = handles.new(handles.QUEUE, queue, holds=(ctx,))
    h.on_free.append(queue.close)
    return state.ffi.cast("cl_command_queue", h.cdata)


@api(CREATE)
def clCreateCommandQueue(context: Any, device: Any, props: int) -> Any:
    return _create_queue(context, device, props, [])


@api(CREATE)
def clCreateCommandQueueWithProperties(context: Any, device: Any, props: Any) -> Any:
    bits = 0
    pairs = properties(props)
    for name, value in pairs:
        if name == QUEUE_PROPERTIES:
            bits = value
        elif name == QUEUE_SIZE:
            raise Error("CL_QUEUE_SIZE is only for device-side queues, which sgvm lacks", "CL_INVALID_VALUE")
        else:
            raise Error(f"queue property {name:#x} is not supported", "CL_INVALID_VALUE")
    return _create_queue(context, device, bits, flat(pairs))


@api()
def clSetDefaultDeviceCommandQueue(context: Any, device: Any, queue: Any) -> None:
    handles.get(context, handles.CONTEXT)
    handles.get(queue, handles.QUEUE)
    raise Error("sgvm has no device-side queues", "CL_INVALID_OPERATION")


def get_queue(ptr: Any) -> Queue:
    return handles.get(ptr, handles.QUEUE).obj


@api()
def clRetainCommandQueue(queue: Any) -> None:
    handles.retain(handles.get(queue, handles.QUEUE))


@api()
def clReleaseCommandQueue(queue: Any) -> None:
    handles.release(handles.get(queue, handles.QUEUE))


@api()
def clGetCommandQueueInfo(queue: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    h = handles.get(queue, handles.QUEUE)
    q: Queue = h.obj
    ci = command_queue_info
    answers: dict[int, tuple[Any, str]] = {
        ci.CONTEXT: (q.context.obj, "I"), ci.DEVICE: (q.device.obj, "I"), ci.REFERENCE_COUNT: (h.refs, "I"),
        ci.PROPERTIES: (q.properties, "Q"), QUEUE_PROPERTIES_ARRAY: (q.properties_array, "Q"),
        QUEUE_DEVICE_DEFAULT: (None, "I"),
    }
    if param not in answers:
        raise Error(f"{param:#x} is not a command queue info sgvm answers (CL_QUEUE_SIZE is for device queues)",
                    "CL_INVALID_VALUE" if param != QUEUE_SIZE else "CL_INVALID_COMMAND_QUEUE")
    data, scalar = answers[param]
    give(data, scalar, size, value, size_ret)


@api()
def clFlush(queue: Any) -> None:
    get_queue(queue)  # commands are submitted when enqueued


@api()
def clFinish(queue: Any) -> None:
    get_queue(queue).finish()


def out_event(event: Event, out: Any) -> None:
    """Give the application a handle to ``event`` if it asked for one."""
    if is_null(out):
        return
    holds = (event.context,) + ((handles.of(event.queue),) if event.queue is not None else ())
    out[0] = state.ffi.cast("cl_event", handles.new(handles.EVENT, event, holds=holds).cdata)


def enqueue(queue: Any, ctype: int, work: Any, num_events: int, wait_list: Any, event_out: Any, *,
            blocking: bool = False, all_before: bool = False, is_barrier: bool = False) -> Event:
    """The common tail of every clEnqueue*: check the wait list, submit, hand out the event."""
    q = get_queue(queue)
    waits = [h.obj for h in events_in(num_events, wait_list)]
    event = q.submit(ctype, work, waits, blocking=blocking, all_before=all_before, is_barrier=is_barrier)
    out_event(event, event_out)
    return event


@api()
def clEnqueueMarkerWithWaitList(queue: Any, num: int, waits: Any, event: Any) -> None:
    enqueue(queue, command_type.MARKER, lambda: None, num, waits, event, all_before=num == 0)


@api()
def clEnqueueBarrierWithWaitList(queue: Any, num: int, waits: Any, event: Any) -> None:
    enqueue(queue, command_type.BARRIER, lambda: None, num, waits, event, all_before=num == 0, is_barrier=True)


@api()
def clEnqueueMarker(queue: Any, event: Any) -> None:
    if is_null(event):
        raise Error("event is NULL", "CL_INVALID_VALUE")
    enqueue(queue, command_type.MARKER, lambda: None, 0, state.ffi.NULL, event, all_before=True)


@api()
def clEnqueueBarrier(queue: Any) -> None:
    enqueue(queue, command_type.BARRIER, lambda: None, 0, state.ffi.NULL, state.ffi.NULL, all_before=True,
            is_barrier=True)


@api()
def clEnqueueWaitForEvents(queue: Any, num: int, waits: Any) -> None:
    if num == 0:
        raise Error("num_events is 0", "CL_INVALID_VALUE")
    enqueue(queue, command_type.BARRIER, lambda: None, num, waits, state.ffi.NULL, is_barrier=True)


def get_event(ptr: Any) -> handles.Handle:
    return handles.get(ptr, handles.EVENT)


@api()
def clWaitForEvents(num: int, events: Any) -> None:
    if num == 0 or is_null(events):
        raise Error("give at least one event", "CL_INVALID_VALUE")
    evs = [get_event(events[i]).obj for i in range(num)]
    if any(ev.context is not evs[0].context for ev in evs):
        raise Error("the events belong to different contexts", "CL_INVALID_CONTEXT")
    commands.wait_for(evs)
    if any(ev.status < 0 for ev in evs):
        raise Error("a command in the list failed", "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST")


@api()
def clGetEventInfo(event: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    h = get_event(event)
    ev: Event = h.obj
    ei = event_info
    answers: dict[int, tuple[Any, str]] = {
        ei.COMMAND_QUEUE: (ev.queue, "I"), ei.CONTEXT: (ev.context.obj, "I"),
        ei.COMMAND_TYPE: (ev.command_type, "I"), ei.COMMAND_EXECUTION_STATUS: (ev.status, "i"),
        ei.REFERENCE_COUNT: (h.refs, "I"),
    }
    if param not in answers:
        raise Error(f"{param:#x} is not a cl_event_info value", "CL_INVALID_VALUE")
    data, scalar = answers[param]
    give(data, scalar, size, value, size_ret)


@api()
def clRetainEvent(event: Any) -> None:
    handles.retain(get_event(event))


@api()
def clReleaseEvent(event: Any) -> None:
    handles.release(get_event(event))


@api(CREATE)
def clCreateUserEvent(context: Any) -> Any:
    ctx = handles.get(context, handles.CONTEXT)
    ev = Event(ctx, command_type.USER, status=SUBMITTED)
    return state.ffi.cast("cl_event", handles.new(handles.EVENT, ev, holds=(ctx,)).cdata)


@api()
def clSetUserEventStatus(event: Any, status: int) -> None:
    ev: Event = get_event(event).obj
    if ev.command_type != command_type.USER:
        raise Error("the event is not a user event", "CL_INVALID_EVENT")
    if status > COMPLETE:
        raise Error("execution_status must be CL_COMPLETE or a negative error code", "CL_INVALID_VALUE")
    if ev.done:
        raise Error("the user event's status was already set", "CL_INVALID_OPERATION")
    commands.complete_user_event(ev, status)


@api()
def clSetEventCallback(event: Any, when: int, notify: Any, user_data: Any) -> None:
    h = get_event(event)
    if is_null(notify):
        raise Error("pfn_event_notify is NULL", "CL_INVALID_VALUE")
    if when not in (COMPLETE, commands.RUNNING, SUBMITTED):
        raise Error("command_exec_callback_type must be CL_SUBMITTED, CL_RUNNING or CL_COMPLETE",
                    "CL_INVALID_VALUE")
    pointer = state.ffi.cast("cl_event", h.cdata)
    handles.retain(h)  # alive until the callback has run

    def call(status: int) -> None:
        notify(pointer, status, user_data)
        handles.release(h)

    h.obj.on_status(when, call)


@api()
def clGetEventProfilingInfo(event: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    ev: Event = get_event(event).obj
    if ev.queue is None or not ev.queue.profiling or not ev.done:
        raise Error("profiling needs a completed command of a queue created with CL_QUEUE_PROFILING_ENABLE",
                    "CL_PROFILING_INFO_NOT_AVAILABLE")
    order = (profiling_info.QUEUED, profiling_info.SUBMIT, profiling_info.START, profiling_info.END,
             profiling_info.COMPLETE)
    if param not in order:
        raise Error(f"{param:#x} is not a cl_profiling_info value", "CL_INVALID_VALUE")
    stamp = ev.times[min(order.index(param), 3)]
    give(stamp, "Q", size, value, size_ret)
