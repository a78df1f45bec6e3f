"""The checker report and the message profile of a whole host program.

``SGVM_CHECK=1`` builds every program under the checker, ``SGVM_CHECK=portability``
under the portability check (sgvm.cl's rule: each launch's findings go to stderr;
docs/portability.md). ``SGVM_PROFILE=1`` gives every launch a message
profile; the profiles add up per kernel line and print on stderr at exit.
``sgvm exec`` also sets ``SGVM_CHECK_REPORT`` / ``SGVM_PROFILE_REPORT``: files
rewritten after each launch with the whole report, which it prints once the
program has ended (so a host that exits abruptly still gets its report).
"""

from __future__ import annotations

import atexit
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..check import portability
from ..check.finding import Report
from ..check.render import render_text
from ..visa.profile import MessageProfile

_checkers: list[Any] = []
_profile = MessageProfile()
_profiled = False
_printed = False


def _summary() -> dict[str, Any]:
    """The whole program's findings: the checker's, then the portability check's."""
    merged, port = Report(), portability.PortabilityReport()
    for checker in _checkers:
        if isinstance(checker.report, portability.PortabilityReport):
            port.launches.extend(checker.report.launches)
        else:
            merged.merge(checker.report)
    texts = ([render_text(merged, colour=False)] if len(merged) or not port.launches else []) \
        + ([portability.render_text(port)] if port.launches else [])
    return {"text": "".join(texts), "errors": merged.has_errors or port.has_errors,
            "findings": len(merged) + len(port.findings)}


def _write(path: str, payload: dict[str, Any]) -> None:
    tmp = Path(path + ".tmp")
    tmp.write_text(json.dumps(payload))
    os.replace(tmp, path)


def adopt(program: Any) -> None:
    """After a build: under ``sgvm exec`` the checker keeps its findings for the final report."""
    if program.checker is not None and os.environ.get("SGVM_CHECK_REPORT"):
        program.checker.echo = False


def after_launch(kernel: Any, result: Any) -> None:
    """Collect a finished launch's findings and profile (``result``: its LaunchResult or None)."""
    global _profiled
    checker = kernel.program.checker
    check_file = os.environ.get("SGVM_CHECK_REPORT")
    if checker is not None:
        if checker not in _checkers:
            _checkers.append(checker)
        if check_file:
            _write(check_file, _summary())
    if result is not None and getattr(result, "profile", None) is not None and profiling_forced():
        _profile.merge(result.profile)
        _profiled = True
        profile_file = os.environ.get("SGVM_PROFILE_REPORT")
        if profile_file:
            _write(profile_file, {"text": _profile.table()})


def profiling_forced() -> bool:
    """``SGVM_PROFILE``: every launch collects its message profile."""
    return os.environ.get("SGVM_PROFILE", "").strip() not in ("", "0")


def at_exit() -> None:
    """Print the summed message profile once (Python's atexit in a Python host, the C
    library's atexit in a C host, where the interpreter is never finalised)."""
    global _printed
    if _printed or not _profiled or os.environ.get("SGVM_PROFILE_REPORT"):
        return
    _printed = True
    sys.stderr.write("sgvm message profile (SGVM_PROFILE=1):\n" + _profile.table() + "\n")
    sys.stderr.flush()


def install_exit_hooks(lib: Any) -> None:
    atexit.register(at_exit)
    lib.sgvm_register_exit_hook()

