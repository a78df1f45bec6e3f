"""The CUDA launch's packed parameters (``engine/cuda/packed.py``): what ``cuLaunchKernel``
reads through each pointer is the parameter's value, and the argument signature that
decides when a relaunch may reuse them. No GPU needed."""

from __future__ import annotations

import ctypes

import numpy as np

from sgvm.engine.cuda.packed import Packed, signature
from sgvm.runtime.args import BufferArg, ImageArg, LocalArg, NullArg, ValueArg
from sgvm.runtime.memory import Allocation


def test_each_pointer_reads_its_parameter() -> None:
    ctx = (np.uint64(0x1122334455667788), np.uint32(0xDEADBEEF))
    tail = (np.uint8(0xAB), np.uint16(0x1234), np.uint64(2**64 - 1))
    packed = Packed([((3,), (64, 2), ctx), ((1, 1), (5, 2), ctx)], tail, 48, [], [], [], True)
    assert [launch[:6] for launch in packed.launches] == [(3, 1, 1, 64, 2, 1), (1, 1, 1, 5, 2, 1)]
    for launch in packed.launches:
        pointers = (ctypes.c_uint64 * 5).from_address(launch[6])
        read = [ctypes.c_uint64.from_address(pointers[0]).value,
                ctypes.c_uint32.from_address(pointers[1]).value,
                ctypes.c_uint8.from_address(pointers[2]).value,
                ctypes.c_uint16.from_address(pointers[3]).value,
                ctypes.c_uint64.from_address(pointers[4]).value]
        assert read == [0x1122334455667788, 0xDEADBEEF, 0xAB, 0x1234, 2**64 - 1]
    assert packed.current() == [] and packed.dyn == 48


def test_signature_tells_arguments_apart() -> None:
    a, b = Allocation(np.zeros(16, np.uint8), "global"), Allocation(np.zeros(16, np.uint8), "global")
    base = [BufferArg(a), ValueArg(np.float32(1).tobytes()), LocalArg(64), NullArg()]
    same = [BufferArg(a), ValueArg(np.float32(1).tobytes()), LocalArg(64), NullArg()]
    assert signature(base) == signature(same)
    for other in ([BufferArg(b)] + base[1:], [BufferArg(a, 4)] + base[1:],
                  base[:1] + [ValueArg(np.float32(2).tobytes())] + base[2:],
                  base[:2] + [LocalArg(128), NullArg()]):
        assert signature(other) != signature(base)
    assert signature([ImageArg(None)]) is None  # descriptors are looked up at each launch
