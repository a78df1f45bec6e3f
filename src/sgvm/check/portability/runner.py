"""Running one launch under the variants the specifications allow, and the host hooks.

:func:`check_portability` is the entry point every front end calls (``sgvm check
--portability``, ``Program.build(check="portability")`` / ``SGVM_CHECK=portability``
through :class:`PortabilityChecker`, and any other host layer with a module,
engine kernel arguments and an NDRange):

1. save the contents of every buffer and image argument;
2. run the baseline (sgvm's choices, or those the options and environment set) with a
   :class:`~.trace.Trace` observer and keep its outputs;
3. for each planned variant (``plan``): restore the saved contents, run, compare every
   output with the baseline's, keep the trace when something changed;
4. leave the baseline's outputs in place and return its ``LaunchResult`` with the
   :class:`~.report.LaunchReport`.

Variants run with a step budget of four times the baseline's steps (plus 10,000), so
a work-group that waits for another one that has not run yet ends as a finding
instead of spinning. ``max_variants`` and ``budget`` (seconds, checked before each
variant) bound the work; what was not run is listed in the report.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ...engine.common import limits
from ...engine.common.signature import kernel_params
from ...errors import KernelMemoryError, KernelTimeout, LogicError
from ...runtime.args import KernelArg, LocalArg
from ...runtime.device import CPU_DEVICE, DeviceModel
from ...runtime.launch import LaunchResult, arg_labels, launch, sub_group_size
from ...runtime.ndrange import NDRange
from ...runtime.profiles import ALL_SUB_GROUP_SIZES
from ...runtime.variant import Variant, variant_from_settings
from .compare import diff, outputs, restore, snapshot
from .plan import FLOAT_GROUP_OPS, PlannedVariant, plan
from .report import (
    HINTS,
    Attribution,
    LaunchReport,
    Outcome,
    PortabilityFinding,
    PortabilityReport,
    render_launch,
    severity_of,
)
from .trace import Site, Trace, differing_sites, executed_sites

MAX_ATTRIBUTIONS = 3
_SCOPE_PREFIX = {"Subgroup": "sub_group", "Workgroup": "work_group"}
_OPERATION = {"Reduce": "reduce", "InclusiveScan": "scan_inclusive",
              "ExclusiveScan": "scan_exclusive"}
_INTEL = {"OpSubgroupShuffleINTEL": "intel_sub_group_shuffle",
          "OpSubgroupShuffleDownINTEL": "intel_sub_group_shuffle_down",
          "OpSubgroupShuffleUpINTEL": "intel_sub_group_shuffle_up",
          "OpSubgroupShuffleXorINTEL": "intel_sub_group_shuffle_xor",
          "OpSubgroupBlockReadINTEL": "intel_sub_group_block_read",
          "OpSubgroupBlockWriteINTEL": "intel_sub_group_block_write",
          "OpSubgroupImageBlockReadINTEL": "intel_sub_group_block_read (image)",
          "OpSubgroupImageBlockWriteINTEL": "intel_sub_group_block_write (image)"}


def _function_name(site: Site) -> str:
    """The OpenCL C name of a collective site (``sub_group_reduce_add``), else its opname."""
    op, _, operation = site.what.partition(" ")
    if op in _INTEL:
        return _INTEL[op]
    prefix = _SCOPE_PREFIX.get(site.space, "sub_group")
    if op.startswith("OpGroup") and operation in _OPERATION:
        arith = op.removeprefix("OpGroupNonUniform").removeprefix("OpGroup")[1:].lower()
        return f"{prefix}_{_OPERATION[operation]}_{arith}"
    simple = {"OpGroupAll": "all", "OpGroupAny": "any", "OpGroupBroadcast": "broadcast"}
    return f"{prefix}_{simple[op]}" if op in simple else op


def _attribution(site: Site, relation: str, what: str | None = None) -> Attribution:
    loc = site.location
    if loc is None:
        return Attribution(what or site.what, relation)
    return Attribution(what or site.what, relation, loc.file, loc.line, loc.column)


def _sites(kind: str, base: Trace, var: Trace) -> list[Attribution]:
    """The sites one changed variant's differences come through (module ``trace``)."""
    if kind in ("sub-group-size", "mapping"):
        out = [_attribution(s, "depends on" if kind == "sub-group-size" else
                            "depends on the mapping through") for s in
               differing_sites(base, var, "builtin")]
        out += [_attribution(s, "through", _function_name(s)) for s in
                executed_sites(var, "collective") if s.space == "Subgroup"]
        return out
    if kind == "reduction-order":
        return [_attribution(s, "through", _function_name(s))
                for s in executed_sites(var, "collective", FLOAT_GROUP_OPS)]
    if kind == "group-order":
        loads = differing_sites(base, var, "load", ("global", "constant"))
        return [_attribution(s, "reads", "data another work-group writes") for s in loads] or [
            _attribution(s, "through", "the atomic") for s in executed_sites(var, "atomic")]
    if kind == "memory-init":
        return [_attribution(s, "reads uninitialised", f"{s.space} memory")
                for s in differing_sites(base, var, "load", ("local", "private"))]
    return [_attribution(s, "through", "the atomic") for s in executed_sites(var, "atomic")]


def _attributions(kind: str, base: Trace, traces: list[Trace]) -> list[Attribution]:
    out: list[Attribution] = []
    for t in traces:
        out.extend(a for a in _sites(kind, base, t) if a not in out)
    return out[:MAX_ATTRIBUTIONS]


def check_portability(module: Any, kernel: str, args: Sequence[KernelArg], ndrange: NDRange, *,
                      device: DeviceModel = CPU_DEVICE, options: Any = None,
                      param_names: Sequence[str] | None = None, max_variants: int | None = None,
                      budget: float | None = None, seed: int = 0,
                      observers: Sequence[Any] = (),
                      param_types: Sequence[str] | None = None) -> tuple[LaunchResult, LaunchReport]:
    """Run ``kernel`` once as ``launch`` would, then under each variant; see the module docstring.

    Returns the baseline's LaunchResult (its outputs stay in the buffers) and the report.
    ``observers`` watch the baseline run only; ``param_types`` (the parameters' OpenCL C
    types, ``float4*``) give the element types differences are shown in."""
    from ...engine.cpu.program import program_for

    t0 = time.perf_counter()
    if kernel not in module.kernel_names:
        raise LogicError(f"no kernel named '{kernel}'", "CL_INVALID_KERNEL_NAME")
    prog = program_for(module, kernel)
    params = kernel_params(module, kernel)
    labels = [name if name and not name.startswith("argument ") else label for name, label in
              zip(list(param_names or ()) + [""] * len(params), arg_labels(params, param_names),
                  strict=False)]
    outs = outputs(list(args), params, labels, list(param_types or ()))
    initial = snapshot(outs)
    modes = prog.entry_point.execution_modes
    base = variant_from_settings(options, device.sub_group_mapping)
    base = replace(base, sub_group_size=sub_group_size(modes, options, device, base), seed=seed)
    trace0 = Trace(prog.builtin_vars, ndrange.work_items)
    result = launch(module, kernel, args, ndrange, device=device, options=options,
                    param_names=param_names, variant=base, observers=[trace0, *observers])
    final = snapshot(outs)
    others = replace(base, sub_group_size=None).describe(Variant(seed=seed))
    report = LaunchReport(kernel, f"sub-group size {base.sub_group_size}"
                          + ("" if others == "default" else f", {others}"))
    report.baseline_seconds = time.perf_counter() - t0
    uses_local = bool(prog.local_bytes) or any(isinstance(a, LocalArg) for a in args)
    planned = plan(module, kernel, prog, ndrange, base, required=bool(modes.get("SubgroupSize")),
                   uses_local=uses_local)
    if max_variants is not None and len(planned) > max_variants:
        report.not_run = [p.label for p in planned[max_variants:]]
        report.why_not_run = f"--variants {max_variants}"
        planned = planned[:max_variants]
    wide = replace(device, sub_group_sizes=ALL_SUB_GROUP_SIZES,
                   max_num_sub_groups=device.max_work_group_size // min(ALL_SUB_GROUP_SIZES))
    steps = min(limits.max_steps(), 4 * result.steps + 10_000)
    changed: dict[str, list[tuple[Outcome, Trace]]] = {}
    for i, pv in enumerate(planned):
        if budget is not None and time.perf_counter() - t0 > budget:
            report.not_run = [p.label for p in planned[i:]] + report.not_run
            report.why_not_run = f"budget of {budget:g} s spent"
            break
        outcome, trace = _run_variant(module, kernel, args, ndrange, pv, wide, options, param_names,
                                      prog, steps, outs, initial, final)
        report.ran.append(outcome)
        if outcome.changed:
            changed.setdefault(pv.kind, []).append((outcome, trace))
    restore(outs, final)
    for kind, items in changed.items():
        outcomes = [o for o, _ in items]
        severity, message = severity_of(kind, outcomes)
        report.findings.append(PortabilityFinding(
            kernel, kind, severity, message, HINTS[kind], outcomes,
            _attributions(kind, trace0, [t for _, t in items])))
    report.seconds = time.perf_counter() - t0
    return result, report


def _run_variant(module: Any, kernel: str, args: Sequence[KernelArg], ndrange: NDRange,
                 pv: PlannedVariant, device: DeviceModel, options: Any,
                 param_names: Sequence[str] | None, prog: Any, steps: int, outs: list,
                 initial: list, final: list) -> tuple[Outcome, Trace]:
    restore(outs, initial)
    trace = Trace(prog.builtin_vars, ndrange.work_items)
    t = time.perf_counter()
    failure = ""
    try:
        launch(module, kernel, args, ndrange, device=device, options=options,
               param_names=param_names, variant=pv.variant, observers=[trace], max_steps=steps)
    except KernelTimeout:
        failure = (f"ran past {steps} block executions (four times the baseline's): a work-group "
                   "waits for one that has not run")
    except KernelMemoryError as exc:
        failure = f"memory error: {exc}"
    seconds = time.perf_counter() - t
    if failure:
        return Outcome(pv.label, pv.kind, [], failure, seconds), trace
    now = snapshot(outs)
    diffs = [d for o, a, b in zip(outs, final, now, strict=True) if (d := diff(o, a, b))]
    return Outcome(pv.label, pv.kind, diffs, "", seconds), trace


class PortabilityChecker:
    """Attached to a program by ``Program.build(check="portability")`` or
    ``SGVM_CHECK=portability``: each launch runs through :func:`check_portability`; reports
    go to stderr (``echo``) and accumulate in ``report``. ``SGVM_CHECK_VARIANTS`` and
    ``SGVM_CHECK_BUDGET`` bound each launch's variants and seconds."""

    def __init__(self, echo: bool = True, max_variants: int | None = None,
                 budget: float | None = None, seed: int = 0) -> None:
        self.report = PortabilityReport()
        self.echo = echo
        env_variants = os.environ.get("SGVM_CHECK_VARIANTS", "").strip()
        env_budget = os.environ.get("SGVM_CHECK_BUDGET", "").strip()
        self.max_variants = max_variants if max_variants is not None else (
            int(env_variants) if env_variants.isdigit() else None)
        self.budget = budget if budget is not None else (float(env_budget) if env_budget else None)
        self.seed = seed

    def launch(self, module: Any, kernel: str, args: Sequence[KernelArg], ndrange: NDRange,
               **kwargs: Any) -> LaunchResult:
        """``runtime.launch.launch`` with the portability check (keyword arguments pass on)."""
        result, report = check_portability(module, kernel, args, ndrange,
                                           max_variants=self.max_variants, budget=self.budget,
                                           seed=self.seed, **kwargs)
        self.report.launches.append(report)
        if self.echo and report.findings:
            sys.stderr.write("\n".join(render_launch(report)) + "\n")
        return result
