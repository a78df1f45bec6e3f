"""tests/subgroups/test_work_group.py, every launch also on the oracle (conftest.py)."""

from subgroups.test_work_group import *  # noqa: F403
