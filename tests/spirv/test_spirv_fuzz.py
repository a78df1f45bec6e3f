"""Fuzzing the reader: mutated real modules either read (and then round-trip and
disassemble) or raise SpirvFormatError; nothing else may escape."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgvm import SpirvFormatError
from sgvm.spirv import read, write
from sgvm.spirv.disassembler import disassemble

# Small, varied bases keep each example cheap.
BASES = ("handmade spec", "handmade debug", "handmade names", "switch -cl-std=CL2.0",
         "printf -cl-std=CL2.0 -g", "two_kernels -cl-std=CL2.0 -cl-opt-disable",
         "handmade spec (big-endian)")
INTERESTING = (0, 1, 2, 0xFFFF, 0x10000, 0xFFFFFFFF, 0x07230203, 0x03022307, 0x00010000)
FUZZ = settings(max_examples=1200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _check(data: bytes) -> None:
    try:
        module = read(data)
    except SpirvFormatError as exc:
        assert str(exc).startswith("malformed SPIR-V: ")
        return
    assert write(module) == data  # whatever reads, writes back identically
    disassemble(module)
    disassemble(module, raw_ids=True)


@st.composite
def _mutation(draw: st.DrawFn, words: np.ndarray) -> bytes:
    w = words.copy()
    n = len(w)
    kind = draw(st.sampled_from(("flip", "word", "count", "truncate", "insert", "delete")))
    if kind == "flip":
        for _ in range(draw(st.integers(1, 4))):
            i, bit = draw(st.integers(0, n - 1)), draw(st.integers(0, 31))
            w[i] ^= np.uint32(1 << bit)
    elif kind == "word":
        i = draw(st.integers(0, n - 1))
        w[i] = draw(st.sampled_from(INTERESTING) | st.integers(0, 2**32 - 1)
                    | st.integers(0, int(w[3])))
    elif kind == "count":  # change an instruction's word count or opcode half
        i = draw(st.integers(5, n - 1))
        w[i] = (w[i] & 0xFFFF) | (draw(st.integers(0, 12)) << 16) if draw(st.booleans()) \
            else (w[i] & 0xFFFF0000) | draw(st.integers(0, 6000))
    elif kind == "truncate":
        cut = draw(st.integers(0, n * 4 - 1))
        return w.tobytes()[:cut]
    elif kind == "insert":
        i = draw(st.integers(0, n))
        extra = draw(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=6))
        w = np.insert(w, i, np.asarray(extra, dtype=np.uint32))
    else:
        i = draw(st.integers(5, n - 1))
        w = np.delete(w, slice(i, i + draw(st.integers(1, 5))))
    return w.astype(words.dtype).tobytes()


@st.composite
def _mutated(draw: st.DrawFn, corpus: dict[str, bytes]) -> bytes:
    name = draw(st.sampled_from(BASES))
    data = corpus[name]
    dtype = ">u4" if name.endswith("(big-endian)") else "<u4"
    words = np.frombuffer(data, dtype=dtype).astype(np.uint32).astype(dtype)
    return draw(_mutation(words))


def test_mutated_modules(corpus: dict[str, bytes]) -> None:
    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        _check(data.draw(_mutated(corpus)))

    run()


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=200))
def test_random_bytes(data: bytes) -> None:
    _check(data)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.integers(0, 2**32 - 1), max_size=40))
def test_random_words_after_a_valid_header(words: list[int]) -> None:
    _check(np.asarray([0x07230203, 0x00010400, 0, 64, 0, *words], dtype="<u4").tobytes())
