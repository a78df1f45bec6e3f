"""``sgvm dis``: print a SPIR-V module in spirv-dis syntax."""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import SgvmError
from ..spirv import read
from ..spirv.disassembler import disassemble


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "dis", help="disassemble a SPIR-V module",
        description="Print a SPIR-V binary as text, in the syntax of SPIRV-Tools' spirv-dis.")
    p.add_argument("file", help="SPIR-V binary ('-' reads standard input)")
    p.add_argument("--raw-id", action="store_true", help="print ids as %%<number>, not by name")
    p.add_argument("--no-header", action="store_true", help="omit the '; SPIR-V' header comments")
    p.add_argument("-o", "--output", help="write the text here instead of standard output")
    p.set_defaults(func=run)


def read_input(path: str) -> bytes:
    """The bytes of ``path`` (standard input for ``-``); unreadable files raise SgvmError."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise SgvmError(f"cannot read {path!r}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    text = disassemble(read(read_input(args.file)), raw_ids=args.raw_id,
                       header=not args.no_header)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise SgvmError(f"cannot write {args.output!r}: {exc.strerror or exc}") from None
        return 0
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `sgvm dis k.spv | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
