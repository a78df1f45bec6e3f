"""The native backend's build cache across processes (engine/native/compile.py): processes
sharing the cache build a library once, the others waiting for it (pytest's workers built
the differential suite's largest modules twice, side by side)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("fcntl")

CHILD = textwrap.dedent("""
    import sys, time
    from sgvm.engine.native import compile as c
    real = c._build
    def slow(source, path):  # long enough for the other process to arrive meanwhile
        with open(sys.argv[1], "a") as log:
            log.write("built\\n")
        time.sleep(1.0)
        real(source, path)
    c._build = slow
    lib = c.library('extern "C" int sgvm_answer() { return 42; }')
    print(lib.sgvm_answer())
""")


def test_two_processes_build_one_library_once(tmp_path, monkeypatch):
    monkeypatch.setenv("SGVM_CACHE_DIR", str(tmp_path / "cache"))
    log = tmp_path / "builds.log"
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(log)], stdout=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert outs == ["42", "42"]
    assert log.read_text().splitlines() == ["built"]
