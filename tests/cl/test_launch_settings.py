"""A launch of an already-launched kernel reads the environment again and checks changed
arguments again: nothing it remembers from an earlier launch (``runtime.launch``'s choices per
device, options, environment and variant; labels; the NDRange per sizes) outlives a change."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import sgvm.cl as cl
from sgvm import KernelMemoryError, KernelTimeout
from sgvm.cl.memory import BufferPointer
from sgvm.engine import backend as backends
from sgvm.engine.backend import Backend, LaunchResult
from sgvm.errors import LogicError, UnsupportedError
from sgvm.runtime import launch as runtime_launch
from sgvm.runtime.args import BufferArg, ValueArg
from sgvm.runtime.device import CUDA_DEVICE
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange
from sgvm.runtime.variant import Variant

SOURCE = """
kernel void spin(global int *out, int n) {
    int s = 0;
    for (int k = 0; k < n; k++) s += k;
    out[get_global_id(0)] = s;
}
kernel void bits(global int *out, float f) {
    out[get_global_id(0)] = as_int(f);
}
kernel void uninit(global int *out) {
    local int t[64];
    out[get_global_id(0)] = t[get_local_id(0)];
}
"""
mf = cl.mem_flags


@pytest.fixture(scope="module")
def setup():
    ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
    queue = cl.CommandQueue(ctx)
    return ctx, queue, cl.Program(ctx, SOURCE).build("-cl-opt-disable")  # (the loop stays a loop)


def test_the_step_budget_is_read_at_every_launch(setup, monkeypatch):
    ctx, queue, prg = setup
    out = cl.Buffer(ctx, mf.READ_WRITE, 64 * 4)
    knl = cl.Kernel(prg, "spin")
    knl.set_args(out, np.int32(50))
    cl.enqueue_nd_range_kernel(queue, knl, (64,), (64,))
    monkeypatch.setenv("SGVM_MAX_STEPS", "5")
    with pytest.raises(KernelTimeout, match="step budget of 5"):
        cl.enqueue_nd_range_kernel(queue, knl, (64,), (64,))
    monkeypatch.delenv("SGVM_MAX_STEPS")
    cl.enqueue_nd_range_kernel(queue, knl, (64,), (64,))
    host = np.empty(64, np.int32)
    cl.enqueue_copy(queue, host, out)
    assert (host == 50 * 49 // 2).all()


def test_a_changed_argument_is_checked_again(setup):
    ctx, queue, prg = setup
    big, small = cl.Buffer(ctx, mf.READ_WRITE, 64 * 4), cl.Buffer(ctx, mf.READ_WRITE, 32 * 4)
    knl = cl.Kernel(prg, "spin")
    knl.set_args(big, np.int32(3))
    cl.enqueue_nd_range_kernel(queue, knl, (64,), (64,))
    knl.set_arg(0, small)
    with pytest.raises(KernelMemoryError, match="out-of-bounds store"):
        cl.enqueue_nd_range_kernel(queue, knl, (64,), (64,))
    knl.set_arg(0, big)
    knl.set_arg(1, np.int32(4))  # a new value, and an equal one set again, both take effect
    knl.set_arg(1, np.int32(4))
    cl.enqueue_nd_range_kernel(queue, knl, (64,), (64,))
    host = np.empty(64, np.int32)
    cl.enqueue_copy(queue, host, big)
    assert (host == 6).all()


def test_a_by_value_argument_keeps_its_bytes():
    raw = bytearray(np.int32(7).tobytes())
    arg = ValueArg(raw)
    raw[0] = 9
    assert arg.data == np.int32(7).tobytes()


def _uninit(queue, knl, out) -> np.ndarray:
    cl.enqueue_nd_range_kernel(queue, knl, (64,), (64,))
    host = np.empty(64, np.int32)
    cl.enqueue_copy(queue, host, out)
    return host


def test_a_variant_setting_changed_between_launches_takes_effect(setup, monkeypatch):
    """SGVM_MEMORY_INIT=pattern fills local memory with 0x7F bytes (docs/portability.md):
    set between two launches of the same kernel, and unset again, each launch follows it."""
    ctx, queue, prg = setup
    out = cl.Buffer(ctx, mf.READ_WRITE, 64 * 4)
    knl = cl.Kernel(prg, "uninit")
    knl.set_args(out)
    assert (_uninit(queue, knl, out) == 0).all()
    assert (_uninit(queue, knl, out) == 0).all()
    monkeypatch.setenv("SGVM_MEMORY_INIT", "pattern")
    assert (_uninit(queue, knl, out) == 0x7F7F7F7F).all()
    monkeypatch.delenv("SGVM_MEMORY_INIT")
    assert (_uninit(queue, knl, out) == 0).all()


class _Recorder(Backend):
    """A backend that records each launch's sub-group size and variant, standing in for the GPU."""

    name = "cuda"

    def __init__(self) -> None:
        self.launches: list = []

    def launch(self, request):
        self.launches.append((request.sub_group_size, request.variant))
        return LaunchResult()


@pytest.fixture
def spin_args(setup):
    """The ``spin`` kernel's module and arguments for ``runtime.launch``."""
    _, _, prg = setup
    return prg.module, [BufferArg(Allocation(np.zeros(256, np.uint8), "global")), ValueArg(np.int32(3).tobytes())]


def test_a_relaunch_validates_again(spin_args):
    """What a launch remembers never skips a check: the argument count, the work-group size
    against the device, and a kernel name, each wrong after launches that were right."""
    module, args = spin_args
    nd = NDRange((64,), (64,))
    for _ in range(2):
        runtime_launch.launch(module, "spin", args, nd)
    with pytest.raises(LogicError, match="takes 2 arguments, 1 given"):
        runtime_launch.launch(module, "spin", args[:1], nd)
    with pytest.raises(LogicError, match="exceeds the device maximum"):
        runtime_launch.launch(module, "spin", args, NDRange((2048,), (2048,)))
    with pytest.raises(LogicError, match="no kernel named 'spun'"):
        runtime_launch.launch(module, "spun", args, nd)
    runtime_launch.launch(module, "spin", args, nd)


def test_the_cuda_device_refuses_other_choices_after_a_cached_launch(spin_args, monkeypatch):
    """The CUDA device runs only sgvm's own choices: a relaunch with a variant setting, a
    device profile or a variant argument that came after launches it accepted is refused
    before the backend sees it (no GPU needed: a recording backend stands in for it)."""
    module, args = spin_args
    recorder = _Recorder()
    monkeypatch.setitem(backends._LOADED, "cuda", recorder)  # noqa: SLF001
    nd = NDRange((64,), (64,))
    for _ in range(2):
        runtime_launch.launch(module, "spin", args, nd, device=CUDA_DEVICE)
    monkeypatch.setenv("SGVM_GROUP_ORDER", "reversed")
    with pytest.raises(UnsupportedError, match="group_order=reversed"):
        runtime_launch.launch(module, "spin", args, nd, device=CUDA_DEVICE)
    monkeypatch.delenv("SGVM_GROUP_ORDER")
    monkeypatch.setenv("SGVM_PROFILE_DEVICE", "intel-gpu")
    with pytest.raises(UnsupportedError, match="SGVM_PROFILE_DEVICE=intel-gpu"):
        runtime_launch.launch(module, "spin", args, nd, device=CUDA_DEVICE)
    monkeypatch.delenv("SGVM_PROFILE_DEVICE")
    with pytest.raises(UnsupportedError, match="mapping=rows"):
        runtime_launch.launch(module, "spin", args, nd, device=CUDA_DEVICE, variant=Variant(mapping="rows"))
    monkeypatch.setenv("SGVM_SUB_GROUP_SIZE", "32")
    runtime_launch.launch(module, "spin", args, nd, device=CUDA_DEVICE)
    assert recorder.launches == [(16, Variant())] * 2 + [(32, Variant())]


def test_labels_follow_the_parameter_names_of_each_launch(spin_args):
    """Errors name a parameter as the launch's ``param_names`` spell it, also when an earlier
    launch of the same kernel gave other names."""
    module, _ = spin_args
    small = [BufferArg(Allocation(np.zeros(128, np.uint8), "global")), ValueArg(np.int32(3).tobytes())]
    nd = NDRange((64,), (64,))
    for names, label in ((("out", "n"), "argument #0 'out'"), (("dst", "n"), "argument #0 'dst'"),
                         (None, "argument #0")):
        with pytest.raises(KernelMemoryError, match=f"byte offset 128 of {label} \\(128 bytes\\)"):
            runtime_launch.launch(module, "spin", small, nd, param_names=names)


def test_what_a_module_launched_leaves_goes_with_it(setup, monkeypatch):
    """The per-module entry is dropped when the module is: nothing outlives it, and a new
    module at the same address could never be served an old kernel's parameters. (On the
    CUDA device, a recording backend standing in: the CPU engine keeps what it prepared.)"""
    _, _, prg = setup
    monkeypatch.setitem(backends._LOADED, "cuda", _Recorder())  # noqa: SLF001
    module = cl.Program(prg.context, SOURCE).build("-cl-opt-disable").module
    args = [BufferArg(Allocation(np.zeros(256, np.uint8), "global")), ValueArg(np.int32(3).tobytes())]
    runtime_launch.launch(module, "spin", args, NDRange((64,), (64,)), device=CUDA_DEVICE)
    kernels = runtime_launch._KERNELS  # noqa: SLF001
    entries = len(kernels)
    assert module in kernels
    gone = weakref.ref(module)
    del module
    gc.collect()  # (frees other tests' modules too: the CPU engine keeps none alive)
    assert gone() is None and len(kernels) < entries
    assert all(ref() is not None for ref, _ in kernels._by_id.values())  # noqa: SLF001


def test_arguments_set_again_launch_after_launch(setup):
    """PyOpenCL's ``kernel(queue, g, l, *args)`` sets every argument at each call; one equal to
    the last is kept, anything else takes effect: -0.0 after 0.0 (equal numbers, other bytes),
    the buffer itself after a pointer into it, another buffer, a declared scalar dtype."""
    ctx, queue, prg = setup
    a, b = cl.Buffer(ctx, mf.READ_WRITE, 64 * 4), cl.Buffer(ctx, mf.READ_WRITE, 64 * 4)
    knl = cl.Kernel(prg, "bits")

    def read(buf):
        host = np.empty(64, np.int32)
        cl.enqueue_copy(queue, host, buf)
        return host

    knl(queue, (64,), (64,), a, np.float32(0.0))
    first = knl._args[0]  # noqa: SLF001
    knl(queue, (64,), (64,), a, np.float32(0.0))
    assert knl._args[0] is first  # noqa: SLF001 - an equal argument keeps its object
    assert (read(a) == 0).all()
    knl(queue, (64,), (64,), a, np.float32(-0.0))
    assert (read(a) == np.int32(-2**31)).all()
    knl(queue, (32,), (32,), BufferPointer(a, 128), np.float32(1.0))
    assert (read(a)[:32] == np.int32(-2**31)).all() and (read(a)[32:] == 0x3F800000).all()
    knl(queue, (64,), (64,), a, np.float32(2.0))
    assert (read(a) == 0x40000000).all()
    knl(queue, (64,), (64,), b, np.float32(2.0))
    assert (read(b) == 0x40000000).all()
    knl.set_scalar_arg_dtypes([None, np.float32])
    knl(queue, (64,), (64,), b, 3)
    assert (read(b) == 0x40400000).all()
    knl.set_scalar_arg_dtypes([None, None])
    with pytest.raises(cl.LogicError, match="INVALID_ARG_SIZE - argument 1 .* got float64"):
        knl(queue, (64,), (64,), b, np.float64(3.0))  # the same number, other bytes: checked
