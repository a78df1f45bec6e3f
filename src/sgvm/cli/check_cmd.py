"""``sgvm check``: run a kernel like ``sgvm run`` under the checker and report every place
it relies on behaviour the specifications leave undefined (docs/checker.md).

    sgvm check k.cl --kernel K --global 1024 --local 64 --arg a=in.npy --json

Takes every ``sgvm run`` option, plus ``--json`` and ``--max-findings N``. The
kernel's outputs are those of an unchecked run (``--save``/``--print`` work);
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
                              help="run a kernel under the checker (undefined behaviour, races)",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("--max-findings", type=int, default=None, metavar="N",
                   help="show at most N findings")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from .. import cl
    from ..check import Checker, render_json, render_text
    from ..check.render import use_colour
    from ..runtime.quick import _context, run

    data = Path(args.file).read_bytes()
    spirv = data[:4] in (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03")
    ctx, _ = _context()
    prg = cl.Program(ctx, data if spirv else data.decode()).build(args.build_options, check=True)
    prg.checker = Checker(echo=False)
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
    for f in report.findings:
        if f.file == "<kernel>":  # the name Program.build gives the source
            f.file = args.file
    if args.json:
        sys.stdout.write(render_json(report, max_findings=args.max_findings))
    else:
        sys.stdout.write(render_text(report, max_findings=args.max_findings,
                                     colour=use_colour(sys.stdout)))
    return 1 if report.has_errors else 0
