"""Run a launch the kernel tests just made on sgvm again on the oracle, and compare.

Legal differences come only from ``sgvm.oracle.differences`` (docs/oracle.md):
``sub-group-mapping`` (multi-dimensional work-groups whose x size is not a multiple of the
sub-group size are not compared), ``float-reduction-order`` (buffers of a program with
floating-point group additions compare within a bound), ``vote-value`` (non-zero vs
non-zero where the program votes) and undefined results (a launch whose buffers differ is
run again under sgvm's checker; findings mean the kernel relies on undefined behaviour and
its results are excluded).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from sgvm.check import Checker
from sgvm.oracle import OracleError, shared, with_sub_group_size
from sgvm.oracle.differences import DIFFERENCES
from sgvm.runtime.args import BufferArg, LocalArg, NullArg, ValueArg
from sgvm.runtime.device import CPU_DEVICE
from sgvm.runtime.launch import launch, sub_group_size
from sgvm.spirv.writer import write

FLOAT_GROUP_ADDS = frozenset(("OpGroupFAdd", "OpGroupNonUniformFAdd"))
VOTES = frozenset(("OpGroupAll", "OpGroupAny", "OpGroupNonUniformAll",
                   "OpGroupNonUniformAny"))


@dataclass
class Tally:
    """What the oracle comparisons of a session found."""

    agreed: int = 0
    excluded: Counter = field(default_factory=Counter)  # reason → launches
    allowed: Counter = field(default_factory=Counter)  # differences entry → launches
    tests: set = field(default_factory=set)  # tests with at least one compared launch
    disagreed: list = field(default_factory=list)


TALLY = Tally()


def _opnames(module, kernel: str) -> set[str]:
    """The instructions ``kernel`` (and what it calls) executes ("OpExtInst:<number>" for
    extended ones), and "OpSpecConstantOp:<opcode>" per constant operation of the module."""
    cache = module.__dict__.setdefault("_oracle_opnames", {})
    if kernel not in cache:
        insts = [i for fn in module.kernel_functions(kernel) for b in fn.blocks
                 for i in b.instructions]
        names = {i.opname for i in insts}
        names |= {f"OpExtInst:{i.operands[1].value}" for i in insts if i.opname == "OpExtInst"}
        names |= {f"OpSpecConstantOp:{c.value['opcode']}" for c in module.constants.values()
                  if c.op == "OpSpecConstantOp"}
        cache[kernel] = names
    return cache[kernel]


def _spirv(module, size: int) -> bytes:
    cache = module.__dict__.setdefault("_oracle_spirv", {})
    if size not in cache:
        cache[size] = with_sub_group_size(write(module), size)
    return cache[size]


def _wire(kargs, outs_initial: dict[int, np.ndarray]) -> list[tuple] | None:
    wire = []
    for a in kargs:
        if isinstance(a, BufferArg):
            initial = outs_initial.get(id(a.allocation))
            if initial is None or a.offset:
                return None
            wire.append(("buffer", initial))
        elif isinstance(a, LocalArg):
            wire.append(("local", a.nbytes))
        elif isinstance(a, ValueArg):
            wire.append(("value", bytes(a.data)))
        elif isinstance(a, NullArg):
            wire.append(("null",))
        else:  # images and samplers: the oracle runner takes buffers only
            return None
    return wire


def _within_float_bound(a: np.ndarray, b: np.ndarray, dtype: np.dtype, lanes: int) -> bool:
    if dtype.kind != "f":
        return False
    x, y = a.view(dtype).astype(np.float64), b.view(dtype).astype(np.float64)
    eps = float(np.finfo(dtype).eps)
    finite = np.isfinite(x) & np.isfinite(y)
    scale = max(float(np.max(np.abs(x[finite]), initial=0.0)), 1.0)
    close = np.zeros(x.shape, bool)
    close[finite] = np.abs(x[finite] - y[finite]) <= lanes * eps * scale
    return bool(np.all((x == y) | (np.isnan(x) & np.isnan(y)) | close))


def _votes_only(a: np.ndarray, b: np.ndarray, dtype: np.dtype) -> bool:
    if dtype.kind not in "iu":
        return False
    x, y = a.view(dtype), b.view(dtype)
    diff = x != y
    return bool(np.all((x[diff] != 0) & (y[diff] != 0)))


def compare_launch(module, kernel, kargs, outs, initial, ndrange, options, variant,
                   node) -> None:
    """The hook tests/engine/harness.py and tests/subgroups/helpers.py call after a launch.
    ``outs``: (allocation, dtype, shape) of the NumPy buffers; ``initial``: their bytes
    before the launch."""
    ep = module.entry_point(kernel)
    size = sub_group_size(ep.execution_modes, options, CPU_DEVICE, variant)
    ls = ndrange.local_size
    if ndrange.work_dim > 1 and ls[0] % size and ls[0] * ls[1] * ls[2] > ls[0]:
        TALLY.excluded["sub-group-mapping"] += 1
        return
    ops = _opnames(module, kernel)
    for d in DIFFERENCES.values():
        if ops & d.excludes:
            TALLY.excluded[d.name] += 1
            return
    outs_initial = {id(al): init for (al, _, _), init in zip(outs, initial, strict=True)}
    wire = _wire(kargs, outs_initial)
    if wire is None:
        TALLY.excluded["image, sampler or sub-buffer argument"] += 1
        return
    dims = ndrange.work_dim
    oracle = shared()
    try:
        key = oracle.build(_spirv(module, size))
    except OracleError as exc:
        # e.g. a module importing a built-in only sgvm resolves (compiler/imports.py)
        missing = re.search(r"Symbols not found: \[ (\S+) \]", str(exc))
        TALLY.excluded["the oracle cannot build it" + (f" ({missing[1]})" if missing else "")] += 1
        return
    status, result = oracle.request(("run", key, kernel, wire, ndrange.global_size[:dims],
                                     ls[:dims], ndrange.global_offset[:dims]))
    if status != "ok":
        raise AssertionError(f"{kernel}: sgvm ran it, the oracle failed: {result}")
    TALLY.tests.add(node)
    lanes = ls[0] * ls[1] * ls[2]
    allowed = set()
    for i, ((al, dtype, _), theirs) in enumerate(zip(outs, result, strict=True)):
        ours = al.data
        if np.array_equal(ours, theirs):
            continue
        if ops & FLOAT_GROUP_ADDS and _within_float_bound(ours, theirs, np.dtype(dtype), lanes):
            allowed.add("float-reduction-order")
        elif ops & VOTES and _votes_only(ours, theirs, np.dtype(dtype)):
            allowed.add("vote-value")
        else:
            findings = _checker_findings(module, kernel, kargs, outs, initial, ndrange, options,
                                         variant)
            if findings:
                TALLY.excluded[f"undefined ({findings[0]})"] += 1
                return
            a, b = ours.view(dtype), np.asarray(theirs).view(dtype)
            where = np.flatnonzero(a != b)
            detail = (f"{kernel}: buffer #{i} differs at {where.size} element(s), first "
                      f"[{where[0]}]: sgvm {a[where[0]]!r}, oracle {b[where[0]]!r}")
            TALLY.disagreed.append((node, detail))
            raise AssertionError(detail)
    for name in allowed:
        assert name in DIFFERENCES
        TALLY.allowed[name] += 1
    if not allowed:
        TALLY.agreed += 1


def _checker_findings(module, kernel, kargs, outs, initial, ndrange, options,
                      variant) -> list[str]:
    """Run the launch again on sgvm under the checker (buffers restored first)."""
    saved = [al.data.copy() for al, _, _ in outs]
    for (al, _, _), init in zip(outs, initial, strict=True):
        al.data[:] = init
    checker = Checker(echo=False)
    try:
        launch(module, kernel, kargs, ndrange, options=options, variant=variant,
               observers=checker.observers(module, kernel))
        checker.finish()
    finally:
        for (al, _, _), data in zip(outs, saved, strict=True):
            al.data[:] = data
    return [f.category for f in checker.report.findings]
