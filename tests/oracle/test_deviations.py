"""The oracle's known deviations (sgvm.oracle.differences, docs/oracle.md), each as a small
kernel: sgvm must give what the text says (expectations computed here with NumPy), and
the oracle — where installed — still deviates as recorded (if a runtime update fixes
one, this fails and the entry should go)."""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
import pytest

import sgvm
from sgvm.compiler import driver, toolchain
from sgvm.fuzz.backends import make_backend
from sgvm.fuzz.campaign import Stats, run_batch
from sgvm.fuzz.generator import generate
from sgvm.fuzz.known import CLASSIFIED
from sgvm.oracle import OracleError, shared
from sgvm.oracle.differences import DIFFERENCES, ORACLE_AVOID
from sgvm.runtime.args import BufferArg
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import read

from .conftest import UNAVAILABLE

FILL = 0xA5A5A5A5
# shuffle-16-bit-abort was found on hosts with AVX-512; on a host without it (AMD EPYC,
# Zen 3, AVX2) the same runtime (intel-opencl-rt 2026.2.0) builds and runs its kernels right
AVX512 = Path("/proc/cpuinfo").is_file() and " avx512f" in Path("/proc/cpuinfo").read_text()
ABORTS_HERE = {"shuffle-16-bit-abort": AVX512, "shuffle:16-bit:sub-group-16": AVX512}
HEAD = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"

CASES = {
    "printf-value": ("""
kernel void k(global const uint *in, global uint *out) {
  uint g = get_global_id(0);
  out[g] = g == 0u ? (uint)printf("printf-value %d\\n", 7)
         : g == 1u ? (uint)printf("%y invalid\\n") : in[g];
}""", 8, 8),
    "address-space-casts": ("""
kernel void k(global const uint *in, global uint *out) {
  local uint s[64];
  uint l = get_local_id(0);
  s[l] = in[l];
  uint *g = (l & 1u) ? (uint *)&s[l] : (uint *)&out[get_global_id(0)];
  out[get_global_id(0)] = (to_local(g) != 0) + 10u * (to_global(g) != 0);
}""", 8, 8),
    "partial-block-write": ("""
__attribute__((intel_reqd_sub_group_size(8)))
kernel void k(global const uint *in, global uint *out) {
  uint sg = get_group_id(0) * get_num_sub_groups() + get_sub_group_id();
  intel_sub_group_block_write(out + sg * 16u, in[get_global_id(0)]);
}""", 8, 12),
    "mad-sat-64": ("""
kernel void k(global const uint *in, global uint *out) {
  long r = mad_sat((long)2147483648L, (long)-4294967296L, (long)-1L - (long)(in[0] & 0u));
  out[2 * get_global_id(0)] = (uint)r;
  out[2 * get_global_id(0) + 1] = (uint)((ulong)r >> 32);
}""", 8, 8),
    "partial-block-read": ("""
__attribute__((intel_reqd_sub_group_size(8)))
kernel void k(global const uint *in, global uint *out) {
  uint v = in[get_group_id(0) + 7u];
  uchar2 a = intel_sub_group_block_read_uc2((const global uchar *)(in + (v & 7u) * 16u));
  uchar2 b = intel_sub_group_block_read_uc2((const global uchar *)(in + 64u));
  out[get_global_id(0)] = a.s0 | (a.s1 << 8) | (b.s0 << 16) | ((uint)b.s1 << 24);
}""", 8, 12),
    "sub-group-barrier-iterations": ("""
__attribute__((intel_reqd_sub_group_size(16)))
kernel void k(global const uint *in, global uint *out) {
  uint n = get_sub_group_id() == 0u ? 3u : 2u;
  for (uint i = 0u; i < n; i++)
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = in[get_global_id(0)];
}""", 16, 32),
    "work-group-broadcast-sub-group-32": ("""
__attribute__((intel_reqd_sub_group_size(32)))
kernel void k(global const uint *in, global uint *out) {
  out[get_global_id(0)] = work_group_broadcast(in[get_global_id(0)], 7u);
}""", 32, 64),
    "work-group-broadcast-half": ("""
__attribute__((intel_reqd_sub_group_size(16)))
kernel void k(global const uint *in, global uint *out) {
  half h = work_group_broadcast((half)(float)(in[get_global_id(0)] & 15u), 3u);
  out[get_global_id(0)] = (uint)as_ushort(h);
}""", 16, 32),
    "elect-abort": ("""
__attribute__((intel_reqd_sub_group_size(16)))
kernel void k(global const uint *in, global uint *out) {
  out[get_global_id(0)] = (sub_group_elect() != 0) ? 1u : 0u;
}""", 16, 35),
    "shuffle-16-bit-abort": ("""
__attribute__((intel_reqd_sub_group_size(16)))
kernel void k(global const uint *in, global uint *out) {
  uint x = in[get_global_id(0)];
  short s = intel_sub_group_shuffle((short)x, x % get_sub_group_size());
  ((global ulong *)out)[get_global_id(0)] = (ulong)(ushort)s * 0x9E3779B97F4A7C15UL;
}""", 16, 32),
    "vector-broadcast-crash": ("""
__attribute__((intel_reqd_sub_group_size(16)))
kernel void k(global const uint *in, global uint *out) {
  uint x = in[get_global_id(0)];
  uint4 a = sub_group_broadcast((uint4)(x, x + 1u, x + 2u, x + 3u), 5u);
  if ((a.s1 & 1u) != 0u) {
    uint4 b = sub_group_broadcast((uint4)(x, x ^ 5u, x * 3u, x + 7u), a.s0 % get_sub_group_size());
    out[get_global_id(0)] = b.s0 ^ b.s2 ^ b.s3;
  }
}""", 16, 32),
    "logical-xor-scan": ("""
__attribute__((intel_reqd_sub_group_size(8)))
kernel void k(global const uint *in, global uint *out) {
  int p = (int)(in[get_global_id(0)] & 1u);
  out[get_global_id(0)] = sub_group_non_uniform_scan_inclusive_logical_xor(p) != 0;
}""", 8, 16),
    "spirv-miscompile": ("""
kernel void k(global const uint *in, global uint *out) {
  const uint o = (uint)get_global_id(0) * 4u;
  uint acc = 0u;
  uint v = in[get_global_id(0)];
  uint n = in[7u] & 3u;
  if ((v & 1u) == 0u) {
    for (uint i = 0u; i <= n; i++)
      out[o + 1u] = i;
    out[o + 2u] = v;
  } else {
    for (uint i = 0u; i < (v & 3u) + 2u; i++)
      for (uint j = 0u; j < (v & 3u) + 2u; j++)
        acc = acc * 3u + v;
    if ((v & 3u) < 2u)
      out[o + 3u] = v;
  }
  out[o] = acc;
}""", 16, 16),
    "us16-block-io": ("""
__attribute__((intel_reqd_sub_group_size(8)))
kernel void k(global const uint *in, global uint *out) {
  ushort16 v = intel_sub_group_block_read_us16((const global ushort *)in);
  out[get_global_id(0)] = v.s0 | ((uint)v.sf << 16);
}""", 8, 8),
}

GROUPS = 2


def _inputs(local: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return (rng.integers(0, 2**32, 256, dtype=np.uint32),
            np.full(GROUPS * 64, FILL, np.uint32))


def expected(name: str, inp: np.ndarray, out: np.ndarray, local: int, size: int) -> np.ndarray:
    """What the specifications say each kernel writes, computed independently of sgvm."""
    out = out.copy()
    n = local * GROUPS
    if name == "address-space-casts":
        # "Returns a pointer ... if to_local can cast ptr to the local address space.
        # Otherwise it returns NULL": odd work-items point into local memory.
        out[:n] = np.where(np.arange(n) % local % 2 == 1, 1, 10)
    elif name == "printf-value":
        # "printf returns 0 if it was executed successfully and -1 otherwise" (%y is no
        # conversion of OpenCL C): 0 for work-item 0, -1 for work-item 1, the rest copy in
        out[:n] = inp[:n]
        out[0], out[1] = 0, 0xFFFFFFFF
    elif name == "mad-sat-64":
        # 2^31 · -2^32 - 1 = -2^63 - 1 saturates to LONG_MIN = -2^63
        out[:2 * n] = np.tile(np.array([0, 0x80000000], np.uint32), n)
    elif name == "partial-block-write":
        # "for each work item in the subgroup": of every 12 work-items, 8 form the first
        # sub-group and 4 the second; lane l of the k-th sub-group overall writes
        # out[16 k + l] = in[its global id]; the other words keep their contents.
        per_group = -(-local // size)
        for gid in range(n):
            g, lid = divmod(gid, local)
            sg, lane = divmod(lid, size)
            out[16 * (g * per_group + sg) + lane] = inp[gid]
    elif name == "partial-block-read":
        # lane l reads bytes p[l] and p[l + 8] (max_sub_group_size 8) of each block
        b = inp.view(np.uint8)
        for gid in range(n):
            g, lid = divmod(gid, local)
            lane = lid % size
            a = int(inp[g + 7] & 7) * 64
            out[gid] = (int(b[a + lane]) | int(b[a + lane + 8]) << 8
                        | int(b[256 + lane]) << 16 | int(b[256 + lane + 8]) << 24)
    elif name == "sub-group-barrier-iterations":
        out[:n] = inp[:n]
    elif name == "work-group-broadcast-sub-group-32":
        for g in range(GROUPS):
            out[g * local:(g + 1) * local] = inp[g * local + 7]
    elif name == "work-group-broadcast-half":
        for g in range(GROUPS):
            h = np.float16(inp[g * local + 3] & 15)
            out[g * local:(g + 1) * local] = h.view(np.uint16)
    elif name == "elect-abort":
        # the first work-item of each sub-group (16, 16 and 3 work-items per work-group)
        out[:n] = (np.arange(n) % local % size == 0).astype(np.uint32)
    elif name == "shuffle-16-bit-abort":
        # lane l of each sub-group of 16 gets the low 16 bits of x of lane x_l % 16,
        # zero-extended and multiplied modulo 2^64; each work-item writes one ulong
        x = inp[:n].astype(np.uint64)
        src = np.arange(n) - np.arange(n) % size + (inp[:n] % size).astype(np.int64)
        s = x[src] & 0xFFFF
        out[:2 * n] = (s * np.uint64(0x9E3779B97F4A7C15)).view(np.uint32)
    elif name == "vector-broadcast-crash":
        # a = (x, x + 1, ...) of lane 5; the sub-groups whose a.s1 is odd take the branch
        # and read the vector of lane a.s0 % 16
        x = inp[:n].astype(np.uint64)
        for base in range(0, n, size):
            x5 = int(x[base + 5])
            if (x5 + 1) & 1:
                y = int(x[base + x5 % size])
                out[base:base + size] = y ^ (3 * y & 0xFFFFFFFF) ^ ((y + 7) & 0xFFFFFFFF)
    elif name == "logical-xor-scan":
        # the xor of the predicates of work-items 0..l of each sub-group
        p = (inp[:n] & 1).reshape(-1, size)
        out[:n] = (np.cumsum(p, axis=1) % 2).reshape(-1)
    elif name == "spirv-miscompile":
        for gid in range(n):
            v, acc = int(inp[gid]), 0
            if v & 1 == 0:
                out[4 * gid + 1] = int(inp[7]) & 3  # the last iteration's i
                out[4 * gid + 2] = v
            else:
                for _ in range(((v & 3) + 2) ** 2):
                    acc = (acc * 3 + v) & 0xFFFFFFFF
                if v & 3 < 2:
                    out[4 * gid + 3] = v
            out[4 * gid] = acc
    elif name == "us16-block-io":
        # element i of lane l is p[l + i * 8] (ushort units)
        us = inp.view(np.uint16)
        for g in range(GROUPS):
            for lane in range(size):
                out[g * local + lane] = int(us[lane]) | (int(us[lane + 15 * size]) << 16)
    return out


def _buffers(inp, out):
    return [BufferArg(Allocation(a.view(np.uint8).copy(), "global", "")) for a in (inp, out)]


@contextmanager
def loop_strength_reduction():
    """Build as sgvm did before it turned LLVM's loop strength reduction off
    (sgvm.compiler.toolchain.CODEGEN_FLAGS): the SPIR-V of the spirv-miscompile case and of
    seed 1568 has the merged-store form only with it on. Other cache key, so no entry mixes."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(toolchain, "CODEGEN_FLAGS", ())
        mp.setattr(driver, "CODEGEN_FLAGS", ())
        yield


@pytest.fixture(scope="module")
def spirv():
    built = {}
    for name, (src, _, _) in CASES.items():
        with loop_strength_reduction() if name == "spirv-miscompile" else nullcontext():
            built[name] = sgvm.compile(HEAD + src, "-cl-std=CL2.0")
    return built


def test_every_deviation_has_a_case_and_is_avoided_or_classified():
    deviations = {n for n, d in DIFFERENCES.items() if d.kind == "oracle-deviation"}
    assert deviations == set(CASES)
    excluded = {n for n, d in DIFFERENCES.items() if d.excludes}
    assert set(ORACLE_AVOID.values()) | set(CLASSIFIED) | excluded >= deviations


@pytest.mark.parametrize("name", sorted(CASES))
def test_sgvm_follows_the_text(name, spirv):
    _, size, local = CASES[name]
    inp, out = _inputs(local)
    args = _buffers(inp, out)
    launch(read(spirv[name]), "k", args, NDRange((local * GROUPS,), (local,)))
    got = args[1].allocation.data.view(np.uint32)
    assert np.array_equal(got, expected(name, inp, out, local, size))


@pytest.mark.skipif(UNAVAILABLE is not None, reason=f"oracle unavailable: {UNAVAILABLE}")
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_oracle_still_deviates(name, spirv):
    _, size, local = CASES[name]
    inp, out = _inputs(local)
    want = expected(name, inp, out, local, size)
    try:
        got = shared().run(spirv[name], "k", _buffers(inp, out), (local * GROUPS,), (local,))
    except OracleError as exc:
        assert name in ("work-group-broadcast-half", "us16-block-io", "elect-abort",
                        "shuffle-16-bit-abort", "vector-broadcast-crash"), exc
        assert ABORTS_HERE.get(name, True), f"{name}: the oracle failed on this host too: {exc}"
        return
    if not ABORTS_HERE.get(name, True):  # runs right on this host (ABORTS_HERE)
        assert np.array_equal(got[1].view(np.uint32), want)
        return
    assert not np.array_equal(got[1].view(np.uint32), want)


@pytest.mark.skipif(UNAVAILABLE is not None, reason=f"oracle unavailable: {UNAVAILABLE}")
def test_the_oracle_gets_the_spirv_miscompile_case_right_from_source():
    """The premise of classifying by the oracle's own OpenCL C build (sgvm.fuzz.known)."""
    src, size, local = CASES["spirv-miscompile"]
    inp, out = _inputs(local)
    key = shared().build(src, "-cl-std=CL2.0")
    status, got = shared().request(("run", key, "k", [("buffer", inp.view(np.uint8).copy()),
                                                      ("buffer", out.view(np.uint8).copy())],
                                    (local * GROUPS,), (local,), None))
    assert status == "ok", got
    assert np.array_equal(got[1].view(np.uint32), expected("spirv-miscompile", inp, out, local, size))


@pytest.mark.skipif(UNAVAILABLE is not None, reason=f"oracle unavailable: {UNAVAILABLE}")
def test_the_fuzzer_reports_seed_1568_as_the_spirv_miscompile():
    """Seed 1568 with sub-groups of 8, generated without the khr built-ins (the kernel the
    case was reduced from)."""
    stats = Stats()
    kernel = generate(1568, 8, 20, frozenset(ORACLE_AVOID) | {"khr"})
    with loop_strength_reduction():
        run_batch([kernel], [make_backend("cpu", check=True), make_backend("oracle")], stats)
    assert stats.checker_findings == []
    assert [d.known for d in stats.disagreements] == ["spirv-miscompile"]


@pytest.mark.skipif(UNAVAILABLE is not None, reason=f"oracle unavailable: {UNAVAILABLE}")
@pytest.mark.parametrize("seed, size, omit, avoid", [
    (3852, 16, frozenset(), "shuffle:16-bit:sub-group-16"),
    (2969, 16, frozenset({"khr"}), "shuffle:16-bit:sub-group-16"),
    (3854, 32, frozenset(), "broadcast:vector:sub-group-uniform"),
])
def test_the_kernels_that_crashed_the_oracle_run_where_the_construct_is_avoided(
        seed, size, omit, avoid):
    """Kernels of the fuzzing campaigns (docs/oracle.md) that crashed the oracle: generated
    without ``avoid`` they still do; with it they run on both, the oracle's buffers
    matching sgvm's up to the known differences."""
    backends = [make_backend("cpu", check=True), make_backend("oracle")]
    before, after = Stats(), Stats()
    run_batch([generate(seed, size, 20, (frozenset(ORACLE_AVOID) - {avoid}) | omit)],
              backends, before)
    run_batch([generate(seed, size, 20, frozenset(ORACLE_AVOID) | omit)], backends, after)
    assert before.checker_findings == after.checker_findings == []
    if ABORTS_HERE.get(avoid, True):
        assert [d.detail.split(":")[0] for d in before.disagreements] == ["only one ran"]
    else:  # the construct runs on this host's oracle (ABORTS_HERE)
        assert all(d.known for d in before.disagreements), before.disagreements
    assert all(d.known for d in after.disagreements), after.disagreements
