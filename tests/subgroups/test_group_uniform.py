"""Values kept once per sub-group (``values.GroupUniform``) and the collective fast paths:
reductions, ``gid & ~(S-1)`` / ``gid >> log2(S)`` / ``gid / S`` addresses, branches and
arithmetic on them, uniform-delta shuffles as slice copies and block reads through such
pointers. Against NumPy references in full 1-D launches (where the fast paths apply),
partial and non-uniform work-groups and divergent code (where they do not)."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm import semantics as sem
from sgvm.engine.cpu.subgroup_ops import _gather_uniform

from .helpers import SIZES, build, run, sub_groups

SHAPES = {"full": ((256,), (64,)), "partial": ((60,), (20,)), "nonuniform": ((70,), (24,))}


def _kernels(S: int) -> str:
    mask, shift = f"~(size_t){S - 1}", S.bit_length() - 1
    return f"""
__attribute__((intel_reqd_sub_group_size({S})))
kernel void gu_{S}(global const uint* a, global const uint* b, global uint* o) {{
  size_t i = get_global_id(0);
  uint x = a[i];
  uint s = sub_group_reduce_add(x);
  uint m = sub_group_reduce_max(x);
  uint u = s * 3u + (m ^ 5u) + x;
  if (s > 4000u) u += 7u;
  if (x & 1u) u += sub_group_reduce_min(x) << 8;
  o[4*i] = u;
  o[4*i+1] = b[i & {mask}] + b[i >> {shift}] * 2u + b[i / {S}] * 4u;
  o[4*i+2] = b[i & ~(size_t)3] + (uint)(i & ~(size_t){2 * S - 1});
  o[4*i+3] = m > 500u ? s : x;
}}

__attribute__((intel_reqd_sub_group_size({S})))
kernel void blk_{S}(global const uint* a, global const uint* b, global uint* o) {{
  size_t i = get_global_id(0);
  uint x = a[i];
  uint s = sub_group_reduce_add(x);
  o[4*i] = intel_sub_group_shuffle_down(x, s, 3u) + intel_sub_group_shuffle_up(s, x, 5u);
  o[4*i+1] = intel_sub_group_block_read(b + (i & {mask}) + 8);
  o[4*i+2] = intel_sub_group_block_read(b + (i & ~(size_t)31));
  o[4*i+3] = (s & 1u) ? intel_sub_group_block_read(b + (i & {mask})) : 0u;
}}
"""


@pytest.fixture(scope="module")
def module():
    return build("".join(_kernels(S) for S in SIZES))


def _inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    return rng.integers(0, 1000, n, dtype=np.uint32), rng.integers(0, 1 << 20, n + 64, dtype=np.uint32)


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("shape", SHAPES)
def test_reductions_and_addresses(module, S: int, shape: str):
    gs, ls = SHAPES[shape]
    n = gs[0]
    a, b = _inputs(n)
    out = run(module, f"gu_{S}", [a, b, np.zeros(4 * n, np.uint32)], gs, ls)[0][2].reshape(n, 4)
    u32 = np.uint32
    i = np.arange(n)
    expect = np.zeros((n, 4), np.uint32)
    for ids in sub_groups(gs, ls, S):
        x = a[ids]
        s, m = x.sum(dtype=u32), x.max()
        u = s * u32(3) + (m ^ u32(5)) + x + (u32(7) if s > 4000 else u32(0))
        odd = (x & 1) == 1
        if odd.any():
            u = np.where(odd, u + (x[odd].min() << u32(8)), u)
        expect[ids, 0] = u
        expect[ids, 3] = s if m > 500 else x
    expect[:, 1] = b[i & ~(S - 1)] + b[i >> (S.bit_length() - 1)] * u32(2) + b[i // S] * u32(4)
    expect[:, 2] = b[i & ~3] + (i & ~(2 * S - 1)).astype(np.uint32)
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("S", SIZES)
def test_shuffles_and_block_reads(module, S: int):
    gs, ls = SHAPES["full"]
    n = gs[0]
    a, b = _inputs(n)
    out = run(module, f"blk_{S}", [a, b, np.zeros(4 * n, np.uint32)], gs, ls)[0][2].reshape(n, 4)
    expect = np.zeros((n, 4), np.uint32)
    lane = np.arange(S)
    for ids in sub_groups(gs, ls, S):
        x = a[ids]
        s = x.sum(dtype=np.uint32)
        down = np.where(lane + 3 < S, x[np.minimum(lane + 3, S - 1)], s)
        up = np.where(lane >= 5, x[np.maximum(lane - 5, 0)], s)
        start = ids[0]
        expect[ids, 0] = down + up
        expect[ids, 1] = b[start + 8 + lane]
        expect[ids, 2] = b[(start & ~31) + lane]
        expect[ids, 3] = b[start + lane] if s & 1 else 0
    np.testing.assert_array_equal(out, expect)


SHUFFLES = {"down": (sem.shuffle_down, sem.shuffle_down_source, False),
            "up": (sem.shuffle_up, sem.shuffle_up_source, True),
            "xor": (sem.shuffle_xor, sem.shuffle_xor_source, False),
            "plain": (sem.shuffle, sem.shuffle_source, False)}


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("kind", SHUFFLES)
@pytest.mark.parametrize("vector", [False, True])
def test_uniform_shuffle_matches_semantics(S: int, kind: str, vector: bool):
    """The engine's column copies for a uniform index give the semantics' result,
    out-of-range lanes (0) included, for every index up to past ``2*S``."""
    fn, source_fn, up = SHUFFLES[kind]
    rng = np.random.default_rng(S)
    shape = (5, S, 3) if vector else (5, S)
    cur, other = (rng.integers(1, 1 << 30, shape, dtype=np.uint32) for _ in range(2))
    two = kind in ("down", "up")
    for index in [*range(2 * S + 2), 0xFFFFFFFF, 1 << 31]:
        data = [other, cur] if up else ([cur, other] if two else [cur])
        expect, _ = fn(*data, np.uint32(index), S)
        values = [cur, other] if two else [cur]
        got = _gather_uniform(values, source_fn(np.uint32(index), S))
        np.testing.assert_array_equal(got, expect, err_msg=f"{kind} index {index}")
