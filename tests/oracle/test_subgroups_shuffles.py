"""tests/subgroups/test_shuffles.py, every launch also on the oracle (conftest.py)."""

from subgroups.test_shuffles import *  # noqa: F403
