"""Running one launch under the variants the specifications allow, and the host hooks.

:func:`check_portability` is the entry point every front end calls (``sgvm check
--portability``, ``Program.build(check="portability")`` / ``SGVM_CHECK=portability``
through :class:`PortabilityChecker`, and any other host layer with a module,
engine kernel arguments and an NDRange):

1. save the contents of every buffer and image argument;
2. run the baseline (sgvm's choices, or those the options and environment set), with the
   :class:`~.sharing.Sharing` observer, and keep its outputs;
3. for each planned variant (``plan``): restore the saved contents, run, compare every
   output with the baseline's;
4. only when some variant changed an output: run that variant and the baseline again
   with a :class:`~.trace.Trace` observer each, for the attributions;
5. leave the baseline's outputs in place and return its ``LaunchResult`` with the
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
from dataclasses import dataclass, field, replace
from typing import Any

from ...engine.common import limits
from ...engine.common.signature import kernel_params
from ...errors import KernelMemoryError, KernelTimeout, LogicError, UnsupportedError
from ...runtime.args import ImageArg, KernelArg, LocalArg
from ...runtime.device import CPU_DEVICE, DeviceModel
from ...runtime.launch import LaunchResult, arg_labels, launch, sub_group_size
from ...runtime.ndrange import NDRange
from ...runtime.profiles import with_all_sub_group_sizes
from ...runtime.variant import Variant, variant_from_settings
from .attribution import attributions
from .compare import Output, diff, outputs, restore, snapshot
from .plan import PlannedVariant, plan
from .report import (
    HINTS,
    LaunchReport,
    Outcome,
    PortabilityFinding,
    PortabilityReport,
    render_launch,
    severity_of,
)
from .sharing import Sharing
from .trace import Trace


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
    if device.engine == "native":  # checked launches run on the reference engine
        device = replace(device, engine="numpy")
    if device.engine != "numpy":
        raise UnsupportedError(f"the portability check runs on the CPU device, not '{device.name}' "
                               "(SGVM_DEVICE=cpu)")
    prog = program_for(module, kernel)
    params = kernel_params(module, kernel)
    labels = [name if name and not name.startswith("argument ") else label for name, label in
              zip(list(param_names or ()) + [""] * len(params), arg_labels(params, param_names),
                  strict=False)]
    runs = _Runs(module, kernel, args, ndrange, options, param_names, prog.builtin_vars,
                 outputs(list(args), params, labels, list(param_types or ()), prog))
    modes = prog.entry_point.execution_modes
    base = variant_from_settings(options, device.sub_group_mapping)
    base = replace(base, sub_group_size=sub_group_size(modes, options, device, base), seed=seed)
    sharing = Sharing()
    result = launch(module, kernel, args, ndrange, device=device, options=options,
                    param_names=param_names, variant=base,
                    observers=[*([sharing] if ndrange.total_groups > 1 else []), *observers])
    runs.final = snapshot(runs.outs)
    others = replace(base, sub_group_size=None).describe(Variant(seed=seed))
    report = LaunchReport(kernel, f"sub-group size {base.sub_group_size}"
                          + ("" if others == "default" else f", {others}"))
    report.baseline_seconds = time.perf_counter() - t0
    share = sharing.shared or _uses_images(args)
    uses_local = bool(prog.local_bytes) or any(isinstance(a, LocalArg) for a in args)
    planned = plan(module, kernel, prog, ndrange, base, required=bool(modes.get("SubgroupSize")),
                   uses_local=uses_local, groups_share=share)
    if ndrange.total_groups > 1 and not share:
        report.notes.append("work-group orders not run: no two work-groups touched the same "
                            "global memory with a write")
    if max_variants is not None and len(planned) > max_variants:
        report.not_run = [p.label for p in planned[max_variants:]]
        report.why_not_run = f"--variants {max_variants}"
        planned = planned[:max_variants]
    wide = with_all_sub_group_sizes(device)
    runs.steps = min(limits.max_steps(), 4 * result.steps + 10_000)
    changed: dict[str, list[tuple[Outcome, Trace]]] = {}
    for i, pv in enumerate(planned):
        if budget is not None and time.perf_counter() - t0 > budget:
            report.not_run = [p.label for p in planned[i:]] + report.not_run
            report.why_not_run = f"budget of {budget:g} s spent"
            break
        outcome = runs.outcome(pv, wide)
        report.ran.append(outcome)
        if outcome.changed:  # run it again, traced, for the attribution
            changed.setdefault(pv.kind, []).append((outcome, runs.traced(pv.variant, wide)[1]))
    if changed:
        trace0 = runs.traced(base, device)[1]
        for kind, items in changed.items():
            outcomes = [o for o, _ in items]
            severity, message = severity_of(kind, outcomes)
            report.findings.append(PortabilityFinding(
                kernel, kind, severity, message, HINTS[kind], outcomes,
                attributions(kind, trace0, [t for _, t in items])))
    restore(runs.outs, runs.final)
    report.seconds = time.perf_counter() - t0
    return result, report


def _uses_images(args: Sequence[KernelArg]) -> bool:
    """Image arguments: their accesses are not tracked byte by byte (``sharing``)."""
    return any(isinstance(a, ImageArg) for a in args)


@dataclass
class _Runs:
    """One launch's fixed parts, and its runs under a variant from the saved inputs."""

    module: Any
    kernel: str
    args: Sequence[KernelArg]
    ndrange: NDRange
    options: Any
    param_names: Sequence[str] | None
    builtin_vars: dict[int, str]
    outs: list[Output]
    initial: list = field(default_factory=list)
    final: list = field(default_factory=list)
    steps: int | None = None

    def __post_init__(self) -> None:
        self.initial = snapshot(self.outs)

    def run(self, variant: Variant, device: DeviceModel, observers: list) -> str:
        """Run from the saved inputs; the failure that stopped it ("" when none)."""
        restore(self.outs, self.initial)
        try:
            launch(self.module, self.kernel, self.args, self.ndrange, device=device,
                   options=self.options, param_names=self.param_names, variant=variant,
                   observers=observers, max_steps=self.steps)
        except KernelTimeout:
            return (f"ran past {self.steps} block executions (four times the baseline's): a "
                    "work-group waits for one that has not run")
        except KernelMemoryError as exc:
            return f"memory error: {exc}"
        return ""

    def traced(self, variant: Variant, device: DeviceModel) -> tuple[str, Trace]:
        trace = Trace(self.builtin_vars, self.ndrange.work_items)
        return self.run(variant, device, [trace]), trace

    def outcome(self, pv: PlannedVariant, device: DeviceModel) -> Outcome:
        """Run ``pv`` (no observers) and compare its outputs with the baseline's."""
        t = time.perf_counter()
        failure = self.run(pv.variant, device, [])
        seconds = time.perf_counter() - t
        if failure:
            return Outcome(pv.label, pv.kind, [], failure, seconds)
        now = snapshot(self.outs)
        diffs = [d for o, a, b in zip(self.outs, self.final, now, strict=True)
                 if (d := diff(o, a, b))]
        return Outcome(pv.label, pv.kind, diffs, "", seconds)


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
