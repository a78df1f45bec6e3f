"""``sgvm fuzz``: random sub-group kernels run on several backends, disagreements reported
with their seed and a reduced reproducer (docs/fuzz.md)."""

from __future__ import annotations

import argparse
import json
import sys
import time

from ..errors import SgvmError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "fuzz", help="differential testing with random sub-group kernels",
        description="Generate seeded random kernels that use sub-group and work-group "
                    "built-ins, run each on every backend, report disagreements.")
    p.add_argument("--seeds", default="0:100", help="seed range START:STOP (default 0:100)")
    p.add_argument("--sizes", default="8,16,32", help="sub-group sizes (default 8,16,32)")
    p.add_argument("--backends", default="cpu,oracle",
                   help="comma-separated: the first is compared with each other one; sgvm "
                        "devices by their SGVM_DEVICE name (cpu = NumPy engine, native, "
                        "cuda) or 'oracle' (default cpu,oracle)")
    p.add_argument("--per-program", type=int, default=30, help="kernels per program (build)")
    p.add_argument("--size", type=int, default=20, help="statements per kernel (about)")
    p.add_argument("--omit", default="",
                   help="comma-separated built-in families not to generate (khr: the khr "
                        "sub-group extensions' built-ins; the kernels are then those of "
                        "the generator before it had them)")
    p.add_argument("--no-check", action="store_true",
                   help="skip the checker on the first backend (generated kernels must have "
                        "no findings)")
    p.add_argument("--reduce", type=int, default=3,
                   help="reduce at most this many unexplained disagreements of each kind "
                        "(default 3)")
    p.add_argument("--reduce-known", action="store_true",
                   help="also reduce disagreements a known difference explains")
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    p.set_defaults(func=run)


def _seeds(text: str) -> range:
    try:
        start, stop = (int(x) for x in text.split(":"))
    except ValueError:
        raise SgvmError(f"--seeds wants START:STOP, not {text!r}") from None
    return range(start, stop)


def run(args: argparse.Namespace) -> int:
    from ..fuzz.backends import make_backend
    from ..fuzz.campaign import (
        Stats,
        batches,
        category,
        kernels_for,
        reduce_disagreement,
        run_batch,
    )
    from ..oracle.differences import ORACLE_AVOID

    names = [n.strip() for n in args.backends.split(",") if n.strip()]
    if len(names) < 2:
        raise SgvmError("--backends needs at least two backends to compare")
    sizes = [int(s) for s in args.sizes.split(",")]
    backends = [make_backend(n, check=(i == 0 and not args.no_check))
                for i, n in enumerate(names)]
    omit = frozenset(ORACLE_AVOID) if "oracle" in names else frozenset()
    omit |= {n.strip() for n in args.omit.split(",") if n.strip()}
    stats = Stats()
    seeds = _seeds(args.seeds)
    start = time.perf_counter()
    kernels = kernels_for(seeds, sizes, args.size, omit)

    def log(line: str) -> None:
        print(line, flush=True)

    for batch in batches(kernels, args.per_program):
        run_batch(batch, backends, stats, log)
        if stats.kernels % (args.per_program * 10) < args.per_program:
            log(f"... {stats.kernels} kernels, {stats.agreed} agreed, "
                f"{len(stats.disagreements)} disagreements, {time.perf_counter() - start:.0f} s")
            if args.json:  # partial results survive an interrupted run
                _write(args, stats, time.perf_counter() - start)
    reduced: dict[tuple[str, str | None], int] = {}
    for d in stats.disagreements:
        key = (category(d.detail), d.known)
        if reduced.get(key, 0) >= args.reduce or args.no_check or (d.known and not
                                                                    args.reduce_known):
            continue
        reduced[key] = reduced.get(key, 0) + 1
        reduce_disagreement(d, backends)
        log(f"reduced seed {d.kernel.seed} size {d.kernel.launch.sub_group_size} "
            f"({d.known or 'unexplained'}):\n{d.reduced}")
    elapsed = time.perf_counter() - start
    known = sum(1 for d in stats.disagreements if d.known)
    print(f"{stats.kernels} kernels in {stats.programs} programs ({elapsed:.0f} s): "
          f"{stats.agreed} agreed, {len(stats.disagreements)} disagreed ({known} explained by "
          f"known differences), {stats.both_failed} failed on every backend, "
          f"{len(stats.checker_findings)} with checker findings, "
          f"{len(stats.build_failures)} batches failed to build")
    if args.json:
        _write(args, stats, elapsed)
    unexplained = len(stats.disagreements) - known
    return 1 if unexplained or stats.checker_findings or stats.build_failures else 0


def _write(args: argparse.Namespace, stats, elapsed: float) -> None:
    with open(args.json, "w") as f:
        json.dump(_report(args, stats, elapsed), f, indent=1)


def _report(args: argparse.Namespace, stats, elapsed: float) -> dict:
    return {
        "command": "sgvm fuzz " + " ".join(sys.argv[2:]),
        "kernels": stats.kernels, "programs": stats.programs, "agreed": stats.agreed,
        "failed_everywhere": stats.both_failed, "seconds": round(elapsed, 1),
        "time_per_part": {k: round(v, 1) for k, v in stats.seconds.items()},
        "checker_findings": [{"seed": k.seed, "size": k.launch.sub_group_size,
                              "findings": f} for k, f in stats.checker_findings],
        "build_failures": [e for _, e in stats.build_failures],
        "disagreements": [{"seed": d.kernel.seed, "size": d.kernel.launch.sub_group_size,
                           "summary": d.summary(), "known": d.known, "reduced": d.reduced}
                          for d in stats.disagreements],
    }
