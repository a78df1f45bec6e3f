"""``sgvm exec [--check[=portability]] [--profile] [--device cpu|cuda] -- CMD ARGS…``: run any
program with sgvm as its OpenCL platform (docs/platform.md).

The child's ICD loader is pointed at sgvm's vendor file alone (``OCL_ICD_VENDORS``),
so every OpenCL program — C, C++, PyOpenCL, clinfo — sees the sgvm platform.
``--check`` runs every launch under the checker and prints the report ``sgvm check``
prints on stderr when the program ends; ``--check=portability`` runs every launch under
the portability check instead and prints the report ``sgvm check --portability`` prints
(docs/portability.md). The exit status is then 1 if the check found errors (the
program's own status when that is not 0). ``--profile`` prints the vISA message profile
of all launches, per kernel line, at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "exec", help="run a program with sgvm as its OpenCL platform",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", nargs="?", const=True, default=None, type=_check_kind, metavar="portability",
                   help="run every launch under the checker; --check=portability: under the "
                        "portability check")
    p.add_argument("--profile", action="store_true", help="print the message profile at the end")
    p.add_argument("--device", choices=("cpu", "numpy", "native", "cuda"),
                   help="the device the program sees (SGVM_DEVICE; numpy is cpu)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the program and its arguments (after --)")
    p.set_defaults(func=run)


def _check_kind(value: str) -> str:
    """``--check``'s optional value: ``portability`` (``--check`` alone is the checker)."""
    if value == "portability":
        return value
    raise argparse.ArgumentTypeError(
        f"{value!r} is not a check: use --check (the checker) or --check=portability, "
        "and put -- before the program")


def child_environment(vendors_dir: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (the current environment) with the ICD loader pointed at sgvm alone."""
    env = dict(os.environ if base is None else base)
    env["OCL_ICD_VENDORS"] = str(vendors_dir)
    env.pop("OCL_ICD_FILENAMES", None)  # would add other platforms (Khronos loader) or replace sgvm
    return env


def _read(path: Path) -> dict[str, object] | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def run(args: argparse.Namespace) -> int:
    from ..icd import build

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print("sgvm: error: give the program to run: sgvm exec [options] -- CMD ARGS…", file=sys.stderr)
        return 2
    if args.device == "cuda":
        from ..cl.platform import _BACKENDS

        if "cuda" not in _BACKENDS:
            print("sgvm: error: --device cuda needs CuPy and an NVIDIA GPU it can see; use --device cpu",
                  file=sys.stderr)
            return 2
    paths = build()
    env = child_environment(paths.vendors_dir)
    with tempfile.TemporaryDirectory(prefix="sgvm-exec-") as tmp:
        check_file, profile_file = Path(tmp) / "check.json", Path(tmp) / "profile.json"
        if args.check:
            env.update(SGVM_CHECK="1" if args.check is True else args.check, SGVM_CHECK_REPORT=str(check_file))
        if args.profile:
            env.update(SGVM_PROFILE="1", SGVM_PROFILE_REPORT=str(profile_file))
        if args.device:
            env["SGVM_DEVICE"] = args.device
        try:
            status = subprocess.call(command, env=env)
        except OSError as exc:
            print(f"sgvm: error: cannot run {command[0]!r}: {exc.strerror or exc}", file=sys.stderr)
            return 127
        errors = False
        if args.check:
            report = _read(check_file)
            if report is None:
                sys.stderr.write("sgvm check: no kernel was launched\n")
            else:
                sys.stderr.write(str(report["text"]))
                errors = bool(report["errors"])
        if args.profile:
            profile = _read(profile_file)
            sys.stderr.write(str(profile["text"]) + "\n" if profile else "sgvm profile: no kernel was launched\n")
    if status < 0:
        return 128 - status
    return status or (1 if errors else 0)
