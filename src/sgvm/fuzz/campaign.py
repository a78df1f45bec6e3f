"""A fuzzing campaign: generate kernels in batches, run each batch as one program on every
backend, compare the buffers, and collect disagreements (docs/fuzz.md)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import compile as compile_source
from .backends import Launch, Outcome
from .generator import BLOCK_WRITES, NIN, NOUT, REGION, Kernel, generate, program_source
from .known import classify, classify_from_source

OPTIONS = "-cl-std=CL2.0"
CRASH = "process died"  # sgvm.oracle's message when the runtime's process crashed
FILL = 0xA5A5A5A5


def buffers(kernel: Kernel) -> list[np.ndarray]:
    """The input, output and block-write buffers of ``kernel`` (from its seed)."""
    rng = np.random.default_rng(kernel.seed)
    ln = kernel.launch
    data = rng.integers(0, 2**32, NIN, dtype=np.uint32)
    # Small values too: they reach the interesting ends of the bounded operands.
    data[rng.random(NIN) < 0.25] &= 0xF
    out = np.full(ln.global_size * NOUT, FILL, np.uint32)
    blk = np.full(ln.sub_groups * REGION * BLOCK_WRITES, FILL, np.uint32)
    return [data, out, blk]


def launch_of(kernel: Kernel) -> Launch:
    ln = kernel.launch
    return Launch(kernel.name, buffers(kernel), (ln.global_size,), (ln.local_size,))


@dataclass
class Disagreement:
    """Two backends differ on one kernel (or one failed where the other ran)."""

    kernel: Kernel
    backends: tuple[str, str]
    detail: str
    reduced: str | None = None
    known: str | None = None  # the sgvm.oracle.differences entry that explains it

    def summary(self) -> str:
        k = self.kernel
        return (f"seed {k.seed}, sub-group size {k.launch.sub_group_size}, local size "
                f"{k.launch.local_size}, {k.launch.groups} group(s): "
                f"{self.backends[0]} vs {self.backends[1]}: {self.detail}")


def compare(kernel: Kernel, a: Outcome, b: Outcome) -> str | None:
    """None when the outcomes agree, else what differs first."""
    if a.error or b.error:
        if a.error and b.error:
            return None
        return f"only one ran: {a.error or 'ran'} / {b.error or 'ran'}"
    assert a.buffers is not None and b.buffers is not None
    for name, x, y in zip(("out", "blk"), a.buffers[1:], b.buffers[1:], strict=True):
        xv, yv = x.view(np.uint32), y.view(np.uint32)
        diff = np.flatnonzero(xv != yv)
        if diff.size:
            i = int(diff[0])
            where = (f"work-item {i // NOUT} slot {i % NOUT}" if name == "out"
                     else f"sub-group {i // (REGION * BLOCK_WRITES)} block write "
                     f"{i // REGION % BLOCK_WRITES} element {i % REGION}")
            return (f"{name}: {diff.size} word(s) differ, first at {where}: "
                    f"{xv[i]:#010x} vs {yv[i]:#010x}")
    return None


@dataclass
class Stats:
    kernels: int = 0
    programs: int = 0
    agreed: int = 0
    both_failed: int = 0
    checker_findings: list[tuple[Kernel, list[str]]] = field(default_factory=list)
    build_failures: list[tuple[str, str]] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def add_time(self, key: str, dt: float) -> None:
        self.seconds[key] = self.seconds.get(key, 0.0) + dt


def run_batch(kernels: Sequence[Kernel], backends: Sequence, stats: Stats,
              log: Callable[[str], None] = lambda s: None) -> None:
    """Build ``kernels`` as one program, run every kernel on every backend, compare each
    backend with the first."""
    source = program_source(list(kernels))
    t = time.perf_counter()
    try:
        spirv = compile_source(source, OPTIONS)
    except Exception as exc:  # a generator bug or a compiler bug: both worth reporting
        stats.build_failures.append((source, str(exc)))
        log(f"build failed for seeds {[k.seed for k in kernels]}: {str(exc)[:300]}")
        return
    stats.add_time("compile", time.perf_counter() - t)
    stats.programs += 1
    launches = [launch_of(k) for k in kernels]
    results = []
    for be in backends:
        t = time.perf_counter()
        results.append(be.run(spirv, launches))
        stats.add_time(be.name, time.perf_counter() - t)
        if len(kernels) > 1 and all(o.error and CRASH in o.error for o in results[-1]):
            # A backend crashed building the program: bisect to the kernels that crash it.
            stats.programs -= 1
            half = len(kernels) // 2
            run_batch(kernels[:half], backends, stats, log)
            run_batch(kernels[half:], backends, stats, log)
            return
    for i, kernel in enumerate(kernels):
        stats.kernels += 1
        first = results[0][i]
        if first.findings:
            stats.checker_findings.append((kernel, first.findings))
            log(f"checker findings in seed {kernel.seed} size {kernel.launch.sub_group_size}: "
                f"{first.findings[0]}")
        ok = True
        for be, res in zip(backends[1:], results[1:], strict=True):
            detail = compare(kernel, first, res[i])
            if detail is not None:
                ok = False
                d = Disagreement(kernel, (backends[0].name, be.name), detail)
                if be.name == "oracle" and first.buffers is not None and res[i].buffers:
                    d.known = (classify(kernel, first.buffers, res[i].buffers)
                               or oracle_from_source(kernel, first.buffers, be))
                stats.disagreements.append(d)
                log((f"known oracle deviation {d.known} (the text supports sgvm): " if d.known
                     else "DISAGREEMENT ") + d.summary())
        if ok:
            if first.error:
                stats.both_failed += 1
                log(f"seed {kernel.seed} failed on every backend: {first.error}")
            else:
                stats.agreed += 1


def oracle_from_source(kernel: Kernel, ours: list[np.ndarray], oracle) -> str | None:
    """The known difference that explains a disagreement the oracle's SPIR-V result shows
    but its result from the kernel's OpenCL C source (its own compiler) does not."""
    again = oracle.run(program_source([kernel]), [launch_of(kernel)], OPTIONS)[0]
    return None if again.buffers is None else classify_from_source(kernel, ours, again.buffers)


def kernels_for(seeds: Sequence[int], sizes: Sequence[int], size_hint: int,
                omit: frozenset[str] = frozenset()) -> list[Kernel]:
    return [generate(seed, s, size_hint, omit) for seed in seeds for s in sizes]


def batches(kernels: Sequence[Kernel], per_program: int) -> list[list[Kernel]]:
    """Same-sized kernels share a program (an execution mode per kernel anyway)."""
    out: list[list[Kernel]] = []
    for i in range(0, len(kernels), per_program):
        out.append(list(kernels[i:i + per_program]))
    return out


def category(detail: str) -> str:
    """The kind of a disagreement: which buffer differs, or which backend failed."""
    return detail.split(":", 1)[0]


def reproduces(kernel: Kernel, lines: list[str], backends: Sequence, kind: str) -> bool:
    """Whether ``kernel`` with body ``lines`` builds, has no checker findings on the first
    backend (which must check) and still disagrees in the same way."""
    candidate = Kernel(kernel.name, kernel.seed, kernel.launch, lines)
    try:
        spirv = compile_source(program_source([candidate]), OPTIONS)
    except Exception:
        return False
    launch = [launch_of(candidate)]
    first = backends[0].run(spirv, launch)[0]
    if first.findings:
        return False
    for be in backends[1:]:
        detail = compare(candidate, first, be.run(spirv, launch)[0])
        if detail is not None and category(detail) == kind:
            return True
    return False


def reduce_disagreement(d: Disagreement, backends: Sequence, budget: int = 300) -> str:
    """The smallest kernel text (ddmin over lines) that still disagrees the same way."""
    from .reduce import reduce_lines

    kind = category(d.detail)
    lines = reduce_lines(d.kernel.body, lambda ls: reproduces(d.kernel, ls, backends, kind),
                         budget)
    d.reduced = Kernel(d.kernel.name, d.kernel.seed, d.kernel.launch, lines).source()
    return d.reduced
