"""Run-time limits every backend enforces the same way."""

from __future__ import annotations

from ...runtime import environment

DEFAULT_MAX_STEPS = 10_000_000


def max_steps(settings: environment.Settings | None = None) -> int:
    """The step budget (``SGVM_MAX_STEPS`` of ``settings``, None: the environment now): a
    launch that exceeds it raises ``sgvm.KernelTimeout``; each backend documents what it
    counts as a step."""
    value = (settings or environment.current()).SGVM_MAX_STEPS
    return DEFAULT_MAX_STEPS if value is None else int(value)
