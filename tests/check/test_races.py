"""Data races beyond the category table: atomics (never racing each other, racing plain
accesses), write-after-read across work-groups, byte accesses to int cells, sub-group
barriers, and the same detections with every logged read applied at once."""

from __future__ import annotations

import pytest

import sgvm.check.shadow as shadow

from .helpers import buf, line_of
from .test_categories import LOCAL_HEAD

GROUP = "  int g = get_group_id(0);\n"

# (name, body, trigger text, count, message part, clean body)
CASES = [
    # work-group 1 rewrites what work-group 0 read (and the reverse), no atomics
    ("write_after_read_across_groups", "  int v = out[i];\n  out[(i + 32) % 64] = v;\n",
     "out[(i + 32)", 64, "write after an unordered read",
     "  int v = out[i];\n  out[i] = v + 1;\n"),
    # every work-item bumps out[lid]: atomics never race, but a plain store by
    # work-group 0 after work-group 1's atomics does
    ("store_after_atomic", GROUP + "  atomic_add(&out[lid], 1);\n  barrier(CLK_GLOBAL_MEM_FENCE);\n"
     "  if (g == 0) out[lid] = x;\n", "out[lid] = x", 32, "write after an unordered atomic write",
     GROUP + "  atomic_add(&out[lid], 1);\n  barrier(CLK_GLOBAL_MEM_FENCE);\n"
     "  if (g == 0) atomic_xchg(&out[lid], x);\n"),
    # a local counter read without the barrier after the increments: the last
    # incrementer's own read is ordered, the other 31 per work-group race
    ("read_after_local_atomic", "  local int n;\n  if (lid == 0) n = 0;\n"
     "  barrier(CLK_LOCAL_MEM_FENCE);\n  atomic_inc(&n);\n  out[i] = n;\n", "out[i] = n", 2 * 31,
     "read after an unordered atomic write",
     "  local int n;\n  if (lid == 0) n = 0;\n  barrier(CLK_LOCAL_MEM_FENCE);\n"
     "  atomic_inc(&n);\n  barrier(CLK_LOCAL_MEM_FENCE);\n  out[i] = n;\n"),
    # an atomic load of what another work-group stored plainly
    ("atomic_load_after_store", GROUP + "  if (g == 1) out[lid] = x;\n"
     "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
     "  if (g == 0) out[32 + lid] = atomic_load((volatile global atomic_int *)&out[lid]);\n",
     "atomic_load(", 32, "read after an unordered write",
     GROUP + "  if (g == 1) atomic_store((volatile global atomic_int *)&out[lid], x);\n"
     "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
     "  if (g == 0) out[32 + lid] = atomic_load((volatile global atomic_int *)&out[lid]);\n"),
    # a plain read next to atomic reads is no conflict; a plain store next to them is
    ("store_after_atomic_load", GROUP +
     "  if (g == 1) out[32 + lid] = atomic_load((volatile global atomic_int *)&out[lid]);\n"
     "  barrier(CLK_GLOBAL_MEM_FENCE);\n  if (g == 0) out[lid] = x;\n", "out[lid] = x", 32,
     "write after an unordered atomic read", GROUP +
     "  if (g == 1) out[32 + lid] = atomic_load((volatile global atomic_int *)&out[lid]);\n"
     "  barrier(CLK_GLOBAL_MEM_FENCE);\n  if (g == 0) in[i] = out[lid];\n"),
    # byte reads of ints another work-group wrote (cells split to bytes)
    ("byte_read_after_int_write", "  out[i] = x;\n"
     "  in[i] = ((global char *)out)[((i + 32) % 64) * 4 + 1];\n", "((global char *)out)", 64,
     "read after an unordered write",
     "  out[i] = x;\n  in[i] = ((global char *)out)[i * 4 + 1];\n"),
    # a sub-group barrier orders the work-items of one sub-group only
    ("sub_group_barrier_other_sub_group",
     "  t[lid] = x;\n  sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n  out[i] = t[(lid + 16) % 32];\n",
     "t[(lid + 16)", 64, "read after an unordered write",
     "  t[lid] = x;\n  sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n  out[i] = t[lid ^ 1];\n"),
]


@pytest.mark.parametrize("cap", [shadow.PENDING_CAP, 0], ids=["logged", "applied"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_race(check, monkeypatch, case, cap) -> None:
    """Each trigger once, with its clean twin; ``applied``: logged reads are applied to
    the reader shadow at once (as when the log is full)."""
    monkeypatch.setattr(shadow, "PENDING_CAP", cap)
    _, body, text, count, what, clean = case
    src = LOCAL_HEAD + body + "}\n"
    (f,) = check(src, buf(), buf())
    assert (f.category, f.count, f.line) == ("data-race", count, line_of(src, text))
    assert what in f.message
    assert check(LOCAL_HEAD + clean + "}\n", buf(), buf()) == []
