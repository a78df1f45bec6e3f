"""The message profile end to end: kernels run on a profiling queue, and ``sgvm run --profile``.

Expected numbers are derived by hand from the model in docs/visa.md ("Message
profile"). Every buffer starts on a 64-byte line (allocations are 2**40-aligned).
Source lines are found by searching the kernel text, never hard-coded.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sgvm.cl as cl
from sgvm.cli import main as cli_main
from sgvm.visa import MessageProfile, ProfileEntry, lower_access
from sgvm.visa.profile_observer import _linear_sums, lower_many

SG16 = "__attribute__((intel_reqd_sub_group_size(16)))"

BLOCK = f"""
{SG16} __kernel void block(__global const uint* in, __global uint* out) {{
    uint base = get_group_id(0) * get_local_size(0);
    uint v = intel_sub_group_block_read(in + base);
    out[get_global_id(0)] = v;
}}
"""

SCATTERED = f"""
{SG16} __kernel void scattered(__global const uint* in, __global uint* out) {{
    uint i = get_global_id(0);
    uint v = in[i * 16];
    out[i] = v;
}}
"""


def line_of(source: str, text: str) -> str:
    """``"<kernel>:N"``, N the 1-based line of ``source`` holding ``text`` (the host API's file name)."""
    hits = [n for n, line in enumerate(source.splitlines(), 1) if text in line]
    assert len(hits) == 1, f"{text!r} on lines {hits}"
    return f"<kernel>:{hits[0]}"


@pytest.fixture
def pqueue() -> cl.CommandQueue:
    ctx = cl.create_some_context(interactive=False)
    return cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)


def profile(queue: cl.CommandQueue, source: str, kernel: str, gsize: int, lsize: int,
            *arrays: np.ndarray, options: str = "-g") -> MessageProfile:
    """Run ``kernel`` over ``arrays`` (global buffers, copied back) and return its profile."""
    ctx = queue.context
    prg = cl.Program(ctx, source).build(options)
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    bufs = [cl.Buffer(ctx, flags, hostbuf=a) for a in arrays]
    event = getattr(prg, kernel)(queue, (gsize,), (lsize,), *bufs)
    for a, b in zip(arrays, bufs, strict=True):
        cl.enqueue_copy(queue, a, b)
    return event.profile.messages


def expect(entry: ProfileEntry, *, accesses: int, kinds: dict[str, int], requested: int,
           lines: int) -> None:
    assert entry.accesses == accesses
    assert dict(entry.by_kind) == kinds
    assert entry.messages == sum(kinds.values())
    assert entry.bytes_requested == requested
    assert entry.cache_lines == lines
    assert entry.bytes_moved == 64 * lines


def test_block_read_is_one_message_where_scattered_loads_touch_sixteen_lines(pqueue):
    """One sub-group of 16 reads 16 uints.

    Block read: 16 × 4 = 64 bytes from lane 0's address, one OWORD_BLOCK_READ of
    4 owords, one line. Scattered ``in[i * 16]``: addresses 64 bytes apart, block
    size 4 (a uint is not a multiple of 8), one SVM_GATHER at exec size 16
    requesting 64 bytes over 16 lines (1024 bytes moved, 6 % efficiency).
    """
    data = np.arange(256, dtype=np.uint32)
    out = np.zeros(16, np.uint32)
    p = profile(pqueue, BLOCK, "block", 16, 16, data, out)
    np.testing.assert_array_equal(out, data[:16])
    expect(p.entry("block", line_of(BLOCK, "intel_sub_group_block_read")),
           accesses=1, kinds={"OWORD_BLOCK_READ": 1}, requested=64, lines=1)

    out = np.zeros(16, np.uint32)
    p = profile(pqueue, SCATTERED, "scattered", 16, 16, data, out)
    np.testing.assert_array_equal(out, data[::16])
    gather = p.entry("scattered", line_of(SCATTERED, "in[i * 16]"))
    expect(gather, accesses=1, kinds={"SVM_GATHER": 1}, requested=64, lines=16)
    assert gather.efficiency == 64 / 1024


def test_per_line_attribution_and_totals(pqueue):
    """Four sub-groups (global 64, local 32): each line gets its own entry; the store
    ``out[i]`` is one SVM_SCATTER of 64 contiguous bytes per sub-group."""
    data = np.arange(1024, dtype=np.uint32)
    out = np.zeros(64, np.uint32)
    p = profile(pqueue, SCATTERED, "scattered", 64, 32, data, out)
    load = p.entry("scattered", line_of(SCATTERED, "in[i * 16]"))
    store = p.entry("scattered", line_of(SCATTERED, "out[i] = v"))
    expect(load, accesses=4, kinds={"SVM_GATHER": 4}, requested=256, lines=64)
    expect(store, accesses=4, kinds={"SVM_SCATTER": 4}, requested=256, lines=4)
    assert {(r["kernel"], r["source"]) for r in p.to_dict()["lines"]} == {
        ("scattered", line_of(SCATTERED, "in[i * 16]")),
        ("scattered", line_of(SCATTERED, "out[i] = v")),
    }
    total = p.totals()
    assert (total.messages, total.bytes_requested, total.cache_lines) == (8, 512, 68)
    assert p.to_dict()["lines"][0]["source"] == line_of(SCATTERED, "in[i * 16]")  # busiest first


def test_wide_block_read_and_block_write(pqueue):
    """``intel_sub_group_block_read8`` at SIMD16: 16 × 8 × 4 = 512 bytes, four 8-oword
    messages of two lines each. ``intel_sub_group_block_write``: 64 bytes, one 4-oword
    OWORD_BLOCK_WRITE."""
    src = f"""
{SG16} __kernel void wide(__global const uint* in, __global uint* out) {{
    uint8 v = intel_sub_group_block_read8(in);
    intel_sub_group_block_write(out, v.s0 + v.s7);
}}
"""
    data = np.arange(128, dtype=np.uint32)
    out = np.zeros(16, np.uint32)
    p = profile(pqueue, src, "wide", 16, 16, data, out)
    np.testing.assert_array_equal(out, data[:16] + data[112:])
    expect(p.entry("wide", line_of(src, "block_read8")),
           accesses=1, kinds={"OWORD_BLOCK_READ": 4}, requested=512, lines=8)
    expect(p.entry("wide", line_of(src, "block_write")),
           accesses=1, kinds={"OWORD_BLOCK_WRITE": 1}, requested=64, lines=1)


def test_atomics_are_simd8_messages(pqueue):
    """32 work-items, two sub-groups of 16. ``atomic_inc(out)``: per sub-group two
    SVM_ATOMIC messages of 8 channels (one line each, 32 bytes requested).
    ``atomic_add(&out[1 + 16 * i], i)``: 16 lanes 64 bytes apart, two messages of 8
    lines each per sub-group."""
    src = f"""
{SG16} __kernel void atom(__global uint* out) {{
    uint i = get_global_id(0);
    atomic_inc(out);
    atomic_add(&out[1 + 16 * i], i);
}}
"""
    out = np.zeros(1 + 16 * 32, np.uint32)
    p = profile(pqueue, src, "atom", 32, 32, out)
    assert out[0] == 32 and out[17] == 1
    expect(p.entry("atom", line_of(src, "atomic_inc")),
           accesses=2, kinds={"SVM_ATOMIC": 4}, requested=128, lines=4)
    expect(p.entry("atom", line_of(src, "atomic_add")),
           accesses=2, kinds={"SVM_ATOMIC": 4}, requested=128, lines=32)


def test_vector_and_byte_stores(pqueue):
    """``float4`` store at SIMD16: 16-byte accesses on 16-byte addresses, block size 8,
    2 blocks: one SVM_SCATTER (num_blocks 2) requesting 256 bytes over 4 lines.
    ``uchar`` store: block size 1, one message, 16 bytes, one line."""
    src = f"""
{SG16} __kernel void st(__global float4* f, __global uchar* b) {{
    uint i = get_global_id(0);
    f[i] = (float4)(i);
    b[i] = (uchar)i;
}}
"""
    f = np.zeros(64, np.float32)
    b = np.zeros(16, np.uint8)
    p = profile(pqueue, src, "st", 16, 16, f, b)
    assert f[4 * 5] == 5 and b[15] == 15
    expect(p.entry("st", line_of(src, "f[i] =")),
           accesses=1, kinds={"SVM_SCATTER": 1}, requested=256, lines=4)
    expect(p.entry("st", line_of(src, "b[i] =")),
           accesses=1, kinds={"SVM_SCATTER": 1}, requested=16, lines=1)


def test_partial_sub_groups_follow_the_lane_layout(pqueue):
    """Local size 12 at SIMD16: each work-group is one partial sub-group of 12 lanes
    (4 padding lanes). ``in[i]``: group 0 reads bytes 0-47 (1 line), group 1 bytes
    48-95 (2 lines): 2 gathers, 96 bytes requested, 3 lines."""
    src = f"""
{SG16} __kernel void part(__global const uint* in, __global uint* out) {{
    uint i = get_global_id(0);
    uint v = in[i];
    out[i] = v + 1;
}}
"""
    data = np.arange(24, dtype=np.uint32)
    out = np.zeros(24, np.uint32)
    p = profile(pqueue, src, "part", 24, 12, data, out, options="-g -cl-std=CL2.0")
    np.testing.assert_array_equal(out, data + 1)
    expect(p.entry("part", line_of(src, "in[i]")),
           accesses=2, kinds={"SVM_GATHER": 2}, requested=96, lines=3)


def test_without_debug_info_lines_are_unknown(pqueue):
    data = np.arange(256, dtype=np.uint32)
    out = np.zeros(16, np.uint32)
    p = profile(pqueue, SCATTERED, "scattered", 16, 16, data, out, options="")
    assert [r["source"] for r in p.to_dict()["lines"]] == ["?"]
    expect(p.entry("scattered", "?"), accesses=2, kinds={"SVM_GATHER": 1, "SVM_SCATTER": 1},
           requested=128, lines=17)


def test_profile_needs_a_profiling_queue():
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SCATTERED).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 1024 * 4)
    event = prg.scattered(queue, (16,), (16,), buf, buf)
    assert event.result.profile is None
    with pytest.raises(cl.Error, match="PROFILING_INFO_NOT_AVAILABLE"):
        event.profile.messages  # noqa: B018


def test_non_kernel_commands_have_no_messages(pqueue):
    buf = cl.Buffer(pqueue.context, cl.mem_flags.READ_WRITE, 64)
    event = cl.enqueue_copy(pqueue, buf, np.zeros(16, np.uint32))
    assert event.profile.messages is None
    assert event.profile.end >= event.profile.start


def test_sgvm_run_profile(tmp_path, capsys, monkeypatch):
    """``sgvm run --profile`` builds with -g, names the user's file and prints the table;
    ``--profile-json`` writes ``to_dict()``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cl").write_text(BLOCK)
    monkeypatch.setattr(sys, "argv", ["sgvm"])
    rc = cli_main(["run", "k.cl", "--global", "32", "--local", "16", "--arg", "in=zeros:64:uint32",
                   "--arg", "out=zeros:32:uint32", "--profile", "--profile-json", "p.json"])
    assert rc in (0, None)
    out = capsys.readouterr().out
    source = line_of(BLOCK, "intel_sub_group_block_read").replace("<kernel>", "k.cl")
    row = next(line for line in out.splitlines() if source in line)
    assert "2 OWORD_BLOCK_READ" in row
    data = json.loads((tmp_path / "p.json").read_text())
    by_source = {r["source"]: r for r in data["lines"]}
    assert by_source[source]["messages"] == 2 and by_source[source]["bytes_moved"] == 128


ACCESS = st.tuples(
    st.sampled_from(["load", "store", "atomic", "block_read", "block_write"]),
    st.sampled_from([1, 2, 4, 8, 16, 32]),
    st.integers(1, 4),
    st.data(),
)


@settings(max_examples=300, deadline=None)
@given(ACCESS)
def test_lower_many_sums_lower_access(case):
    """The vectorised lowering the observer uses equals lower_access, sub-group by sub-group."""
    kind, sg, rows, data = case
    sizes = [4, 8] if kind == "atomic" else [1, 2, 3, 4, 8, 12, 16, 32]
    size = data.draw(st.sampled_from(sizes))
    width = data.draw(st.integers(1, sg))
    addr = np.array(data.draw(st.lists(st.lists(st.integers(0, 1 << 12), min_size=width,
                                                max_size=width), min_size=rows, max_size=rows)),
                    dtype=np.uint64)
    if kind == "atomic":
        addr -= addr % np.uint64(size)
    on = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=width, max_size=width),
                                     min_size=rows, max_size=rows)), dtype=bool)
    if kind.startswith("block_"):
        addr[:] = addr[:, :1]  # one block start per sub-group, as the engine reports it
    ref = ProfileEntry()
    for a, m in zip(addr, on, strict=True):
        ref.add(lower_access(kind, a, size, m, sg))
    assert lower_many(kind, addr, on, size, sg).to_dict() == ref.to_dict()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["load", "store", "atomic", "block_read"]), st.sampled_from([8, 16, 32]),
       st.integers(0, 200), st.integers(-24, 24), st.integers(1, 150), st.sampled_from([4, 8]))
def test_linear_events_lower_one_period(kind, sg, start, stride, rows, size):
    """An access by every lane at ``start + stride × lane`` (the engine's Affine fast path)
    gives the sums of lowering every sub-group."""
    stride *= size if kind == "atomic" else 1
    start = start * size + max(0, -stride) * rows * sg
    addr = (start + stride * np.arange(rows * sg)).astype(np.uint64).reshape(rows, sg)
    full = lower_many(kind, addr, np.ones(addr.shape, bool), size, sg)
    assert _linear_sums(kind, start, stride, rows, size, sg).to_dict() == full.to_dict()
