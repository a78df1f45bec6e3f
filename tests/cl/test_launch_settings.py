"""A launch of an already-launched kernel reads the environment again and checks changed
arguments again: nothing it remembers from an earlier launch outlives a change."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm.cl as cl
from sgvm import KernelMemoryError, KernelTimeout
from sgvm.runtime.args import ValueArg

SOURCE = """
kernel void spin(global int *out, int n) {
    int s = 0;
    for (int k = 0; k < n; k++) s += k;
    out[get_global_id(0)] = s;
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
