"""The CUDA backend's host side without a GPU (``fake_cupy``: device memory is host memory,
kernels are Python functions reading the parameters ``cuLaunchKernel`` is handed): a launch
that reuses an earlier one's plan and packed parameters still sees new arguments, new
sizes, the host's writes, a smaller buffer, the checks and the step budget switched, and
reports a fault at the launch that made it."""

from __future__ import annotations

import ctypes
import gc
import weakref

import numpy as np
import pytest
from fake_cupy import FIRST_ARGUMENT, Launch, install

import sgvm.cl as cl
from sgvm import KernelMemoryError
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg, ValueArg
from sgvm.runtime.device import CUDA_DEVICE
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange

AXPY = """
kernel void axpy(global const float *x, global float *y, float a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
"""
MARK = """
kernel void mark(global int *out, int shift) {
    out[get_global_id(0) + shift] = 1;
}
"""


def _axpy(launch_: Launch) -> None:
    """``y[i] = a * x[i] + y[i]`` in float32, as the rendered kernel computes it."""
    x, y, a = (launch_.u64(FIRST_ARGUMENT), launch_.u64(FIRST_ARGUMENT + 1),
               np.float32(launch_.f32(FIRST_ARGUMENT + 2)))
    for i in launch_.global_ids():
        yv = ctypes.c_float.from_address(y + 4 * int(i))
        yv.value = float(a * np.float32(ctypes.c_float.from_address(x + 4 * int(i)).value) + np.float32(yv.value))


def _mark(launch_: Launch) -> None:
    """``out[get_global_id(0) + shift] = 1`` through ``sg_ok``."""
    out, shift = launch_.u64(FIRST_ARGUMENT), launch_.i32(FIRST_ARGUMENT + 1)
    for i in launch_.global_ids():
        launch_.store_i32(int(i), out + 4 * (int(i) + shift), 1)


@pytest.fixture(scope="module")
def modules():
    ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
    return {name: cl.Program(ctx, src).build("-cl-std=CL2.0").module for name, src in (("axpy", AXPY),
                                                                                       ("mark", MARK))}


@pytest.fixture
def gpu(monkeypatch):
    fake = install(monkeypatch)
    fake.kernels["sgvm_k0"] = lambda launch_: fake.kernel(launch_)
    return fake


def _buffer(values: np.ndarray) -> Allocation:
    return Allocation(np.frombuffer(values.tobytes(), np.uint8).copy(), "global")


def _host(alloc: Allocation, dtype=np.float32) -> np.ndarray:
    residency.host_access(alloc)  # as every host read of the host API does
    return alloc.data.view(dtype)


def _value(v) -> ValueArg:
    return ValueArg(np.asarray(v).tobytes())


def test_relaunches_see_new_arguments_sizes_host_writes_and_sub_buffers(gpu, modules) -> None:
    gpu.kernel = _axpy
    rng = np.random.default_rng(3)
    x1, x2 = rng.random(256, dtype=np.float32), rng.random(256, dtype=np.float32)
    bx1, bx2, by = _buffer(x1), _buffer(x2), _buffer(np.zeros(256, np.float32))
    want = np.zeros(256, np.float32)
    steps = [(bx1, x1, 2, 256, 64), (bx1, x1, 2, 256, 64), (bx2, x2, 3, 256, 64), (bx2, x2, 3, 200, 64),
             (bx1, x1, -1, 256, 32), (bx1, x1, 0.5, 256, 64), (bx1, x1, 0.5, 256, 64)]
    objects: dict = {}  # one argument object per buffer and value, as a host that sets them once has
    for step, (bx, x, a, n, local) in enumerate(steps):
        args = [objects.setdefault(id(bx), BufferArg(bx)), objects.setdefault(id(by), BufferArg(by)),
                objects.setdefault(a, _value(np.float32(a)))]
        launch(modules["axpy"], "axpy", args, NDRange((n,), (local,)), device=CUDA_DEVICE)
        want[:n] = np.float32(a) * x[:n] + want[:n]
        np.testing.assert_array_equal(_host(by), want, err_msg=f"launch {step}")
        if step == 2:  # the host writes the output between launches
            _host(by)[:] = 7
            want[:] = 7
    # a sub-buffer of y (bytes 256..767) as the output, then all of y again
    sub = Allocation(by.data[256:768], "global")
    args = [BufferArg(bx2), BufferArg(sub), _value(np.float32(1))]
    for _ in range(2):
        launch(modules["axpy"], "axpy", args, NDRange((128,), (64,)), device=CUDA_DEVICE)
        want[64:192] += x2[:128]
    launch(modules["axpy"], "axpy", [BufferArg(bx1), BufferArg(by), _value(np.float32(1))],
           NDRange((256,), (64,)), device=CUDA_DEVICE)
    want += x1
    np.testing.assert_array_equal(_host(by), want)
    assert gpu.calls["launchKernel"] == len(steps) + 3 + 1  # (n = 200: two uniform regions)


def test_a_fault_is_reported_by_the_relaunch_that_made_it(gpu, modules) -> None:
    gpu.kernel = _mark
    out = _buffer(np.zeros(64, np.int32))
    args = [BufferArg(out), _value(np.int32(0))]
    nd = NDRange((64,), (64,))
    for _ in range(3):
        launch(modules["mark"], "mark", args, nd, device=CUDA_DEVICE)
    assert "memsetAsync" not in gpu.calls  # a record nobody wrote is not cleared again
    with pytest.raises(KernelMemoryError, match=r"out-of-bounds store of 4 bytes at byte offset 256 "
                                                 r"of argument #0 \(256 bytes\) by work-item with global id \(56,\)"):
        launch(modules["mark"], "mark", [BufferArg(out), _value(np.int32(8))], nd, device=CUDA_DEVICE)
    _host(out, np.int32)[:] = 0
    launch(modules["mark"], "mark", args, nd, device=CUDA_DEVICE)  # clean: the record was cleared
    assert gpu.calls["memsetAsync"] == 1
    assert (_host(out, np.int32) == 1).all()


def test_a_smaller_or_new_buffer_after_a_cached_launch(gpu, modules) -> None:
    """The region table follows the buffer: a 32-int buffer after launches with a 64-int
    one faults at work-item 32; a buffer made after the first one died (its memory perhaps
    at the same address) receives the stores."""
    gpu.kernel = _mark
    nd = NDRange((64,), (64,))
    big = _buffer(np.zeros(64, np.int32))
    for _ in range(2):
        launch(modules["mark"], "mark", [BufferArg(big), _value(np.int32(0))], nd, device=CUDA_DEVICE)
    small = _buffer(np.zeros(32, np.int32))
    with pytest.raises(KernelMemoryError, match=r"byte offset 128 of argument #0 \(128 bytes\) .* \(32,\)"):
        launch(modules["mark"], "mark", [BufferArg(small), _value(np.int32(0))], nd, device=CUDA_DEVICE)
    gone = weakref.ref(big)
    del big
    gc.collect()
    assert gone() is None  # the cached launch held it weakly
    fresh = _buffer(np.zeros(64, np.int32))
    launch(modules["mark"], "mark", [BufferArg(fresh), _value(np.int32(0))], nd, device=CUDA_DEVICE)
    assert (_host(fresh, np.int32) == 1).all()


def test_checks_and_step_budget_switched_between_cached_launches(gpu, modules, monkeypatch) -> None:
    budgets = []

    def mark(launch_: Launch) -> None:
        budgets.append(launch_.steps)
        _mark(launch_)

    gpu.kernel = mark
    out = _buffer(np.zeros(64, np.int32))
    over = [BufferArg(out), _value(np.int32(8))]  # past the end: into the device copy's spare bytes
    nd = NDRange((64,), (64,))
    monkeypatch.setenv("SGVM_CUDA_BOUNDS", "0")
    for _ in range(2):
        launch(modules["mark"], "mark", over, nd, device=CUDA_DEVICE)
    assert "streamSynchronize" not in gpu.calls  # unchecked launches do not wait
    monkeypatch.setenv("SGVM_CUDA_BOUNDS", "1")
    with pytest.raises(KernelMemoryError, match="out-of-bounds store"):
        launch(modules["mark"], "mark", over, nd, device=CUDA_DEVICE)
    fine = [BufferArg(out), _value(np.int32(0))]
    launch(modules["mark"], "mark", fine, nd, device=CUDA_DEVICE)
    monkeypatch.setenv("SGVM_MAX_STEPS", "5")
    launch(modules["mark"], "mark", fine, nd, device=CUDA_DEVICE)
    monkeypatch.delenv("SGVM_MAX_STEPS")
    launch(modules["mark"], "mark", fine, nd, device=CUDA_DEVICE)
    assert budgets == [0, 0, 10_000_000, 10_000_000, 5, 10_000_000]


def test_a_new_argument_object_where_an_old_one_was(gpu, modules) -> None:
    """A new argument object may take the address (the id) of one that is gone: a launch that
    recognises its last arguments by identity must not take it for the old one. (Made right
    after the old one is freed, the new object usually lands at its address.)"""
    gpu.kernel = _axpy
    x = np.arange(64, dtype=np.float32)
    bx, by = _buffer(x), _buffer(np.zeros(64, np.float32))
    buffers = [BufferArg(bx), BufferArg(by)]
    want = np.zeros(64, np.float32)
    nd = NDRange((64,), (64,))
    held, ids = [_value(np.float32(1))], set()
    for a in range(1, 40):
        ids.add(id(held[0]))
        launch(modules["axpy"], "axpy", [*buffers, held[0]], nd, device=CUDA_DEVICE)
        want += np.float32(a) * x
        np.testing.assert_array_equal(_host(by), want, err_msg=f"a = {a}")
        data = np.float32(a + 1).tobytes()
        held.clear()  # the old object goes first, then the new one is made
        held.append(ValueArg(data))
    assert len(ids) < 39  # (ids were reused: the case this test is about happened)


def test_a_fault_names_the_parameter_as_this_launch_spells_it(gpu, modules) -> None:
    """Packed parameters carry the labels of memory-error messages: a relaunch of the same
    arguments under other parameter names names the parameter its own way."""
    gpu.kernel = _mark
    out = _buffer(np.zeros(64, np.int32))
    args = [BufferArg(out), _value(np.int32(8))]
    nd = NDRange((64,), (64,))
    for names, label in ((("out", "shift"), "argument #0 'out'"), (("dst", "shift"), "argument #0 'dst'"),
                         (("dst", "shift"), "argument #0 'dst'"), (None, "argument #0")):
        with pytest.raises(KernelMemoryError, match=f"byte offset 256 of {label} \\(256 bytes\\)"):
            launch(modules["mark"], "mark", args, nd, device=CUDA_DEVICE, param_names=names)
