"""``sgvm run``: build a kernel and run it once on arrays from the command line.

    sgvm run k.cl --kernel K --global 1024 --local 64 --arg a=in.npy \\
        --arg out=zeros:1024:float32 --arg n=int32:1024 --save out=out.npy

``--arg NAME=SPEC`` binds a kernel parameter (by name, or by index) to
``FILE.npy``, ``zeros:COUNT:DTYPE``, ``DTYPE:VALUE`` or ``local:BYTES``.
Kernel printf output goes to stdout. ``--profile`` builds with -g and prints
the memory messages an Intel GPU would issue, per source line (docs/visa.md).
``--as intel-gpu|intel-cpu|intel-cpu-avx2`` runs with that implementation's sub-group sizes, default
size and mapping (``SGVM_PROFILE_DEVICE``; docs/portability.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SgvmError
from ..runtime.profiles import ENV as PROFILE_ENV
from ..runtime.profiles import PROFILES


class UsageError(SgvmError):
    """A mistake on the ``sgvm run`` command line."""


CLI_FIX = "give --arg {name}=zeros:COUNT:{dtype} or a .npy file of dtype {dtype}"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("run", help="run a kernel once on arrays from .npy files or literals",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="OpenCL C source (.cl) or SPIR-V binary (.spv)")
    p.add_argument("--kernel", "-k", help="kernel name (optional when the program has one kernel)")
    p.add_argument("--global", "-g", dest="global_size", required=True, metavar="SIZE",
                   help="global size: 1024 or 1024,256")
    p.add_argument("--local", "-l", dest="local_size", metavar="SIZE", help="work-group size (default: chosen)")
    p.add_argument("--offset", metavar="SIZE", help="global offset")
    p.add_argument("--arg", "-a", action="append", default=[], metavar="NAME=SPEC",
                   help="NAME=FILE.npy | NAME=zeros:COUNT:DTYPE | NAME=DTYPE:VALUE | NAME=local:BYTES")
    p.add_argument("--save", action="append", default=[], metavar="NAME=FILE.npy",
                   help="write an array argument to a .npy file after the run")
    p.add_argument("--print", dest="print_args", action="append", default=[], metavar="NAME",
                   help="print an array argument after the run")
    p.add_argument("-b", "--build-options", default="", metavar="OPTIONS", help="OpenCL build options")
    p.add_argument("--profile", action="store_true",
                   help="print the vISA message profile per source line (builds with -g)")
    p.add_argument("--profile-json", metavar="FILE", help="also write the message profile as JSON")
    p.add_argument("--as", dest="as_profile", choices=sorted(PROFILES), metavar="PROFILE",
                   help="choose sub-group sizes and mapping as PROFILE does: "
                        + ", ".join(sorted(PROFILES)))
    p.set_defaults(func=main)


@contextlib.contextmanager
def device_profile(name: str | None) -> Iterator[None]:
    """``SGVM_PROFILE_DEVICE=name`` while the block runs (nothing when ``name`` is None)."""
    if name is None:
        yield
        return
    old = os.environ.get(PROFILE_ENV)
    os.environ[PROFILE_ENV] = name
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(PROFILE_ENV, None)
        else:
            os.environ[PROFILE_ENV] = old


def _sizes(text: str | None, what: str) -> tuple[int, ...] | None:
    if text is None or text.lower() == "none":
        return None
    try:
        return tuple(int(v) for v in re.split(r"[,x]", text))
    except ValueError:
        raise UsageError(f"--{what} {text!r}: give sizes like 1024 or 64,64") from None


def _dtype(name: str, spec: str) -> np.dtype:
    from ..runtime.array_args import scalar_dtype

    try:
        return scalar_dtype(name)
    except TypeError:
        raise UsageError(f"--arg {spec!r}: unknown scalar type {name!r} (use e.g. int32, uint, float32)") from None


def parse_value(spec: str) -> Any:
    """The argument value a ``--arg`` SPEC (the part after ``NAME=``) describes."""
    from ..cl import LocalMemory

    if spec.endswith(".npy"):
        try:
            return np.load(spec, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise UsageError(f"--arg {spec!r}: cannot read {spec}: {exc}") from None
    parts = spec.split(":")
    try:
        if parts[0] == "local" and len(parts) == 2:
            return LocalMemory(int(parts[1], 0))
        if parts[0] == "zeros" and len(parts) == 3:
            return np.zeros(int(parts[1], 0), _dtype(parts[2], spec))
        if len(parts) == 2:
            dtype = _dtype(parts[0], spec)
            return dtype.type(int(parts[1], 0) if dtype.kind in "iub" else float(parts[1]))
    except ValueError:
        pass
    raise UsageError(f"--arg value {spec!r}: use FILE.npy, zeros:COUNT:DTYPE, DTYPE:VALUE or local:BYTES")


def _named(items: list[str], option: str) -> list[tuple[str, str]]:
    out = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or (option != "--print" and not value):
            raise UsageError(f"{option} {item!r}: expected NAME=VALUE")
        out.append((name, value))
    return out


def _bind(params: list[Any], kernel: str, specs: list[tuple[str, str]]) -> tuple[list[Any], dict[str, int]]:
    """Argument values in parameter order, and parameter name → index."""
    index = {p.name: p.index for p in params}
    index.update({str(p.index): p.index for p in params})
    values: list[Any] = [None] * len(params)
    given = [False] * len(params)
    for name, spec in specs:
        if name not in index:
            listed = ", ".join(p.name for p in params) or "none"
            raise UsageError(f"kernel '{kernel}' has no parameter '{name}' (parameters: {listed})")
        i = index[name]
        if given[i]:
            raise UsageError(f"parameter '{params[i].name}' is given twice")
        values[i], given[i] = parse_value(spec), True
    missing = [f"{p.name} ({p.type_name})" for p, g in zip(params, given, strict=True) if not g]
    if missing:
        raise UsageError(f"missing --arg for kernel '{kernel}' parameter(s): {', '.join(missing)}")
    return values, index


def main(args: argparse.Namespace) -> int:
    with device_profile(args.as_profile):
        return _main(args)


def _main(args: argparse.Namespace) -> int:
    from .. import cl
    from ..runtime.array_args import check_array
    from ..runtime.quick import _context, read_program_file, run

    source = read_program_file(args.file)
    profile = args.profile or args.profile_json is not None
    options = args.build_options
    if isinstance(source, str) and profile and "-g" not in options.split():
        options = f"{options} -g".strip()
    ctx, _ = _context()
    prg = cl.Program(ctx, source).build(options)
    names = prg.module.kernel_names
    kernel = args.kernel
    if kernel is None:
        if len(names) != 1:
            raise UsageError(f"{args.file} has kernels {', '.join(names) or '(none)'}; choose one with --kernel")
        kernel = names[0]
    if kernel not in names:
        raise UsageError(f"{args.file} has no kernel '{kernel}' (kernels: {', '.join(names) or 'none'})")
    params = prg.kernel_params(kernel)
    values, index = _bind(params, kernel, _named(args.arg, "--arg"))
    saves = _named(args.save, "--save")
    for name in [n for n, _ in saves] + args.print_args:
        if name not in index or not isinstance(values[index[name]], np.ndarray):
            raise UsageError(f"'{name}' is not an array argument of kernel '{kernel}'")
    for p, value in zip(params, values, strict=True):
        if p.kind in ("global", "constant") and isinstance(value, np.ndarray):
            check_array(p, value, CLI_FIX)
    result = run(prg, kernel, _sizes(args.global_size, "global"), _sizes(args.local_size, "local"),
                 *values, global_offset=_sizes(args.offset, "offset"), profile=profile)
    for name, path in saves:
        np.save(path, values[index[name]])
    for name in args.print_args:
        with np.printoptions(threshold=np.inf if values[index[name]].size <= 4096 else 1000):
            print(f"{name} = {values[index[name]]}")
    if args.profile:
        print(result.profile.table())
    if args.profile_json:
        Path(args.profile_json).write_text(json.dumps(result.profile.to_dict(), indent=1) + "\n")
    return 0
