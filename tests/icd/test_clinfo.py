"""clinfo (Debian's package; skipped where it is not installed) lists the sgvm platform and its
device, and every query it makes either succeeds or fails the way the specification says."""

from __future__ import annotations

import shutil
import subprocess

import pytest


@pytest.mark.skipif(shutil.which("clinfo") is None, reason="clinfo is not installed (apt-get install clinfo)")
def test_clinfo_lists_the_platform_without_errors(icd_env):
    env = dict(icd_env, SGVM_VERBOSE="1")
    out = subprocess.run(["clinfo"], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = [" ".join(line.split()) for line in out.stdout.splitlines()]
    assert "Number of platforms 1" in lines
    assert "Platform Name sgvm" in lines and "Device Name sgvm CPU" in lines
    assert "Platform Version OpenCL 3.0 sgvm 0.1.0" in lines
    assert "Max sub-groups per work group 128" in lines and "Sub-group sizes (Intel) 8, 16, 32" in lines
    # the only failing calls: contexts of device types the platform has none of
    failures = [line for line in out.stderr.splitlines() if line.startswith("sgvm:")]
    assert failures and all("clCreateContextFromType" in f and "DEVICE_NOT_FOUND" in f for f in failures), failures
