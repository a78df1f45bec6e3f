"""Reaching the oracle: the vendor file, the child's environment, the sub-group size given
to it, and ``sgvm oracle info`` where it is not installed."""

from __future__ import annotations

import pytest

import sgvm
from compiler.conftest import validate
from sgvm.cli import main
from sgvm.compiler.subgroup_size import required_sizes
from sgvm.oracle import setup, with_sub_group_size

TWO_KERNELS = """
kernel void free_size(global int *o) { o[get_global_id(0)] = get_sub_group_size(); }
__attribute__((intel_reqd_sub_group_size(16)))
kernel void sixteen(global int *o) { o[get_global_id(0)] = get_sub_group_size(); }
"""


def test_sub_group_size_pinned_only_where_the_kernel_has_none(tmp_path):
    spirv = sgvm.compile(TWO_KERNELS, "-cl-std=CL2.0")
    assert required_sizes(spirv) == {"sixteen": 16}
    pinned = with_sub_group_size(spirv, 8)
    assert required_sizes(pinned) == {"sixteen": 16, "free_size": 8}
    validate(pinned, tmp_path)
    assert with_sub_group_size(pinned, 32) == pinned


def test_vendor_file_names_the_installed_library(tmp_path, monkeypatch):
    lib = tmp_path / "prefix" / "lib" / "libintelocl.so"
    lib.parent.mkdir(parents=True)
    lib.write_bytes(b"")
    monkeypatch.setattr(setup, "missing_packages", lambda: [])
    monkeypatch.setattr(setup, "runtime_library", lambda: lib)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("LD_LIBRARY_PATH", "/elsewhere")
    folder = setup.vendor_folder()
    assert folder == tmp_path / "cache" / "sgvm" / "oracle" / "vendors"
    assert (folder / "intel-cpu.icd").read_text() == f"{lib}\n"
    env = setup.environment()
    assert env["OCL_ICD_VENDORS"] == str(folder)
    assert env["LD_LIBRARY_PATH"] == f"{lib.parent}:/elsewhere"


def test_info_without_the_oracle_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setattr(setup, "missing_packages", lambda: ["intel-opencl-rt"])
    assert main(["oracle", "info"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "pip install 'sgvm[oracle]'" in err[0] and "intel-opencl-rt" in err[0]


def test_info_where_installed(capsys):
    from .conftest import UNAVAILABLE

    if UNAVAILABLE is not None:
        pytest.skip(f"oracle unavailable: {UNAVAILABLE}")
    assert main(["oracle", "info"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("oracle: works") and "cl_intel_subgroups" in out


def test_a_request_without_an_answer_times_out_and_restarts(monkeypatch):
    """A build the oracle never finishes (seen: a 40-kernel program busy for minutes)
    raises OracleTimeout after SGVM_ORACLE_TIMEOUT seconds and kills the child, so a
    campaign goes on with a fresh one instead of hanging."""
    import subprocess
    import sys
    import time

    from sgvm.oracle import Oracle, OracleTimeout

    monkeypatch.setenv("SGVM_ORACLE_TIMEOUT", "0.5")
    oracle = Oracle()
    silent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    oracle._proc = silent
    t0 = time.monotonic()
    with pytest.raises(OracleTimeout, match="no answer in 0.5 s"):
        oracle._receive()
    assert time.monotonic() - t0 < 10
    assert silent.poll() is not None and oracle._proc is None
