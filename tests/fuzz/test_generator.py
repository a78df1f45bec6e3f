"""Generated kernels: deterministic per seed, every one builds, runs on the NumPy engine
with no checker finding, and the known-difference matcher is exact."""

from __future__ import annotations

import hashlib
import random
import re

import numpy as np
import pytest

from sgvm.fuzz.backends import make_backend
from sgvm.fuzz.campaign import Stats, kernels_for, run_batch
from sgvm.fuzz.generator import (
    BLOCK_WRITES,
    LANE,
    REGION,
    SG,
    WG,
    Generator,
    Kernel,
    Launch,
    generate,
    random_launch,
)
from sgvm.fuzz.known import classify, phantom_bytes


def test_same_seed_same_kernel_other_seed_other_kernel():
    assert generate(5, 16).source() == generate(5, 16).source()
    assert generate(5, 16).source() != generate(6, 16).source()
    assert generate(5, 16).source() != generate(5, 8).source()


def test_omitted_builtins_never_appear():
    omit = frozenset({"intel_sub_group_block_read_us16", "intel_sub_group_block_write_us16",
                      "work_group_broadcast:half"})
    texts = [generate(seed, 16, omit=omit).source() for seed in range(80)]
    assert not any("_us16(" in t for t in texts)
    assert any("_uc16(" in t for t in texts)
    assert not any(re.search(r"half \w+ = work_group_broadcast", t) for t in texts)
    assert any(re.search(r"half \w+ = work_group_scan", t) for t in texts)


def test_sub_group_barriers_only_where_the_whole_work_group_runs_them():
    """With the oracle's "sub_group_barrier:sub-group-uniform" key, sub-group barriers are
    only emitted in work-group-uniform control flow."""
    contexts = {True: set(), False: set()}

    class Recording(Generator):
        def emit(self, line):
            if "sub_group_barrier" in line:
                contexts[self.avoid].add(self.ctx)
            super().emit(line)

    for avoid in (True, False):
        omit = frozenset({"sub_group_barrier:sub-group-uniform"} if avoid else ())
        for seed in range(150):
            rng = random.Random(seed)
            gen = Recording(rng, random_launch(rng, 16), 28, omit)
            gen.avoid = avoid
            gen.kernel()
    assert contexts[True] == {WG}
    assert contexts[False] == {WG, SG}


@pytest.mark.parametrize("size", [8, 16, 32])
def test_generated_kernels_run_without_checker_findings(size):
    """A generated kernel with a finding is a generator bug or a checker false positive."""
    stats = Stats()
    cpu = make_backend("cpu", check=True)
    kernels = kernels_for(range(1000, 1012), [size], 28)

    class Same:  # the second backend: the NumPy engine again, without the checker
        name = "cpu-again"
        run = make_backend("cpu").run

    run_batch(kernels, [cpu, Same()], stats)
    assert stats.kernels == 12
    assert stats.checker_findings == []
    assert stats.build_failures == []
    assert stats.agreed == 12


def _kernel(local_size: int, writes: str) -> Kernel:
    return Kernel("k", 1, Launch(8, local_size, 2), [writes])


def test_phantom_bytes_of_a_partial_sub_group():
    # 12 work-items, sub-groups of 8: the second sub-group has 4 work-items; a uint block
    # write puts lane l's element i at word l + 8 i of the region.
    k = _kernel(12, "intel_sub_group_block_write2((global uint *)(blk + sgr + 0u), x);")
    mask = phantom_bytes(k).reshape(-1, 4).all(axis=1)
    per_sg = REGION * BLOCK_WRITES
    assert not mask[:per_sg].any()  # the first sub-group is full
    words = np.flatnonzero(mask[per_sg:per_sg + REGION])
    assert list(words[:8]) == [4, 5, 6, 7, 12, 13, 14, 15]
    full = _kernel(16, "intel_sub_group_block_write2((global uint *)(blk + sgr + 0u), x);")
    assert not phantom_bytes(full).any()


def test_classify_accepts_only_phantom_differences():
    k = _kernel(12, "intel_sub_group_block_write_uc((global uchar *)(blk + sgr + 512u), x);")
    n = k.launch.sub_groups * REGION * BLOCK_WRITES
    ours = [np.zeros(1, np.uint32), np.zeros(8, np.uint32), np.zeros(n, np.uint32)]
    theirs = [a.copy() for a in ours]
    first = REGION * BLOCK_WRITES + 512  # second sub-group, second region
    theirs[2].view(np.uint8)[first * 4 + 5] = 1  # byte of lane 5 (absent): phantom
    assert classify(k, ours, theirs) == "partial-block-write"
    theirs[2].view(np.uint8)[first * 4 + 3] = 1  # byte of lane 3 (present)
    assert classify(k, ours, theirs) is None


def test_omitting_khr_gives_the_kernels_of_the_earlier_generator():
    """``--omit khr`` reproduces the kernels of the generator before the khr built-ins
    (the campaigns docs/oracle.md reports): the SHA-1 of 180 of its kernels, computed
    with that generator (commit eae1b46)."""
    h = hashlib.sha1()
    for seed in range(0, 3420, 57):
        for size in (8, 16, 32):
            h.update(generate(seed, size, 20, frozenset({"khr"})).source().encode())
    assert h.hexdigest() == "0c004698d0c94a6f1336527b88a260fe0cc585c5"


KHR_CALL = re.compile(r"\b(sub_group_(?:non_uniform|ballot|inverse|elect|clustered|shuffle|"
                      r"rotate|broadcast_first)\w*|get_sub_group_\w+_mask)\(")
READS_OTHERS = ("sub_group_shuffle", "sub_group_rotate", "sub_group_clustered_rotate",
                "sub_group_non_uniform_broadcast")


def test_khr_built_ins_only_where_defined():
    """Shuffles, rotates and non-uniform broadcasts only where the whole sub-group runs
    them (rotates and xor shuffles only without partial sub-groups); the functions of
    the active work-items never in a loop whose iterations differ within a sub-group."""
    seen: dict[str, set] = {}

    class Recording(Generator):
        def emit(self, line):
            for name in KHR_CALL.findall(line):
                seen.setdefault(name, set()).add((self.ctx, self.tangled, self.launch.partial))
            super().emit(line)

    for seed in range(200):
        rng = random.Random(seed)
        Recording(rng, random_launch(rng, (8, 16, 32)[seed % 3]), 28).kernel()
    assert len(seen) >= 30, sorted(seen)
    for name, where in seen.items():
        assert all(tangled for _, tangled, _ in where), name
        if name.startswith(READS_OTHERS):
            assert all(ctx >= SG for ctx, _, _ in where), name
        if name.startswith(("sub_group_rotate", "sub_group_clustered_rotate",
                            "sub_group_shuffle_xor")):
            assert not any(partial for _, _, partial in where), name
    assert any(ctx == LANE for ctx, _, _ in seen["sub_group_non_uniform_reduce_add"])


def test_avoided_khr_built_ins_never_appear():
    omit = frozenset({"sub_group_elect", "sub_group_non_uniform_scan_logical_xor"})
    texts = [generate(seed, 16, omit=omit).source() for seed in range(150)]
    assert not any("sub_group_elect(" in t for t in texts)
    assert not any(re.search(r"non_uniform_scan_\w+_logical_xor", t) for t in texts)
    assert any("sub_group_non_uniform_reduce_logical_xor(" in t for t in texts)


SCALAR_16_BIT_SHUFFLE = re.compile(r"(?:short|half) \w+ = (?:intel_)?sub_group_shuffle(?:_xor)?\(")
VECTOR_BROADCAST = re.compile(r"\w+(?:2|3|4|8|16) \w+ = sub_group_(?:non_uniform_)?broadcast\(")


def test_oracle_crash_constructs_are_avoided_without_changing_the_rest():
    """With ``shuffle:16-bit:sub-group-16`` no scalar short/ushort/half shuffle or xor
    shuffle with sub-groups of 16 (the 32-bit type instead); with
    ``broadcast:vector:sub-group-uniform`` vector broadcasts only in work-group-uniform
    control flow (a scalar instead). Either way every other line stays as it was."""
    keys = frozenset({"shuffle:16-bit:sub-group-16", "broadcast:vector:sub-group-uniform"})
    contexts: set[int] = set()

    class Recording(Generator):
        def emit(self, line):
            if VECTOR_BROADCAST.search(line):
                contexts.add(self.ctx)
            super().emit(line)

    changed = 0
    for seed in range(120):
        size = (8, 16, 32)[seed % 3]
        plain = generate(seed, size).body
        avoiding = generate(seed, size, omit=keys).body
        assert len(plain) == len(avoiding)
        changed += plain != avoiding
        for a, b in zip(plain, avoiding, strict=True):
            if a != b:  # the changed statement, or its fold back to uint
                assert SCALAR_16_BIT_SHUFFLE.search(a) or VECTOR_BROADCAST.search(a) or (
                    " = " in a and " = " in b and a.split(" = ")[0].split()[-1]
                    == b.split(" = ")[0].split()[-1]), (a, b)
        if size == 16:
            assert not SCALAR_16_BIT_SHUFFLE.search("\n".join(avoiding))
        rng = random.Random(seed * 1000003 + size)
        Recording(rng, random_launch(rng, size), 20, keys).kernel()
    assert changed >= 5
    assert contexts == {WG}
