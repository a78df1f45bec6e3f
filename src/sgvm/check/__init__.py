"""The checker: plugins that watch the CPU engine's events and report every place a
kernel relies on behaviour the specifications leave undefined (docs/checker.md).

>>> checker = Checker()
>>> launch(module, "k", args, ndrange, observers=checker.observers(module, "k"))
>>> print(render_text(checker.report))
"""

from .clauses import CATEGORIES, Category
from .finding import Finding, Offender, Report
from .render import render_json, render_text
from .runner import Checker, check_requested

__all__ = ["CATEGORIES", "Category", "Checker", "Finding", "Offender", "Report", "check_requested",
           "render_json", "render_text"]
