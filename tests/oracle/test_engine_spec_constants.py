"""tests/engine/test_spec_constants.py, every launch also on the oracle (conftest.py)."""

from engine.test_spec_constants import *  # noqa: F403
