"""tests/engine/test_sat_conversions.py, every launch also on the oracle (conftest.py)."""

from engine.test_sat_conversions import *  # noqa: F403
