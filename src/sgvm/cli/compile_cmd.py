"""``sgvm compile k.cl -o k.spv [build options]``: OpenCL C → SPIR-V."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``compile`` sub-command."""
    p = subparsers.add_parser(
        "compile",
        help="compile OpenCL C to SPIR-V",
        description="Compile OpenCL C to SPIR-V. Any OpenCL build option (-D, -I, -cl-std=, "
        "-cl-fast-relaxed-math, -sgvm-..., ...) may follow the file name.",
    )
    p.add_argument("source", help="OpenCL C source file")
    p.add_argument("-o", "--output", help="output file (default: SOURCE with .spv)")
    p.set_defaults(func=run, accepts_extra=True)


def run(args: argparse.Namespace) -> int:
    """Compile ``args.source``; build options come from the unparsed arguments."""
    from ..compiler import compile_with_log

    src = Path(args.source)
    result = compile_with_log(src.read_text(), list(args.extra), filename=str(src))
    if result.log.strip():
        print(result.log.rstrip(), file=sys.stderr)
    out = Path(args.output) if args.output else src.with_suffix(".spv")
    out.write_bytes(result.spirv)
    return 0
