"""Image block IO rules through synthetic CollectiveEvents, the report formats, the CLI,
and that a checked run computes exactly what an unchecked one does."""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import sgvm
import sgvm.cl as cl
from sgvm.check import Report, render_json, render_text
from sgvm.check.block_io import BlockIOPlugin
from sgvm.engine.cpu.collective import CollectiveEvent
from sgvm.runtime.ndrange import NDRange
from sgvm.runtime.quick import _context
from sgvm.spirv.module import SourceLocation

from .helpers import buf

LOC = SourceLocation("img.cl", 7, 3)


def _batch(G: int = 2, S: int = 16):
    """The parts of a Batch the plugins read: one work-group of G sub-groups."""
    nd = NDRange((G * S, 1, 1), (G * S, 1, 1), (0, 0, 0), 1)
    return SimpleNamespace(geom=SimpleNamespace(lanes_per_group=G * S, sub_group_size=S, ndrange=nd),
                           group_id=np.zeros((1, 3), np.int64), gid_of=lambda k: (k,),
                           inst=SimpleNamespace(location=LOC), L=G * S, live=None)


@pytest.mark.parametrize("op,diag,category,count", [
    ("OpSubgroupImageBlockWriteINTEL", {"write_misaligned": np.array([True, False])},
     "image-block-write-misaligned", 1),
    ("OpSubgroupImageBlockReadINTEL", {"texel_size_undefined": np.array([True, True])},
     "image-block-wide-format", 2),
    ("OpSubgroupImageBlockReadINTEL",
     {"oob_undefined": np.arange(32).reshape(2, 16) >= 13}, "image-block-out-of-bounds",
     3 + 16),  # lanes 13..15 of sub-group 0 and all of sub-group 1
])
def test_image_block_rules_synthetic(op, diag, category, count) -> None:
    report = Report()
    act = np.ones((2, 16), bool)
    BlockIOPlugin(report, None, "k").collective(_batch(), CollectiveEvent(op, "Subgroup", act, act,
                                                                          "", diag))
    (f,) = report.findings
    assert (f.category, f.severity, f.count, f.line) == (category, "error", count, 7)


SRC = """kernel void k(global int *out, global int *in) {
  int i = get_global_id(0);
  out[i] = in[i] / (i - 3) + intel_sub_group_shuffle(in[i], get_sub_group_local_id() + 1);
}
"""


def test_checked_results_equal_unchecked() -> None:
    ctx = _context()[0]
    outs = []
    for check in (False, True):
        prg = cl.Program(ctx, SRC).build("", check=check)
        if prg.checker:
            prg.checker.echo = False
        out = np.zeros(64, np.int32)
        sgvm.run(prg, "k", (64,), (32,), out, buf(64))
        outs.append(out)
    np.testing.assert_array_equal(*outs)


def test_text_and_json(check) -> None:
    prg = cl.Program(_context()[0], SRC).build("", check=True)
    prg.checker.echo = False
    sgvm.run(prg, "k", (64,), (32,), np.zeros(64, np.int32), buf(64))
    report = prg.checker.report
    text = render_text(report)
    assert "kernel 'k':" in text and "[shuffle-out-of-range]" in text and "\033[" not in text
    assert "There is no defined behavior for out-of-range sub_group_local_ids." in text
    doc = json.loads(render_json(report, max_findings=1))
    assert doc["total"] == 2 and len(doc["findings"]) == 1 and doc["errors"] == 1
    assert "\033[1;31m" in render_text(report, colour=True)


@pytest.mark.parametrize("body,rc", [("out[i] = in[i + 1];", 1), ("out[i] = in[i];", 0)])
def test_cli_exit_status(tmp_path, body, rc) -> None:
    k = tmp_path / "k.cl"
    k.write_text(f"kernel void k(global int *out, global int *in) {{\n"
                 f"  int i = get_global_id(0);\n  {body}\n}}\n")
    p = subprocess.run([sys.executable, "-m", "sgvm", "check", str(k), "--global", "64",
                        "--local", "32", "--arg", "out=zeros:64:int32", "--arg", "in=zeros:64:int32",
                        "--json"], capture_output=True, text=True)
    assert p.returncode == rc, p.stderr
    doc = json.loads(p.stdout)
    assert [f["category"] for f in doc["findings"]] == (["out-of-bounds"] if rc else [])
    if rc:
        assert doc["findings"][0]["file"] == str(k) and doc["findings"][0]["line"] == 3
