"""The portability report: per kernel launch, the kinds of variant that change its
outputs, how (first differing elements per output and variant) and where in the
source (the attributions of ``trace``); as text or JSON.

Severity: a variant that makes the kernel fault or run past its step budget, or
changes an output other than in the last bits of floats, is an ``error`` (the
specifications allow both results, so the kernel is not portable); floats that
differ by at most ``LAST_BITS_ULP`` units in the last place are ``info``; larger
float differences across reduction orders alone are a ``warning`` (an
ill-conditioned sum rather than a dependence on the implementation).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .compare import Difference
from .plan import KINDS

ERROR, WARNING, INFO = "error", "warning", "info"
LAST_BITS_ULP = 64

MESSAGES: dict[str, str] = {
    "sub-group-size": "the outputs depend on the sub-group size, which the kernel does not "
                      "require (intel_reqd_sub_group_size): devices choose 8, 16, 32 or others",
    "mapping": "the outputs depend on which work-items form a sub-group in this multi-dimensional "
               "work-group: the mapping is implementation-defined",
    "reduction-order": "floating-point results depend on the order of sub-group or work-group "
                       "reductions and scans, which the specifications leave open",
    "group-order": "the outputs depend on the order in which work-groups run: work-groups "
                   "communicate through global memory without atomics that make it defined",
    "memory-init": "the outputs depend on the starting contents of local or private memory: "
                   "something is read before it is written",
    "atomic-order": "the outputs depend on the order in which atomics from different work-items "
                    "take effect",
}
HINTS: dict[str, str] = {
    "sub-group-size": "require the size the kernel assumes with "
                      "__attribute__((intel_reqd_sub_group_size(N))), or use get_sub_group_size()",
    "mapping": "index by get_local_id() or a linear id instead of sub-group ids, or use a 1-D "
               "work-group",
    "reduction-order": "expect last-bit differences between devices, or reduce in a fixed order",
    "group-order": "pass data between work-groups through separate kernel launches, or with "
                   "atomics and memory_order_acq_rel (and no waiting: work-groups need not run "
                   "concurrently)",
    "memory-init": "write local and private memory before reading it",
    "atomic-order": "do not let results depend on the values atomics return, or sort them after",
}


@dataclass(frozen=True)
class Attribution:
    """A source site the differences come through: ``depends on get_sub_group_size() at k.cl:12``."""

    what: str
    relation: str  # "depends on", "through", "reads", "at"
    file: str = "<unknown>"
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        where = f" at {self.file}:{self.line}" if self.line else ""
        return f"{self.relation} {self.what}{where}"

    def to_dict(self) -> dict[str, Any]:
        return {"what": self.what, "relation": self.relation, "file": self.file, "line": self.line,
                "column": self.column, "text": str(self)}


@dataclass
class Outcome:
    """One variant's run compared with the baseline."""

    label: str
    kind: str
    differences: list[Difference] = field(default_factory=list)
    failure: str = ""  # the error that stopped the run (a fault, the step budget)
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.differences or self.failure)

    def to_dict(self) -> dict[str, Any]:
        return {"variant": self.label, "kind": self.kind, "failure": self.failure or None,
                "seconds": round(self.seconds, 4),
                "differences": [d.to_dict() for d in self.differences]}


@dataclass
class PortabilityFinding:
    """One kind of variant that changes a launch's outputs."""

    kernel: str
    kind: str
    severity: str
    message: str
    hint: str
    outcomes: list[Outcome]  # the variants of this kind that changed something
    attributions: list[Attribution] = field(default_factory=list)

    @property
    def outputs(self) -> list[str]:
        names: list[str] = []
        for o in self.outcomes:
            names.extend(d.output for d in o.differences if d.output not in names)
        return names

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "kind": self.kind, "varies": KINDS[self.kind],
                "severity": self.severity, "message": self.message, "hint": self.hint,
                "outputs": self.outputs, "attributions": [a.to_dict() for a in self.attributions],
                "variants": [o.to_dict() for o in self.outcomes]}


def severity_of(kind: str, outcomes: list[Outcome]) -> tuple[str, str]:
    """The severity of ``outcomes`` (the changed variants of one kind) and the message."""
    if any(o.failure for o in outcomes):
        return ERROR, MESSAGES[kind]
    diffs = [d for o in outcomes for d in o.differences]
    if all(d.max_ulp is not None for d in diffs):
        worst = max(d.max_ulp or 0 for d in diffs)
        if worst <= LAST_BITS_ULP:
            return INFO, (f"floating-point results differ only in the last bits (at most {worst} "
                          f"ULP) when the {KINDS[kind]} changes")
        if kind == "reduction-order":
            return WARNING, (f"{MESSAGES[kind]} (up to {worst} ULP: an ill-conditioned sum)")
    return ERROR, MESSAGES[kind]


@dataclass
class LaunchReport:
    """The portability check of one launch."""

    kernel: str
    baseline: str  # the baseline variant, described
    findings: list[PortabilityFinding] = field(default_factory=list)
    ran: list[Outcome] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)
    why_not_run: str = ""
    notes: list[str] = field(default_factory=list)  # kinds left out, and why
    baseline_seconds: float = 0.0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "baseline": self.baseline,
                "findings": [f.to_dict() for f in self.findings],
                "variants_run": [o.label for o in self.ran], "variants_not_run": self.not_run,
                "why_not_run": self.why_not_run or None, "notes": self.notes,
                "baseline_seconds": round(self.baseline_seconds, 4),
                "seconds": round(self.seconds, 4)}


class PortabilityReport:
    """Every checked launch of a program or command."""

    def __init__(self) -> None:
        self.launches: list[LaunchReport] = []

    @property
    def findings(self) -> list[PortabilityFinding]:
        return [f for r in self.launches for f in r.findings]

    def count(self, severity: str) -> int:
        return sum(f.severity == severity for f in self.findings)

    @property
    def has_errors(self) -> bool:
        return self.count(ERROR) > 0

    def to_dict(self) -> dict[str, Any]:
        return {"launches": [r.to_dict() for r in self.launches], "errors": self.count(ERROR),
                "warnings": self.count(WARNING), "infos": self.count(INFO)}


def _value(v: Any) -> str:
    return f"{v:.9g}" if isinstance(v, float) else str(v)


def _difference(d: Difference) -> str:
    first = "; ".join(f"[{i}] {_value(a)} vs {_value(b)}" for i, a, b in d.first)
    ulp = f", at most {d.max_ulp} ULP" if d.max_ulp is not None and d.max_ulp <= 1 << 16 else ""
    return f"'{d.output}': {d.count} of {d.total} elements differ{ulp}; first: {first}"


def render_launch(r: LaunchReport) -> list[str]:
    out = [f"kernel '{r.kernel}' (baseline: {r.baseline}; {len(r.ran)} variant"
           f"{'s' if len(r.ran) != 1 else ''} run in {r.seconds:.2f} s):"]
    for f in r.findings:
        out.append(f"  {f.severity}: [{f.kind}] {f.message}")
        if f.attributions:
            out.append("    " + "; ".join(str(a) for a in f.attributions))
        for o in f.outcomes:
            if o.failure:
                out.append(f"    {o.label}: {o.failure}")
            for d in o.differences:
                out.append(f"    {o.label}: {_difference(d)}")
        out.append(f"    hint: {f.hint}")
    if not r.findings:
        out.append("  no output depends on the variants run")
    if r.not_run:
        out.append(f"  not run ({r.why_not_run}): {', '.join(r.not_run)}")
    out.extend(f"  note: {n}" for n in r.notes)
    return out


def render_text(report: PortabilityReport) -> str:
    """Per launch: findings with attributions and first differences, then a summary line."""
    lines: list[str] = []
    for r in report.launches:
        lines.extend(render_launch(r))
    n = len(report.findings)
    lines.append(f"{n} portability finding{'s' if n != 1 else ''}: {report.count(ERROR)} error(s), "
                 f"{report.count(WARNING)} warning(s), {report.count(INFO)} info")
    return "\n".join(lines) + "\n"


def render_json(report: PortabilityReport) -> str:
    return json.dumps(report.to_dict(), indent=2) + "\n"
