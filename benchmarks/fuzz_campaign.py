"""The long differential run: ``sgvm fuzz`` over seed ranges (shards), one table at the end.

    .venv/bin/python benchmarks/fuzz_campaign.py [--seeds 0:3420] [--omit khr] [--jobs 1]
    .venv/bin/python benchmarks/fuzz_campaign.py --summarise DIR/*.json
    .venv/bin/python benchmarks/fuzz_campaign.py --record tests/fuzz/oracle_reference.json

Each shard is ``sgvm fuzz --seeds A:B --backends cpu,oracle --json A-B.json`` on 100 seeds
(sub-group sizes 8, 16, 32: three kernels per seed), ``--jobs`` of them at a time (one by
default: the oracle's builds, most of the cost, use every core they get). A shard's
report survives an interrupted run, and ``--summarise`` tabulates whatever reports
exist. The table: kernels, agreed, disagreements explained by a known oracle deviation
(by entry), unexplained disagreements (each with its reduced reproducer in the shard's
JSON), checker findings, and where the time went. ``--record`` writes the oracle
reference the short run of ``make test`` compares the NumPy engine against
(tests/fuzz/test_short_run.py).
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


def shards(start: int, stop: int, size: int = 100) -> list[tuple[int, int]]:
    return [(a, min(a + size, stop)) for a in range(start, stop, size)]


def campaign(seeds: str, omit: str, jobs: int, reduce: int, folder: Path | None) -> int:
    start, stop = (int(x) for x in seeds.split(":"))
    folder = folder or Path(tempfile.mkdtemp(prefix="sgvm-fuzz-"))
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    running: list[subprocess.Popen] = []
    outs = []
    for a, b in shards(start, stop):
        out = folder / f"{a}-{b}.json"
        cmd = [sys.executable, "-m", "sgvm", "fuzz", "--seeds", f"{a}:{b}", "--reduce",
               str(reduce), "--per-program", "40", "--json", str(out)]
        if omit:
            cmd += ["--omit", omit]
        while len(running) >= jobs:
            running.pop(0).wait()
        print(" ".join(cmd[1:]), flush=True)
        running.append(subprocess.Popen(cmd, stdout=open(out.with_suffix(".log"), "w"),
                                        stderr=subprocess.STDOUT))
        outs.append(out)
    for p in running:
        p.wait()
    code = summarise([out for out in outs if out.exists()], time.perf_counter() - t0)
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
    ap.add_argument("--omit", default="", help="passed to sgvm fuzz (khr: no khr built-ins)")
    ap.add_argument("--jobs", type=int, default=1, help="shards run at a time")
    ap.add_argument("--out", type=Path, help="folder for the shard reports (default: a "
                                              "new temporary folder)")
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
    return campaign(args.seeds, args.omit, args.jobs, args.reduce, args.out)


if __name__ == "__main__":
    sys.exit(main())
