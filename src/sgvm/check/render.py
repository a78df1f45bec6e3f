"""The report as text (grouped by kernel and site; coloured on a terminal) or JSON."""

from __future__ import annotations

import json
import os
import textwrap
from typing import Any, TextIO

from .finding import Finding, Offender, Report

_COLOURS = {"error": "\033[1;31m", "warning": "\033[1;33m", "site": "\033[1m", "dim": "\033[2m",
            "reset": "\033[0m"}


def use_colour(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set."""
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def _who(o: Offender) -> str:
    wg = ",".join(map(str, o.work_group))
    gid = ",".join(map(str, o.global_id))
    return f"work-group ({wg}) sub-group {o.sub_group} lane {o.lane} [global id ({gid})]"


def _finding(f: Finding, c: dict[str, str]) -> list[str]:
    sev = f"{c.get(f.severity, '')}{f.severity}{c.get('reset', '')}"
    times = f", {f.events} times" if f.events > 1 else ""
    lines = [f"  {sev}: [{f.category}] {f.message}",
             f"    {f.count} work-item{'s' if f.count != 1 else ''}{times}; first: "
             + "; ".join(_who(o) for o in f.offenders)]
    quote = textwrap.fill(f'"{f.clause}"', width=96, initial_indent="      ",
                          subsequent_indent="       ")
    lines += [f"    {c.get('dim', '')}{f.document}:{c.get('reset', '')}", quote,
              f"    hint: {f.hint}"]
    return lines


def render_text(report: Report, *, max_findings: int | None = None, colour: bool = False) -> str:
    """Findings grouped by kernel, then source site."""
    c = _COLOURS if colour else {}
    findings = report.findings
    shown = findings if max_findings is None else findings[:max_findings]
    if not findings:
        return "no findings\n"
    out: list[str] = []
    kernel = site = None
    for f in shown:
        if f.kernel != kernel:
            kernel, site = f.kernel, None
            out.append(f"kernel '{kernel}':")
        if f.site != site:
            site = f.site
            out.append(f"{c.get('site', '')}{site}{c.get('reset', '')}:")
        out.extend(_finding(f, c))
    errors = sum(f.severity == "error" for f in findings)
    more = f" ({len(findings) - len(shown)} not shown)" if len(shown) < len(findings) else ""
    out.append(f"{len(findings)} finding{'s' if len(findings) != 1 else ''}: {errors} error(s), "
               f"{len(findings) - errors} warning(s){more}")
    return "\n".join(out) + "\n"


def render_json(report: Report, *, max_findings: int | None = None) -> str:
    """``{"findings": [...], "errors": n, "warnings": n}``."""
    findings = report.findings
    shown = findings if max_findings is None else findings[:max_findings]
    errors = sum(f.severity == "error" for f in findings)
    doc: dict[str, Any] = {"findings": [f.to_dict() for f in shown], "errors": errors,
                           "warnings": len(findings) - errors, "total": len(findings)}
    return json.dumps(doc, indent=2) + "\n"

