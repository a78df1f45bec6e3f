"""Running kernels under the checker: the plugin set, the Report, the host hooks.

``Checker`` owns a :class:`Report`; ``observers(module, kernel)`` gives a fresh
set of plugins for one launch (the engine's observers). ``SGVM_CHECK=1`` or
``Program.build(..., check=True)`` attach a Checker to a program: its launches
report their new findings on stderr and keep them in ``program.check_report``.
Checking builds with ``-g`` so findings carry source positions.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from .arith import ArithPlugin
from .barriers import BarrierPlugin
from .block_io import BlockIOPlugin
from .finding import Report
from .memory import MemoryPlugin
from .races import RacePlugin
from .render import render_text, use_colour
from .subgroups import SubgroupPlugin

PLUGINS = (SubgroupPlugin, BlockIOPlugin, BarrierPlugin, MemoryPlugin, RacePlugin, ArithPlugin)


PORTABILITY = "portability"


def check_mode(flag: bool | str | None = None) -> str:
    """``""`` (no check), ``"ub"`` (the checker) or ``"portability"`` (docs/portability.md):
    from ``flag`` when given (True, False or "portability"), else from ``SGVM_CHECK``
    (unset or 0/false/no/off; 1/true/yes/on; ``portability``). Anything else raises
    ValueError naming where it came from."""
    source = "check="
    if flag is None:
        flag, source = os.environ.get("SGVM_CHECK", "").strip(), "SGVM_CHECK="
        if flag.lower() in ("", "0", "false", "no", "off"):
            return ""
    if isinstance(flag, str):
        word = flag.strip().lower()
        if word == PORTABILITY:
            return PORTABILITY
        if word in ("1", "true", "yes", "on"):
            return "ub"
        raise ValueError(f"{source}{flag!r} is not a check: use 1 (the checker) or 'portability'")
    return "ub" if flag else ""


def check_requested(flag: bool | None = None) -> bool:
    """``flag`` when given, else whether ``SGVM_CHECK`` asks for the checker."""
    return check_mode(flag) == "ub"


class Checker:
    """Collects the findings of every launch it observes.

    ``echo``: write each launch's findings to stderr when it ends (the host API's
    default; ``sgvm check`` prints the whole report itself).
    """

    def __init__(self, echo: bool = True) -> None:
        self.report = Report()
        self.echo = echo
        self._launch = Report()

    def observers(self, module: Any, kernel: str) -> list[Any]:
        """Fresh plugins for one launch of ``kernel``."""
        self._launch = Report()
        return [cls(self._launch, module, kernel) for cls in PLUGINS]

    def finish(self) -> None:
        """End the launch: echo its findings and add them to ``report``."""
        if self.echo and len(self._launch):
            sys.stderr.write(render_text(self._launch, colour=use_colour(sys.stderr)))
        self.report.merge(self._launch)
