"""Each category: a kernel that triggers it (category, severity, line, offender count by
hand) and a clean twin with no findings. N = 64 work-items in work-groups of 32 (two
sub-groups of 16 each) unless a test says otherwise."""

from __future__ import annotations

import pytest

from .helpers import buf, line_of

HEAD = "kernel void k(global int *out, global int *in) {\n" \
       "  int i = get_global_id(0); int lid = get_local_id(0);\n" \
       "  int sl = get_sub_group_local_id(); int x = in[i];\n"
LOCAL_HEAD = HEAD + "  local int t[32];\n"

# (name, body, trigger text, category, severity, count, clean body)
CASES = [
    ("shuffle", "  out[i] = intel_sub_group_shuffle(x, sl + 4);\n", "intel_sub_group_shuffle(",
     "shuffle-out-of-range", "error", 4 * 4,  # lanes 12..15 of 4 sub-groups
     "  out[i] = intel_sub_group_shuffle(x, (sl + 4) % 16);\n"),
    ("shuffle_down", "  out[i] = intel_sub_group_shuffle_down(x, x, 20);\n", "intel_sub_group",
     "shuffle-down-out-of-range", "error", 4 * 4,  # l + 20 >= 32 for l >= 12
     "  out[i] = intel_sub_group_shuffle_down(x, x, 4);\n"),
    ("shuffle_up", "  out[i] = intel_sub_group_shuffle_up(x, x, 20);\n", "intel_sub_group",
     "shuffle-up-out-of-range", "error", 4 * 4,  # l - 20 < -16 for l < 4
     "  out[i] = intel_sub_group_shuffle_up(x, x, 4);\n"),
    ("shuffle_xor", "  out[i] = intel_sub_group_shuffle_xor(x, 16u);\n", "intel_sub_group",
     "shuffle-xor-out-of-range", "error", 4 * 16,  # every lane: l ^ 16 >= 16
     "  out[i] = intel_sub_group_shuffle_xor(x, 8u);\n"),
    ("source_inactive", "  if (sl < 8) out[i] = intel_sub_group_shuffle(x, sl + 8);\n",
     "intel_sub_group", "shuffle-source-inactive", "warning", 4 * 8,  # lanes 0..7 read 8..15
     "  if (sl < 8) out[i] = intel_sub_group_shuffle(x, 7 - sl);\n"),
    ("divergent_reduce", "  if (sl < 8) out[i] = sub_group_reduce_add(x);\n", "sub_group_reduce",
     "subgroup-divergence", "error", 4,  # one per sub-group
     "  int s = sub_group_reduce_add(x); if (sl < 8) out[i] = s;\n"),
    ("divergent_sg_barrier", "  if (sl < 8) sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n",
     "sub_group_barrier", "subgroup-barrier-divergence", "error", 4,
     "  sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"),
    ("broadcast_not_uniform", "  out[i] = sub_group_broadcast(x, sl & 1);\n", "sub_group_broadcast",
     "broadcast-lane-not-uniform", "error", 4,
     "  out[i] = sub_group_broadcast(x, 3);\n"),
    ("block_ptr_not_uniform",
     "  out[i] = intel_sub_group_block_read((const global uint *)in + (sl & 1) * 16);\n",
     "intel_sub_group_block_read", "block-argument-not-uniform", "error", 4,
     "  out[i] = intel_sub_group_block_read((const global uint *)in);\n"),
    ("wg_broadcast_not_uniform", "  out[i] = work_group_broadcast(x, (size_t)(lid & 1));\n",
     "work_group_broadcast", "work-group-broadcast-id-not-uniform", "error", 2,  # per work-group
     "  out[i] = work_group_broadcast(x, (size_t)5);\n"),
    ("block_write_misaligned",
     "  intel_sub_group_block_write((global uint *)out + 1 + (i - sl), (uint)x);\n",
     "intel_sub_group_block_write", "block-write-misaligned", "error", 4,
     "  intel_sub_group_block_write((global uint *)out + (i - sl), (uint)x);\n"),
    ("barrier_divergence", "  if (lid < 16) barrier(CLK_LOCAL_MEM_FENCE);\n", "barrier(",
     "barrier-divergence", "error", 2,  # one per work-group
     "  barrier(CLK_LOCAL_MEM_FENCE);\n"),
    ("work_group_divergence", "  if (lid < 16) out[i] = work_group_reduce_add(x);\n",
     "work_group_reduce_add", "work-group-divergence", "error", 2,
     "  int s = work_group_reduce_add(x); if (lid < 16) out[i] = s;\n"),
    ("out_of_bounds", "  out[i + 2] = x;\n", "out[i + 2]", "out-of-bounds", "error", 1,
     "  out[i + 1] = x;\n"),  # out holds N + 1 ints: only i = 63 writes past it
    ("negative_offset", "  out[i] = in[i - 1];\n", "in[i - 1]", "out-of-bounds", "error", 1,
     "  out[i] = in[i];\n"),  # i = 0 reads 4 bytes below in
    ("local_out_of_bounds", "  t[lid + 32] = x; barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[lid];\n",
     "t[lid + 32]", "out-of-bounds", "error", 64,  # each work-group's t, not only the last one's
     "  t[lid] = x; barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[31 - lid];\n"),
    ("private_out_of_bounds",
     "  int a[4]; for (int k = 0; k < 4; k++) a[k] = x + k;\n  out[i] = a[lid & 7];\n",
     "a[lid & 7]", "out-of-bounds", "error", 32,  # lid % 8 >= 4 reads past its own a
     "  int a[4]; for (int k = 0; k < 4; k++) a[k] = x + k;\n  out[i] = a[lid & 3];\n"),
    ("misaligned", "  *(global int *)((global char *)out + 4 * i + 2) = x;\n", "*(global int *)",
     "misaligned", "error", 64, "  *(global int *)((global char *)out + 4 * i) = x;\n"),
    ("uninitialized_local", "  if (lid < 16) t[lid] = x;\n  out[i] = t[lid];\n", "out[i] = t[lid]",
     "uninitialized-read", "warning", 2 * 16,  # lanes 16..31 read slots nobody wrote
     "  t[lid] = x; barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[31 - lid];\n"),
    ("race_local_rw", "  t[lid] = x; out[i] = t[(lid + 1) % 32];\n", "t[(lid + 1)", "data-race",
     "error", 64,  # every read sees the neighbour's write of this epoch
     "  t[lid] = x; barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[(lid + 1) % 32];\n"),
    ("race_local_ww", "  t[0] = x; barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[0];\n", "t[0] = x",
     "data-race", "error", 2 * 31,  # in each work-group 31 writes are overwritten by lane 31's
     "  if (lid == 0) t[0] = x; barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[0];\n"),
    ("race_global_groups", "  out[lid] = x;\n", "out[lid]", "data-race", "error", 32,
     "  out[i] = x;\n"),  # work-group 1 rewrites what work-group 0 wrote
    ("division_by_zero", "  out[i] = x / (lid - 3);\n", "/ (lid", "division-by-zero", "warning", 2,
     "  out[i] = x / (lid + 1);\n"),
    ("shift", "  out[i] = x << (lid + 20);\n", "<< (lid", "shift-too-wide", "warning", 2 * 20,
     "  out[i] = x << (lid & 7);\n"),  # lid + 20 >= 32 for lid >= 12
    ("conversion", "  out[i] = (int)((float)lid * 1e9f);\n", "(int)((float)", "conversion-out-of-range",
     "warning", 2 * 29,  # lid * 1e9 > 2147483647 for lid >= 3
     "  out[i] = (int)((float)lid * 1e7f);\n"),
]
IDS = [c[0] for c in CASES]


def _source(body: str) -> str:
    return LOCAL_HEAD + body + "}\n"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_trigger(check, case) -> None:
    _, body, text, category, severity, count, _ = case
    src = _source(body)
    found = [f for f in check(src, buf(), buf()) if f.category == category]
    assert len(found) == 1, found
    f = found[0]
    assert f.severity == severity
    assert f.line == line_of(src, text)
    assert f.count == count
    assert f.kernel == "k" and f.offenders and f.clause
    if case[0] == "negative_offset":
        assert "byte offset -4 of argument #1" in f.message, f.message
    if case[0] == "local_out_of_bounds":
        assert "local variable" in f.message and "128 bytes per work-group" in f.message
    if case[0] == "private_out_of_bounds":
        assert "private variable" in f.message and "16 bytes per work-item" in f.message


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_clean_twin(check, case) -> None:
    assert check(_source(case[6]), buf(), buf()) == []
