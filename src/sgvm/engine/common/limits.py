"""Run-time limits every backend enforces the same way."""

from __future__ import annotations

import os

DEFAULT_MAX_STEPS = 10_000_000


def max_steps() -> int:
    """The step budget (``SGVM_MAX_STEPS``): a launch that exceeds it raises
    ``sgvm.KernelTimeout``; each backend documents what it counts as a step."""
    return int(os.environ.get("SGVM_MAX_STEPS", DEFAULT_MAX_STEPS))
