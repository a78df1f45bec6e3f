"""``sgvm check``: run a kernel like ``sgvm run`` under the checker and report every place
it relies on behaviour the specifications leave undefined (docs/checker.md); with
``--portability``, run it under every variant the specifications allow and report each
output that changes (docs/portability.md).

    sgvm check k.cl --kernel K --global 1024 --local 64 --arg a=in.npy --json
    sgvm check k.cl --portability --variants 8 --budget 60 --sarif k.sarif ...

Takes every ``sgvm run`` option, plus ``--json``, ``--sarif FILE`` and ``--max-findings N``.
The kernel's outputs are those of an unchecked run (``--save``/``--print`` work);
invalid accesses are reported and skipped instead of stopping the run. Exits 1
when an error-severity finding was made, else 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from . import run_cmd


def register(subparsers: Any) -> None:
    scratch = argparse.ArgumentParser(add_help=False).add_subparsers()
    run_cmd.register(scratch)
    p = subparsers.add_parser("check", parents=[scratch.choices["run"]], conflict_handler="resolve",
                              help="run a kernel under the checker (undefined behaviour, races) "
                                   "or the portability check",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("--sarif", metavar="FILE", help="also write the findings as a SARIF 2.1.0 log")
    p.add_argument("--max-findings", type=int, default=None, metavar="N",
                   help="show at most N findings")
    p.add_argument("--portability", action="store_true",
                   help="run under every sub-group size, mapping, reduction order, work-group "
                        "order, memory contents and atomic order the specifications allow")
    p.add_argument("--variants", type=int, default=None, metavar="N",
                   help="--portability: run at most N variants")
    p.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="--portability: start no variant after SECONDS")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="--portability: seed of the shuffled orders (default 0)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    with run_cmd.device_profile(args.as_profile):
        return _main(args)


def _main(args: argparse.Namespace) -> int:
    from .. import cl
    from ..check import Checker, render_json, render_text, sarif
    from ..check.portability import PortabilityChecker
    from ..check.portability import render_json as portability_json
    from ..check.portability import render_text as portability_text
    from ..check.render import use_colour
    from ..runtime.quick import _context, run

    if not args.portability and (args.variants is not None or args.budget is not None):
        raise run_cmd.UsageError("--variants and --budget go with --portability")
    if args.variants is not None and args.variants < 0:
        raise run_cmd.UsageError(f"--variants {args.variants}: give a count of 0 or more")
    data = Path(args.file).read_bytes()
    spirv = data[:4] in (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03")
    ctx, _ = _context()
    mode = "portability" if args.portability else True
    prg = cl.Program(ctx, data if spirv else data.decode()).build(args.build_options, check=mode)
    prg.checker = (PortabilityChecker(echo=False, max_variants=args.variants, budget=args.budget,
                                      seed=args.seed) if args.portability else Checker(echo=False))
    names = prg.module.kernel_names
    kernel = args.kernel
    if kernel is None:
        if len(names) != 1:
            raise run_cmd.UsageError(f"{args.file} has kernels {', '.join(names) or '(none)'}; "
                                     "choose one with --kernel")
        kernel = names[0]
    if kernel not in names:
        raise run_cmd.UsageError(f"{args.file} has no kernel '{kernel}' "
                                 f"(kernels: {', '.join(names) or 'none'})")
    values, index = run_cmd._bind(prg.kernel_params(kernel), kernel,
                                  run_cmd._named(args.arg, "--arg"))
    saves = run_cmd._named(args.save, "--save")
    for name in [n for n, _ in saves] + args.print_args:
        if name not in index or not isinstance(values[index[name]], np.ndarray):
            raise run_cmd.UsageError(f"'{name}' is not an array argument of kernel '{kernel}'")
    run(prg, kernel, run_cmd._sizes(args.global_size, "global"),
        run_cmd._sizes(args.local_size, "local"), *values,
        global_offset=run_cmd._sizes(args.offset, "offset"))
    for name, path in saves:
        np.save(path, values[index[name]])
    for name in args.print_args:
        print(f"{name} = {values[index[name]]}")
    report = prg.checker.report
    if args.portability:
        for launch_report in report.launches:
            for f in launch_report.findings:
                f.attributions = [_named_file(a, args.file) for a in f.attributions]
        sys.stdout.write(portability_json(report) if args.json else portability_text(report))
        if args.sarif:
            sarif.write(sarif.portability_sarif(report, args.file), args.sarif)
        return 1 if report.has_errors else 0
    for f in report.findings:
        if f.file == "<kernel>":  # the name Program.build gives the source
            f.file = args.file
    if args.json:
        sys.stdout.write(render_json(report, max_findings=args.max_findings))
    else:
        sys.stdout.write(render_text(report, max_findings=args.max_findings,
                                     colour=use_colour(sys.stdout)))
    if args.sarif:
        sarif.write(sarif.check_sarif(report), args.sarif)
    return 1 if report.has_errors else 0


def _named_file(a: Any, file: str) -> Any:
    """An attribution in the source Program.build names ``<kernel>``, renamed to ``file``."""
    from dataclasses import replace

    return replace(a, file=file) if a.file == "<kernel>" else a
