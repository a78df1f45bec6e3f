"""The ``sgvm`` command. Each sub-command lives in its own module here.

A sub-command module defines ``register(subparsers)`` (adds its parser and sets
``func``) and a handler returning the exit status. User mistakes print one line
on stderr and exit non-zero; tracebacks are for sgvm's own bugs only.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import BuildError, SgvmError, SpirvFormatError

SUBCOMMANDS = ("compile", "dis", "info", "run", "check")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sgvm",
        description="Run OpenCL kernels that use sub-groups, exactly as the specifications say.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}_cmd")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}_cmd":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "accepts_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    try:
        return int(args.func(args) or 0)
    except BuildError as exc:
        print(exc.log.rstrip(), file=sys.stderr)
        print(f"sgvm: error: {exc.what}", file=sys.stderr)
        return 1
    except SpirvFormatError as exc:
        print(f"sgvm: error: {exc}", file=sys.stderr)
        return 2
    except (SgvmError, OSError) as exc:
        print(f"sgvm: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _entry() -> None:
    sys.exit(main())
