"""The id bound of untrusted modules: SPIR-V's universal limit is enforced, and a large declared
bound costs no memory (registers exist for defined ids only)."""

from __future__ import annotations

import struct
import tracemalloc

import numpy as np
import pytest

import sgvm
from sgvm import SpirvFormatError, cl
from sgvm.spirv import read
from sgvm.spirv.reader import MAX_ID_BOUND

SOURCE = "kernel void k(global int *a) { a[get_global_id(0)] += 1; }"


def _with_bound(spirv: bytes, bound: int) -> bytes:
    return spirv[:12] + struct.pack("<I", bound) + spirv[16:]


@pytest.fixture(scope="module")
def spirv() -> bytes:
    return sgvm.compile(SOURCE)


@pytest.mark.parametrize("bound", [MAX_ID_BOUND + 1, 2**31, 2**32 - 1])
def test_bound_over_the_universal_limit_is_malformed(spirv: bytes, bound: int) -> None:
    with pytest.raises(SpirvFormatError, match=r"word 3: id bound \d+ exceeds 4194303") as err:
        read(_with_bound(spirv, bound))
    assert err.value.offset == 3
    with pytest.raises(cl.LogicError, match="INVALID_VALUE.*exceeds 4194303"):
        cl.Program(cl.create_some_context(), _with_bound(spirv, bound))


def _peak(data: bytes) -> int:
    a = np.arange(32, dtype=np.int32)
    tracemalloc.start()
    try:
        sgvm.run(data, "k", (32,), None, a)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        assert np.array_equal(a, np.arange(32) + 1)


def test_largest_bound_costs_no_memory(spirv: bytes) -> None:
    """The same 856-byte module declaring bound 4,194,303 peaked at 96 MiB (8 bytes per id)."""
    base, big = _peak(spirv), _peak(_with_bound(spirv, MAX_ID_BOUND))
    assert big < base + 4 * 2**20, f"peak {big / 2**20:.1f} MiB, {base / 2**20:.1f} MiB with the module's own bound"
