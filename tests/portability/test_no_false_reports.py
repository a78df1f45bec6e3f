"""No report where there is nothing to report: the project's examples and the clean twins
of the checker's tests, under every variant the check plans."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

import sgvm
import sgvm.cl as cl
from check.helpers import buf
from check.test_categories import CASES, _source
from sgvm.check.portability import runner
from sgvm.runtime.quick import _context

ROOT = Path(__file__).resolve().parents[2]

# Clean twins that assume 16 lanes: they exchange values between fixed lanes of a sub-group
# (shuffles at fixed offsets, lane 3's broadcast, a sub-group's sum, a block read by the
# sub-group's lanes), so at another size other work-items meet: the report is right.
SIZE_DEPENDENT = {"shuffle", "shuffle_down", "shuffle_up", "shuffle_xor", "source_inactive",
                  "divergent_reduce", "broadcast_not_uniform", "block_ptr_not_uniform"}


@pytest.fixture
def recorded(monkeypatch):
    """Every launch report of programs built with SGVM_CHECK=portability."""
    reports = []
    real = runner.check_portability

    def record(*args, **kwargs):
        result, report = real(*args, **kwargs)
        reports.append(report)
        return result, report

    monkeypatch.setattr(runner, "check_portability", record)
    monkeypatch.setenv("SGVM_CHECK", "portability")
    return reports


# (example module, main's keyword arguments: small sizes keep CI lean)
EXAMPLES = [("gemm_subgroup", {}), ("softmax", {"rows": 8, "n": 40}),
            ("prefix_sum", {"n": 64 * 64, "local": 64}), ("image_transpose", {}),
            ("uchar_histogram", {"n": 64 * 16})]


@pytest.mark.parametrize("name,kwargs", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_examples(recorded, name, kwargs, capsys):
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        results = importlib.import_module(name).main(**kwargs)
    finally:
        sys.path.remove(str(ROOT / "examples"))
    assert all(ok for _, ok in results)
    assert recorded and all(r.ran or r.notes for r in recorded)
    findings = [f for r in recorded for f in r.findings]
    if name == "softmax":  # float sums: the last bits change with the reduction order
        assert [(f.kind, f.severity) for f in findings] == [("reduction-order", "info")]
        assert "softmax" in capsys.readouterr().err  # echoed to stderr
    else:
        assert findings == []


def _portability_report(source: str):
    ctx, _ = _context()
    prg = cl.Program(ctx, source).build("-cl-std=CL2.0", check="portability")
    prg.checker.echo = False
    sgvm.run(prg, "k", (64,), (32,), buf(), buf())
    (report,) = prg.checker.report.launches
    assert report.ran or report.notes  # variants run, or a note why none applies
    return report


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_checker_clean_twins(case):
    report = _portability_report(_source(case[6]))
    if case[0] in SIZE_DEPENDENT:
        assert [(f.kind, f.severity) for f in report.findings] == [("sub-group-size", "error")]
        assert report.findings[0].attributions  # names a sub-group built-in or operation
    else:
        assert report.findings == []


@pytest.mark.parametrize("name", sorted(SIZE_DEPENDENT))
def test_size_dependent_twins_that_require_their_size(name):
    """The same twins, once they require the size they assume (the report's own hint), leave
    no sub-group size to vary and get no report (docs/portability.md: a kernel that requires
    a size is not varied)."""
    (case,) = [c for c in CASES if c[0] == name]
    source = "__attribute__((intel_reqd_sub_group_size(16)))\n" + _source(case[6])
    assert _portability_report(source).findings == []


def test_seeded_runs_repeat():
    """Deterministic: the same seed gives the same report."""
    ctx, _ = _context()
    src = "kernel void k(global int *c, global int *o) { o[atomic_inc(c)] = get_global_id(0); }"
    texts = []
    for _ in range(2):
        prg = cl.Program(ctx, src).build(check="portability")
        prg.checker.echo = False
        sgvm.run(prg, "k", (64,), (32,), np.zeros(1, np.int32), np.zeros(64, np.int32))
        texts.append([o.to_dict() | {"seconds": 0} for o in prg.checker.report.launches[0].ran])
    assert texts[0] == texts[1]
