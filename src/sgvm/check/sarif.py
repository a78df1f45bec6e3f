"""SARIF 2.1.0 logs of the checker's and the portability check's findings.

SARIF (OASIS, "Static Analysis Results Interchange Format Version 2.1.0") is what
GitHub code scanning and editors' SARIF viewers read: one ``run`` whose
``tool.driver`` lists the rules (one per finding category or portability kind)
and whose ``results`` point at source lines. Levels: ``error``, ``warning`` and
``note`` (the portability check's ``info``). A result without a known source
line carries no ``region`` (SARIF: ``startLine`` is at least 1). ``artifactLocation.uri``
is "a string containing a valid relative or absolute URI" (RFC 3986): file names are
percent-encoded, so a program built from a source string, whose findings sit at
``<kernel>``, gets ``%3Ckernel%3E``.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from .. import __version__
from .clauses import CATEGORIES
from .finding import Report
from .portability.plan import KINDS
from .portability.report import HINTS, MESSAGES, Attribution, PortabilityReport

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _location(file: str, line: int, column: int = 0, message: str = "") -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": quote(file)}}
    if line >= 1:
        physical["region"] = {"startLine": line, **({"startColumn": column} if column >= 1 else {})}
    loc: dict[str, Any] = {"physicalLocation": physical}
    if message:
        loc["message"] = {"text": message}
    return loc


def _log(rules: list[dict[str, Any]], results: list[dict[str, Any]]) -> dict[str, Any]:
    driver = {"name": "sgvm", "version": __version__, "rules": rules}
    return {"$schema": SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "results": results}]}


def check_sarif(report: Report) -> dict[str, Any]:
    """The checker's report (``sgvm check``) as a SARIF log."""
    used = sorted({f.category for f in report.findings})
    rules = [{"id": c, "shortDescription": {"text": CATEGORIES[c].clause[:200]},
              "help": {"text": CATEGORIES[c].hint},
              "properties": {"document": CATEGORIES[c].document}} for c in used]
    index = {c: i for i, c in enumerate(used)}
    results = [{"ruleId": f.category, "ruleIndex": index[f.category], "level": f.severity,
                "message": {"text": f"{f.message} (kernel '{f.kernel}', {f.count} work-items)"},
                "locations": [_location(f.file, f.line, f.column)],
                "properties": {"kernel": f.kernel, "count": f.count, "events": f.events}}
               for f in report.findings]
    return _log(rules, results)


def _attribution_location(a: Attribution) -> dict[str, Any]:
    return _location(a.file, a.line, a.column, str(a))


def portability_sarif(report: PortabilityReport, source: str = "<kernel>") -> dict[str, Any]:
    """The portability report as a SARIF log: one result per finding, located at its first
    attribution (the others as ``relatedLocations``), else at ``source``."""
    used = sorted({f.kind for f in report.findings})
    rules = [{"id": f"portability/{k}", "shortDescription": {"text": f"depends on the {KINDS[k]}"},
              "fullDescription": {"text": MESSAGES[k]}, "help": {"text": HINTS[k]}} for k in used]
    index = {k: i for i, k in enumerate(used)}
    results = []
    for f in report.findings:
        located = [a for a in f.attributions if a.line >= 1]
        primary = _attribution_location(located[0]) if located else _location(source, 0)
        variants = ", ".join(o.label for o in f.outcomes)
        result: dict[str, Any] = {
            "ruleId": f"portability/{f.kind}", "ruleIndex": index[f.kind],
            "level": _LEVEL[f.severity],
            "message": {"text": f"kernel '{f.kernel}': {f.message}; changed by {variants}"
                        + (f"; {'; '.join(str(a) for a in f.attributions)}"
                           if f.attributions else "")},
            "locations": [primary],
            "properties": f.to_dict(),
        }
        if len(located) > 1:
            result["relatedLocations"] = [dict(_attribution_location(a), id=i)
                                          for i, a in enumerate(located[1:])]
        results.append(result)
    return _log(rules, results)


def write(log: dict[str, Any], path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(log, fh, indent=2)
        fh.write("\n")
