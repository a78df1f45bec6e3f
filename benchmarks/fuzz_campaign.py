"""The long differential run: ``sgvm fuzz`` in parallel shards, one table at the end.

    .venv/bin/python benchmarks/fuzz_campaign.py [--seeds 0:3420] [--shards 6]
    .venv/bin/python benchmarks/fuzz_campaign.py --record tests/fuzz/oracle_reference.json

Each shard is ``sgvm fuzz --seeds A:B --backends cpu,oracle --json shard.json`` on its own
seed range (sub-group sizes 8, 16, 32: three kernels per seed), so the oracle's build
time — most of the cost — overlaps with the NumPy engine's runs. The table: kernels,
agreed, disagreements explained by a known oracle deviation (by entry), unexplained
disagreements (each with its reduced reproducer in the shard's JSON), checker findings,
and where the time went. ``--record`` writes the oracle reference the short run of
``make test`` compares the NumPy engine against (tests/fuzz/test_short_run.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from sgvm.fuzz import reference
from sgvm.oracle.differences import ORACLE_AVOID

REFERENCE_SEEDS = range(0, 100)


def shards(start: int, stop: int, n: int) -> list[tuple[int, int]]:
    step = -(-(stop - start) // n)
    return [(a, min(a + step, stop)) for a in range(start, stop, step)]


def campaign(seeds: str, n: int, reduce: int) -> int:
    start, stop = (int(x) for x in seeds.split(":"))
    folder = Path(tempfile.mkdtemp(prefix="sgvm-fuzz-"))
    t0 = time.perf_counter()
    procs = []
    for a, b in shards(start, stop, n):
        out = folder / f"{a}-{b}.json"
        cmd = [sys.executable, "-m", "sgvm", "fuzz", "--seeds", f"{a}:{b}", "--reduce",
               str(reduce), "--per-program", "40", "--json", str(out)]
        procs.append((out, subprocess.Popen(cmd, stdout=open(out.with_suffix(".log"), "w"),
                                            stderr=subprocess.STDOUT)))
        print(" ".join(cmd[1:]), flush=True)
    for _, p in procs:
        p.wait()
    code = summarise([out for out, _ in procs if out.exists()], time.perf_counter() - t0)
    print(f"\nshard reports: {folder}")
    return code


def summarise(paths: list[Path], wall: float | None = None) -> int:
    """The table of one campaign from its shards' JSON reports (complete or not)."""
    reports = [json.loads(p.read_text()) for p in paths]
    known = Counter(d["known"] for r in reports for d in r["disagreements"] if d["known"])
    unexplained = [d for r in reports for d in r["disagreements"] if not d["known"]]
    parts = Counter()
    for r in reports:
        parts.update(r["time_per_part"])
    rows = [
        ("kernels", sum(r["kernels"] for r in reports)),
        ("agreed", sum(r["agreed"] for r in reports)),
        *((f"known: {name}", count) for name, count in sorted(known.items())),
        ("unexplained disagreements", len(unexplained)),
        ("checker findings", sum(len(r["checker_findings"]) for r in reports)),
        ("failed everywhere", sum(r["failed_everywhere"] for r in reports)),
        ("wall seconds", round(wall if wall is not None else max(r["seconds"] for r in reports))),
        *((f"seconds in {part}", round(s)) for part, s in sorted(parts.items())),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value:>8}")
    for d in unexplained:
        print(f"\n{d['summary']}\n{d['reduced'] or '(not reduced)'}")
    return 1 if unexplained else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="0:3420", help="START:STOP (3 kernels per seed)")
    ap.add_argument("--shards", type=int, default=6)
    ap.add_argument("--reduce", type=int, default=2)
    ap.add_argument("--record", type=Path, help="write the short run's oracle reference")
    ap.add_argument("--summarise", type=Path, nargs="+", metavar="JSON",
                    help="print the table of shard reports already written")
    args = ap.parse_args()
    if args.summarise:
        return summarise(args.summarise)
    if args.record:
        ref = reference.record(REFERENCE_SEEDS, (8, 16, 32), frozenset(ORACLE_AVOID))
        reference.save(ref, args.record)
        return 0
    return campaign(args.seeds, args.shards, args.reduce)


if __name__ == "__main__":
    sys.exit(main())
