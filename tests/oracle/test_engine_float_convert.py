"""tests/engine/test_float_convert.py, every launch also on the oracle (conftest.py)."""

from engine.test_float_convert import *  # noqa: F403
