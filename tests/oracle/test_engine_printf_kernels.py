"""tests/engine/test_printf_kernels.py, every launch also on the oracle (conftest.py)."""

from engine.test_printf_kernels import *  # noqa: F403
