"""tests/engine/test_kernels.py, every launch also on the oracle (conftest.py)."""

from engine.test_kernels import *  # noqa: F403
