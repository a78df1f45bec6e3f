"""tests/subgroups/test_group_uniform.py, every launch also on the oracle (conftest.py)."""

from subgroups.test_group_uniform import *  # noqa: F403
