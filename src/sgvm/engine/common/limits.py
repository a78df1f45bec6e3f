"""Run-time limits every backend enforces the same way."""

from __future__ import annotations

from ...runtime import environment

DEFAULT_MAX_STEPS = 10_000_000


def max_steps() -> int:
    """The step budget (``SGVM_MAX_STEPS``): a launch that exceeds it raises
    ``sgvm.KernelTimeout``; each backend documents what it counts as a step."""
    value = environment.current().SGVM_MAX_STEPS
    return DEFAULT_MAX_STEPS if value is None else int(value)
