"""The portability check: run a launch under the variants the specifications allow and
report every output that changes (docs/portability.md)."""

from .plan import KINDS, PlannedVariant, plan
from .report import (
                     Attribution,
                     LaunchReport,
                     Outcome,
                     PortabilityFinding,
                     PortabilityReport,
                     render_json,
                     render_text,
)
from .runner import PortabilityChecker, check_portability

__all__ = [
    "KINDS",
    "Attribution",
    "LaunchReport",
    "Outcome",
    "PlannedVariant",
    "PortabilityChecker",
    "PortabilityFinding",
    "PortabilityReport",
    "check_portability",
    "plan",
    "render_json",
    "render_text",
]
