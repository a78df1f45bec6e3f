"""Out-of-bounds errors from a kernel launched through sgvm.cl name the parameter as the source does."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm
import sgvm.cl as cl

SOURCE = """
kernel void copy(global const float *src, global float *dst) {
    size_t i = get_global_id(0);
    dst[i] = src[i + 8];
}
"""


def test_memory_error_names_source_parameter() -> None:
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    src = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.zeros(16, np.float32))
    dst = cl.Buffer(ctx, mf.WRITE_ONLY, 64)
    prg = cl.Program(ctx, SOURCE).build()
    with pytest.raises(sgvm.KernelMemoryError) as info:
        prg.copy(queue, (16,), (8,), src, dst)
    message = str(info.value)
    # Work-item 8 is the first to read src[16], one past the 16 floats (byte offset 64).
    assert "argument #0 'src'" in message
    assert "byte offset 64" in message
    assert "global id (8,)" in message
