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

SUBCOMMANDS = ("compile", "dis", "info", "run", "check", "exec", "icd", "oracle", "fuzz")


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


def _subparser(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser | None:
    """The parser of the sub-command ``argv`` names, if any."""
    for action in parser._actions:  # noqa: SLF001 - argparse keeps sub-parsers only here
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return next((action.choices[a] for a in argv if a in action.choices), None)
    return None


def attach_option_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``argv`` with each value that looks like an option (``-b -cl-std=CL2.0``) joined to the
    option that takes it (``--build-options=-cl-std=CL2.0``): argparse would otherwise read
    the value as an unknown option and report the option's value missing. A value that is
    itself one of the sub-command's options is left alone."""
    sub = _subparser(parser, argv)
    if sub is None:
        return argv
    takes_value = {s: a.option_strings[-1] for a in sub._actions  # noqa: SLF001
                   if a.option_strings and a.nargs is None for s in a.option_strings}
    known = {s for a in sub._actions for s in a.option_strings}  # noqa: SLF001
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in takes_value and i + 1 < len(argv) and argv[i + 1].startswith("-") \
                and argv[i + 1].split("=", 1)[0] not in known:
            out.append(f"{takes_value[arg]}={argv[i + 1]}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = attach_option_values(parser, sys.argv[1:] if argv is None else list(argv))
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "accepts_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    try:
        return int(args.func(args) or 0)
    except BuildError as exc:
        if exc.details.strip():
            print(exc.details.rstrip(), file=sys.stderr)
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
