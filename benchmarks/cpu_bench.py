"""sgvm's CPU backends beside Intel's CPU runtime and PoCL: one table (docs/native.md).

Rows: the kernels below. Columns: sgvm native (checks on, the default), sgvm native with
``SGVM_BOUNDS=0`` (unchecked), sgvm NumPy, Intel's CPU runtime for OpenCL
and PoCL (each through PyOpenCL in a child process, when installed), PoCL running the
sub-group rows written without sub-groups ("PoCL plain": the same outputs through local
memory or memory reads), and the ratios native/Intel, native/PoCL and native/PoCL plain. Every output is checked against NumPy; a wrong or failed
run shows as ``wrong``/``fail``, a kernel a peer cannot build as ``-``. Each cell is the
best of ``--repeat`` warm launches, the backends alternating launch by launch.
Below the table: the native compile time of one module, cold (empty cache) and cached
(on disk), and the launch rate of a 1024-item kernel.

Peers (docs/native.md, "Benchmarks"):

* Intel: ``pip install intel-opencl-rt intel-cmplr-lib-rt pyopencl``; this script writes
  a vendor file naming ``<venv>/lib/libintelocl.so`` and points ``OCL_ICD_VENDORS`` (and
  ``LD_LIBRARY_PATH``) at it.
* PoCL: ``apt-get install pocl-opencl-icd`` (``/etc/OpenCL/vendors/pocl.icd``).

Run: ``python benchmarks/cpu_bench.py [--repeat 20] [--only NAME] [--scale 1.0] [--columns numpy,...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

# NumPy's BLAS (the GEMM row's reference product) keeps its threads spinning after a call,
# 3.5-4% of the samples of a profiled run, on the cores the backends being timed share
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
import cases  # noqa: E402

import sgvm  # noqa: E402
from sgvm.runtime import residency  # noqa: E402
from sgvm.runtime.device import CPU_DEVICE, NATIVE_DEVICE  # noqa: E402
from sgvm.runtime.launch import launch  # noqa: E402
from sgvm.runtime.ndrange import NDRange  # noqa: E402
from sgvm.spirv import read  # noqa: E402

SG16 = "__attribute__((intel_reqd_sub_group_size(16)))\n"
SG_SCAN = SG16 + r"""
kernel void sgscan(global const uint* in, global uint* out) {
  size_t i = get_global_id(0);
  uint x = in[i];
  uint s = sub_group_scan_inclusive_add(x);
  out[i] = s + sub_group_broadcast(s, 15) + intel_sub_group_shuffle_xor(x, 1u);
}
"""
# The sub-group rows without sub-groups (the same outputs through local memory), for PoCL.
SG_PLAIN = r"""
kernel void subgroup(global const uint* in, global uint* out) {
  local uint t[256];
  size_t i = get_global_id(0), l = get_local_id(0), g0 = l & ~(size_t)15;
  t[l] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint s = 0;
  for (int k = 0; k < 16; k++) s += t[g0 + k];
  out[i] = s + t[l];
}
"""
SG_SCAN_PLAIN = r"""
kernel void sgscan(global const uint* in, global uint* out) {
  local uint t[256];
  size_t i = get_global_id(0), l = get_local_id(0), g0 = l & ~(size_t)15;
  t[l] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint s = 0, total = 0;
  for (size_t k = g0; k < g0 + 16; k++) { uint v = t[k]; total += v; if (k <= l) s += v; }
  out[i] = s + total + t[l ^ 1];
}
"""
WG_REDUCE = r"""
kernel void wgreduce(global const uint* in, global uint* out) {
  size_t i = get_global_id(0);
  uint x = in[i];
  out[i] = work_group_reduce_add(x) + work_group_scan_exclusive_add(x);
}
"""
STENCIL = r"""
kernel void stencil(global const float* a, global float* b, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1), i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { b[i] = a[i]; return; }
  b[i] = 0.2f * (a[i] + a[i - 1] + a[i + 1] + a[i - w] + a[i + w]);
}
"""
NBODY = r"""
kernel void nbody(global const float4* p, global float4* acc, int n) {
  int i = get_global_id(0);
  float4 pi = p[i];
  float3 a = (float3)(0.0f);
  for (int j = 0; j < n; j++) {
    float4 pj = p[j];
    float3 d = pj.xyz - pi.xyz;
    float r2 = dot(d, d) + 1e-3f;
    float inv = rsqrt(r2);
    a += d * (pj.w * inv * inv * inv);
  }
  acc[i] = (float4)(a, 0.0f);
}
"""


@dataclass
class Row:
    """One benchmark: a kernel launch, its inputs, and the NumPy check of its outputs."""

    name: str
    source: str
    kernel: str
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    args: list[Any]
    check: Callable[[list[np.ndarray]], bool]  # the buffers after a launch → correct?
    options: str = "-cl-std=CL2.0"
    plain: str = ""  # the same computation without sub-groups (the "PoCL plain" column)
    results: dict[str, float | str] = field(default_factory=dict)


def _close(a: np.ndarray, b: np.ndarray, tol: float = 1e-4) -> bool:
    return bool(np.allclose(a, b, rtol=tol, atol=tol))


def rows(scale: float) -> list[Row]:
    rng = np.random.default_rng(0)

    def n_of(n: int) -> int:
        return max(4096, int(n * scale) // 4096 * 4096)

    out = []
    n = n_of(1 << 22)
    a, b = rng.random(n, np.float32), rng.random(n, np.float32)
    out.append(Row(f"vector add {n >> 20}M", cases.VADD, "vadd", (n,), (256,),
                   [a, b, np.zeros(n, np.float32)], lambda r, a=a, b=b: _close(r[2], a + b)))
    x = rng.random(n, np.float32)

    def loop_ref(v: np.ndarray) -> np.ndarray:
        v = v.copy()
        for _ in range(100):
            v = (v * np.float32(0.999) + np.float32(0.5)).astype(np.float32)
        return v
    out.append(Row(f"100-iteration loop {n >> 20}M", cases.LOOP100, "loop100", (n,), (256,),
                   [x], lambda r, x=x: _close(r[0], loop_ref(x), 1e-3)))
    n16 = n_of(1 << 24)
    v = rng.random(n16, np.float32)
    out.append(Row(f"local-memory reduction {n16 >> 20}M", cases.REDUCE, "reduce", (n16,), (256,),
                   [v, np.zeros(n16 // 256, np.float32), ("local", 1024)],
                   lambda r, v=v: _close(r[1], v.reshape(-1, 256).sum(axis=1), 1e-3)))
    m = 512 if scale >= 1 else 256
    A, B = rng.random((m, m), np.float32), rng.random((m, m), np.float32)
    out.append(Row(f"tiled matmul {m}³", cases.MATMUL, "matmul", (m, m), (16, 16),
                   [A, B, np.zeros((m, m), np.float32), np.int32(m)],
                   lambda r, A=A, B=B: _close(r[2], A.astype(np.float64) @ B, 1e-3)))
    u = rng.integers(0, 1000, n16, dtype=np.uint32)

    def sg_ref(u: np.ndarray) -> np.ndarray:
        g = u.reshape(-1, 16)
        down = np.concatenate([g[:, 1:], g[:, :1]], axis=1)
        return (down.sum(axis=1, keepdims=True) + g).reshape(-1).astype(np.uint32)
    out.append(Row(f"sub-group reduce + shuffle_down + block read {n16 >> 20}M",
                   SG16 + cases.SUBGROUP, "subgroup", (n16,), (256,), [u, np.zeros_like(u)],
                   lambda r, u=u: bool(np.array_equal(r[1], sg_ref(u))), plain=SG_PLAIN))

    def scan_ref(u: np.ndarray) -> np.ndarray:
        g = u.reshape(-1, 16)
        s = np.cumsum(g, axis=1, dtype=np.uint32)
        xor = g[:, np.arange(16) ^ 1]
        return (s + s[:, 15:16] + xor).reshape(-1).astype(np.uint32)
    out.append(Row(f"sub-group scan + broadcast + shuffle_xor {n16 >> 20}M", SG_SCAN, "sgscan",
                   (n16,), (256,), [u, np.zeros_like(u)],
                   lambda r, u=u: bool(np.array_equal(r[1], scan_ref(u))), plain=SG_SCAN_PLAIN))

    def wg_ref(u: np.ndarray) -> np.ndarray:
        g = u.reshape(-1, 256)
        ex = np.cumsum(g, axis=1, dtype=np.uint32) - g
        return (g.sum(axis=1, keepdims=True, dtype=np.uint32) + ex).reshape(-1).astype(np.uint32)
    out.append(Row(f"work-group reduce + scan {n16 >> 20}M", WG_REDUCE, "wgreduce", (n16,), (256,),
                   [u, np.zeros_like(u)], lambda r, u=u: bool(np.array_equal(r[1], wg_ref(u)))))
    w = 3072 if scale >= 1 else 1024
    img = rng.random((w, w), np.float32)

    def st_ref(a: np.ndarray) -> np.ndarray:
        b = a.copy()
        b[1:-1, 1:-1] = np.float32(0.2) * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]
                                           + a[:-2, 1:-1] + a[2:, 1:-1])
        return b
    out.append(Row(f"5-point stencil {w}²", STENCIL, "stencil", (w, w), (16, 16),
                   [img, np.zeros_like(img), np.int32(w), np.int32(w)],
                   lambda r, img=img: _close(r[1], st_ref(img))))
    nb = 4096
    p = rng.random((nb, 4), np.float32)

    def nb_ref(p: np.ndarray) -> np.ndarray:
        p64 = p.astype(np.float64)
        d = p64[None, :, :3] - p64[:, None, :3]
        r2 = (d * d).sum(axis=2) + 1e-3
        return (d * (p64[None, :, 3] / r2 ** 1.5)[:, :, None]).sum(axis=1)
    out.append(Row(f"n-body step {nb} bodies", NBODY, "nbody", (nb,), (64,),
                   [p, np.zeros_like(p), np.int32(nb)],
                   lambda r, p=p: _close(r[1][:, :3], nb_ref(p), 1e-3)))
    g = 768 if scale >= 1 else 256
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    from gemm_subgroup import SOURCE as GEMM
    GA, GB = rng.standard_normal((g, g)).astype(np.float32), rng.standard_normal((g, g)).astype(np.float32)
    out.append(Row(f"sub-group shuffle GEMM {g}³", GEMM, "gemm", (g, g // 4), (16, 1),
                   [GA, GB, np.zeros((g, g), np.float32), np.int32(g), np.int32(g), np.int32(g)],
                   lambda r, GA=GA, GB=GB: _close(r[2], GA.astype(np.float64) @ GB, 1e-3),
                   options="-cl-std=CL2.0 -DSG=16", plain=_without_subgroups(GEMM)))
    return out


def _without_subgroups(gemm: str) -> str:
    """The shuffle GEMM reading each broadcast element of A from memory instead."""
    out = gemm.replace("__attribute__((intel_reqd_sub_group_size(SG)))", "")
    out = out.replace("get_sub_group_local_id()", "(get_local_id(0) % SG)")
    out = out.replace("intel_sub_group_shuffle(a[r], j)", "A[(row0 + r) * K + k0 + j]")
    assert "sub_group" not in out
    return out


class Sgvm:
    """Launches of one row on an sgvm device, in this process (``unchecked``: with
    ``SGVM_BOUNDS=0``)."""

    def __init__(self, row: Row, device: Any, unchecked: bool = False):
        self.row, self.device, self.unchecked = row, device, unchecked
        self.module = read(sgvm.compile(row.source, row.options))
        self.args = cases.sgvm_args(row.args)
        # made once, as sgvm.cl keeps one NDRange per enqueue sizes (cl.Kernel.ndrange)
        self.ndrange = NDRange(row.global_size, row.local_size or (1,) * len(row.global_size))

    def launch(self) -> float:
        r = self.row
        for a in self.args:  # fresh inputs (kernels that update in place)
            if hasattr(a, "allocation"):
                residency.host_access(a.allocation)
        self._reset()
        saved = os.environ.get("SGVM_BOUNDS")
        if self.unchecked:
            os.environ["SGVM_BOUNDS"] = "0"
        try:
            t0 = time.perf_counter()
            launch(self.module, r.kernel, self.args, self.ndrange, device=self.device)
            return time.perf_counter() - t0
        finally:
            if self.unchecked and saved is None:
                del os.environ["SGVM_BOUNDS"]
            elif self.unchecked:
                os.environ["SGVM_BOUNDS"] = saved

    def _reset(self) -> None:
        for a, src in zip(self.args, self.row.args, strict=True):
            if isinstance(src, np.ndarray):
                a.allocation.data[:] = np.ascontiguousarray(src).view(np.uint8).reshape(-1)

    def outputs(self) -> list[np.ndarray]:
        return [a.allocation.data.view(src.dtype).reshape(src.shape)
                if isinstance(src, np.ndarray) else None
                for a, src in zip(self.args, self.row.args, strict=True)]


PEER = r'''
import json, sys, time
import numpy as np
import pyopencl as cl
want = sys.argv[1]
case = json.loads(open(sys.argv[2] + "/case.json").read())
arrays = np.load(sys.argv[2] + "/args.npz")
plat = [p for p in cl.get_platforms() if want in p.name]
if not plat:
    print("none", flush=True); sys.exit(0)
ctx = cl.Context([plat[0].get_devices()[0]])
q = cl.CommandQueue(ctx)
try:
    prg = cl.Program(ctx, case["source"]).build(options=case["options"])
except Exception as e:
    print("nobuild", flush=True); sys.exit(0)
k = getattr(prg, case["kernel"])
args, bufs = [], []
for kind, v in case["args"]:
    if kind == "local":
        args.append(cl.LocalMemory(v))
    elif kind == "buffer":
        b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, arrays[v].nbytes); bufs.append((b, v)); args.append(b)
    else:
        args.append(arrays[v][()])
local = tuple(case["local"]) if case["local"] else None
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() == "run":
        for b, v in bufs:
            cl.enqueue_copy(q, b, np.ascontiguousarray(arrays[v]))
        q.finish()
        t0 = time.perf_counter()
        k(q, tuple(case["global"]), local, *args)
        q.finish()
        print(time.perf_counter() - t0, flush=True)
    elif line.strip() == "dump":
        out = {}
        for b, v in bufs:
            h = np.empty_like(arrays[v]); cl.enqueue_copy(q, h, b); out[v] = h
        np.savez(sys.argv[2] + "/out.npz", **out)
        print("dumped", flush=True)
'''


class Peer:
    """Launches of one row on another OpenCL implementation, in a child process."""

    def __init__(self, row: Row, which: str, env: dict[str, str], tmp: Path):
        self.row = row
        self.dir = tmp
        self.dir.mkdir(parents=True)
        arrays, spec = {}, []
        for i, a in enumerate(row.args):
            if isinstance(a, tuple):
                spec.append(["local", int(a[1])])
            else:
                arrays[f"a{i}"] = np.asarray(a)
                spec.append(["buffer" if isinstance(a, np.ndarray) else "scalar", f"a{i}"])
        np.savez(self.dir / "args.npz", **arrays)
        src = row.source if "-DSG=" not in row.options else "#define SG 16\n" + row.source
        (self.dir / "case.json").write_text(json.dumps({
            "source": src, "kernel": row.kernel, "global": list(row.global_size),
            "local": list(row.local_size) if row.local_size else None, "args": spec,
            "options": row.options.replace("-DSG=16", "").strip()}))
        self.proc = subprocess.Popen([sys.executable, "-c", PEER, which, str(self.dir)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env, stderr=subprocess.DEVNULL)
        self.state = self._read()

    def _read(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip() or "fail"

    def launch(self) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        return float(self._read())

    def outputs(self) -> list[np.ndarray | None]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("dump\n")
        self.proc.stdin.flush()
        self._read()
        data = np.load(self.dir / "out.npz")
        return [data[f"a{i}"] if f"a{i}" in data else None for i in range(len(self.row.args))]

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


def peer_environments(tmp: Path) -> dict[str, dict[str, str]]:
    """ICD loader settings reaching Intel's CPU runtime and PoCL (module docstring)."""
    out = {}
    venv_lib = Path(sys.prefix) / "lib"
    intel = venv_lib / "libintelocl.so"
    if intel.exists():
        d = tmp / "intel-icd"
        d.mkdir()
        (d / "intel.icd").write_text(str(intel) + "\n")
        env = dict(os.environ, OCL_ICD_VENDORS=str(d))
        env["LD_LIBRARY_PATH"] = f"{venv_lib}:{env.get('LD_LIBRARY_PATH', '')}"
        out["Intel"] = env
    pocl = Path("/etc/OpenCL/vendors/pocl.icd")
    if pocl.exists():
        d = tmp / "pocl-icd"
        d.mkdir()
        (d / "pocl.icd").write_text(pocl.read_text())
        out["Portable Computing Language"] = dict(os.environ, OCL_ICD_VENDORS=str(d))
    return out


COLUMNS = ("native", "unchecked", "numpy", "Intel", "PoCL", "PoCL plain")


def run_row(row: Row, repeat: int, peers: dict[str, dict[str, str]], tmp: Path,
            columns: set[str]) -> None:
    makers = {"native": lambda: Sgvm(row, NATIVE_DEVICE),
              "unchecked": lambda: Sgvm(row, NATIVE_DEVICE, unchecked=True),
              "numpy": lambda: Sgvm(row, CPU_DEVICE)}
    runners: dict[str, Any] = {col: make() for col, make in makers.items() if col in columns}
    rdir = tmp / row.kernel
    rdir.mkdir(exist_ok=True)
    plain = replace(row, source=row.plain, results={})
    for col, which, r in (("Intel", "Intel", row), ("PoCL", "Portable Computing Language", row),
                          ("PoCL plain", "Portable Computing Language", plain)):
        if which in peers and r.source and col in columns:
            p = Peer(r, which, peers[which], rdir / col.replace(" ", "_"))
            if p.state == "ready":
                runners[col] = p
            else:
                row.results[col] = "-"
                p.close()
    best = dict.fromkeys(runners, float("inf"))
    failed: set[str] = set()
    for k in range(repeat + 1):  # launch 0 warms up (compiles, caches)
        for col, r in runners.items():
            if col in failed:
                continue
            try:
                t = r.launch()
            except Exception as e:  # noqa: BLE001 - a failing backend blanks its cell
                row.results[col] = f"fail ({type(e).__name__})"
                failed.add(col)
                continue
            if k:
                best[col] = min(best[col], t)
    for col, r in runners.items():
        if col not in failed:
            ok = row.check(r.outputs())
            row.results[col] = best[col] if ok else "wrong"
        if isinstance(r, Peer):
            r.close()


def _cell(v: float | str | None) -> str:
    if v is None:
        return ""
    return f"{v * 1e3:.2f}" if isinstance(v, float) else v


def _ratio(a: Any, b: Any) -> str:
    return f"{a / b:.2f}" if isinstance(a, float) and isinstance(b, float) else ""


def compile_times() -> tuple[float, float]:
    """Seconds to build one module natively: cold (empty cache) and cached (on disk)."""
    from sgvm.engine.native import backend as nb
    from sgvm.engine.native import compile as nc

    module = read(sgvm.compile(cases.MATMUL + cases.REDUCE, "-cl-std=CL2.0"))
    with tempfile.TemporaryDirectory() as d:
        old = os.environ.get("SGVM_CACHE_DIR")
        os.environ["SGVM_CACHE_DIR"] = d
        try:
            t0 = time.perf_counter()
            nb.compiled(module, 16, True)
            cold = time.perf_counter() - t0
            nb._SOURCES.pop(module, None)
            nc._LOADED.clear()
            t0 = time.perf_counter()
            nb.compiled(module, 16, True)
            cached = time.perf_counter() - t0
        finally:
            if old is None:
                os.environ.pop("SGVM_CACHE_DIR")
            else:
                os.environ["SGVM_CACHE_DIR"] = old
    return cold, cached


def launch_rate(device: Any, seconds: float = 1.0) -> float:
    """Launches per second of a 1024-item vector add."""
    module = read(sgvm.compile(cases.VADD, "-cl-std=CL2.0"))
    args = cases.sgvm_args([np.ones(1024, np.float32)] * 3)
    nd = NDRange((1024,), (256,))
    launch(module, "vadd", args, nd, device=device)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        launch(module, "vadd", args, nd, device=device)
        n += 1
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # the vector add runs at the memory's bandwidth: its best of 20 moved 2.08-2.61 ms between
    # runs, its best of 100 2.04-2.25 (docs/native.md, "Fifteenth round")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--only", default="", help="run the rows whose name contains this")
    ap.add_argument("--scale", type=float, default=1.0, help="problem sizes × this (smaller: <1)")
    ap.add_argument("--columns", default="native,unchecked,numpy,Intel,PoCL,PoCL plain",
                    help="the columns to run, comma-separated (e.g. numpy)")
    args = ap.parse_args()
    columns = set(args.columns.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        peers = peer_environments(Path(tmp)) if columns & {"Intel", "PoCL", "PoCL plain"} else {}
        table = [r for r in rows(args.scale) if args.only in r.name]
        for row in table:
            run_row(row, args.repeat, peers, Path(tmp), columns)
            print(f"  done: {row.name}", file=sys.stderr)
    head = ["kernel", "native ms", "unchecked ms", "NumPy ms", "Intel ms", "PoCL ms",
            "PoCL plain ms", "NumPy/native", "native/Intel", "native/PoCL", "native/PoCL plain"]
    lines = [head]
    for r in table:
        v = r.results
        lines.append([r.name, *(_cell(v.get(c)) for c in COLUMNS), _ratio(v.get("numpy"), v.get("native")),
                      _ratio(v.get("native"), v.get("Intel")), _ratio(v.get("native"), v.get("PoCL")),
                      _ratio(v.get("native"), v.get("PoCL plain"))])
    widths = [max(len(x[i]) for x in lines) for i in range(len(head))]
    for line in lines:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |")
    if "numpy" in columns:
        print(f"\nlaunch rate, 1024-item vector add: NumPy {launch_rate(CPU_DEVICE):.0f}/s")
    if "native" not in columns:
        return
    cold, cached = compile_times()
    print(f"native compile of one module (matmul + reduce): cold {cold:.2f} s, cached {cached * 1e3:.1f} ms")
    print(f"launch rate, 1024-item vector add: native {launch_rate(NATIVE_DEVICE):.0f}/s")
    from sgvm.engine.native.backend import threads
    from sgvm.engine.native.compile import target
    print(f"native: {threads()} threads, target {target()}; best of {args.repeat} warm launches")


if __name__ == "__main__":
    main()
