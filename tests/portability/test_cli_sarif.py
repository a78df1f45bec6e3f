"""``sgvm check --portability``, ``--json`` and ``--sarif`` (both reports), ``sgvm run --as``.

The SARIF logs are validated against the SARIF 2.1.0 schema's definitions of every object
sgvm writes (sarif_schema.py: no PyPI package ships the schema file, so its rules are
written out there)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from sgvm.cli import main

from .sarif_schema import SarifError, validate

GEMV = """kernel void gemv8(global const float *a, global const float *x, global float *y) {
  int lane = get_sub_group_local_id();
  float v = a[get_global_id(0)] * x[lane % 8];
  float s = 0;
  for (int k = 0; k < 8; k++)
    s += intel_sub_group_shuffle(v, k);
  y[get_global_id(0)] = s;
}
"""
SHUFFLE = """kernel void k(global int *out, global const int *in) {
  int i = get_global_id(0);
  out[i] = intel_sub_group_shuffle(in[i], get_sub_group_local_id() + 4);
}
"""
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("port")
    (d / "gemv.cl").write_text(GEMV)
    (d / "shuffle.cl").write_text(SHUFFLE)
    np.save(d / "a.npy", np.arange(64, dtype=np.float32))
    np.save(d / "x.npy", np.arange(1, 9, dtype=np.float32))
    return d


def _gemv(d: Path, *extra: str) -> list[str]:
    return [str(d / "gemv.cl"), "-g", "64", "-l", "32", "--arg", f"a={d / 'a.npy'}",
            "--arg", f"x={d / 'x.npy'}", "--arg", "y=zeros:64:float32", *extra]


def test_portability_text_json_sarif(files, capsys):
    sarif = files / "gemv.sarif"
    assert main(["check", "--portability", *_gemv(files, "--sarif", str(sarif))]) == 1
    text = capsys.readouterr().out
    assert "error: [sub-group-size]" in text
    assert f"depends on get_sub_group_local_id() at {files / 'gemv.cl'}:2" in text
    assert "sub-group-size 8: 'y': 32 of 64 elements differ" in text
    log = json.loads(sarif.read_text())
    validate(log)
    (res,) = log["runs"][0]["results"]
    assert res["ruleId"] == "portability/sub-group-size" and res["level"] == "error"
    region = res["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 2
    assert res["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 6
    assert main(["check", "--portability", "--json", *_gemv(files)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["errors"] == 1 and doc["launches"][0]["findings"][0]["kind"] == "sub-group-size"


def test_portability_variant_limit(files, capsys):
    assert main(["check", "--portability", "--variants", "0", *_gemv(files)]) == 0
    out = capsys.readouterr().out
    assert "not run (--variants 0): sub-group-size 4, sub-group-size 8" in out


def test_variants_without_portability_is_a_usage_error(files, capsys):
    assert main(["check", "--variants", "3", *_gemv(files)]) != 0
    assert "--variants and --budget go with --portability" in capsys.readouterr().err


def test_checker_sarif(files, capsys):
    sarif = files / "shuffle.sarif"
    assert main(["check", str(files / "shuffle.cl"), "-g", "32", "-l", "32",
                 "--arg", "out=zeros:32:int32", "--arg", "in=zeros:32:int32",
                 "--sarif", str(sarif)]) == 1
    capsys.readouterr()
    log = json.loads(sarif.read_text())
    validate(log)
    (res,) = log["runs"][0]["results"]
    assert res["ruleId"] == "shuffle-out-of-range" and res["level"] == "error"
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == str(files / "shuffle.cl")
    assert loc["region"]["startLine"] == 3


def test_run_as_intel_cpu(files, capsys, tmp_path):
    src = tmp_path / "ids.cl"
    src.write_text("kernel void k(global int *o) {\n  o[get_global_id(1) * 5 + get_global_id(0)]"
                   " = get_sub_group_id();\n}\n")
    args = ["run", str(src), "-g", "5,7", "-l", "5,7", "--arg", "o=zeros:35:int32", "--print", "o"]
    assert main([*args, "--as", "intel-cpu"]) == 0
    rows = [int(v) for v in re.findall(r"-?\d+", capsys.readouterr().out.split("=", 1)[1])]
    assert main(args) == 0
    linear = [int(v) for v in re.findall(r"-?\d+", capsys.readouterr().out.split("=", 1)[1])]
    assert rows == [y for y in range(7) for _ in range(5)]  # each row its own sub-group
    assert linear == [i // 16 for i in range(35)]
    assert os.environ.get("SGVM_PROFILE_DEVICE") is None  # --as does not outlive the command


def test_exec_report_file(monkeypatch, tmp_path):
    """Under ``sgvm exec`` (SGVM_CHECK_REPORT) the whole program's portability findings go to
    the report file beside the checker's."""
    import sgvm
    import sgvm.cl as cl
    from sgvm.icd import exit_report
    from sgvm.runtime.quick import _context

    monkeypatch.setattr(exit_report, "_checkers", [])
    path = tmp_path / "report.json"
    monkeypatch.setenv("SGVM_CHECK_REPORT", str(path))
    ctx, _ = _context()
    prg = cl.Program(ctx, GEMV).build(check="portability")
    exit_report.adopt(prg)
    assert prg.checker.echo is False
    a, x = np.arange(64, dtype=np.float32), np.arange(1, 9, dtype=np.float32)
    result = sgvm.run(prg, "gemv8", (64,), (32,), a, x, np.zeros(64, np.float32))
    exit_report.after_launch(cl.Kernel(prg, "gemv8"), result)
    doc = json.loads(path.read_text())
    assert doc["errors"] is True and doc["findings"] == 1
    assert "error: [sub-group-size]" in doc["text"] and "1 portability finding" in doc["text"]


def _minimal_log() -> dict:
    location = {"physicalLocation": {"artifactLocation": {"uri": "k.cl"}, "region": {"startLine": 3}}}
    result = {"ruleId": "r", "ruleIndex": 0, "level": "error", "message": {"text": "m"},
              "locations": [location]}
    driver = {"name": "sgvm", "version": "1", "rules": [{"id": "r", "help": {"text": "h"}}]}
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "results": [result]}]}


def _result(log: dict) -> dict:
    return log["runs"][0]["results"][0]


BROKEN = {
    "version 2.0.0": (lambda g: g.update(version="2.0.0"), "one of 2.1.0"),
    "no runs": (lambda g: g.pop("runs"), "a sarifLog requires 'runs'"),
    "no driver name": (lambda g: g["runs"][0]["tool"]["driver"].pop("name"), "requires 'name'"),
    "extra run property": (lambda g: g["runs"][0].update(rules=[]), "'rules' is not a property of run"),
    "duplicate rules": (lambda g: g["runs"][0]["tool"]["driver"]["rules"].append({"id": "r", "help": {"text": "h"}}),
                        "uniqueItems"),
    "rule help without text": (lambda g: g["runs"][0]["tool"]["driver"]["rules"][0].update(help={}),
                               "requires 'text'"),
    "no message": (lambda g: _result(g).pop("message"), "a result requires 'message'"),
    "empty message": (lambda g: _result(g).update(message={}), "needs one of text, id"),
    "level fatal": (lambda g: _result(g).update(level="fatal"), "not 'fatal'"),
    "ruleIndex -2": (lambda g: _result(g).update(ruleIndex=-2), "at least -1"),
    "startLine 0": (lambda g: _result(g)["locations"][0]["physicalLocation"]["region"].update(startLine=0),
                    "at least 1"),
    "region without start": (lambda g: _result(g)["locations"][0]["physicalLocation"].update(region={}),
                             "needs one of startLine, charOffset, byteOffset"),
    "physicalLocation without artifact": (
        lambda g: _result(g)["locations"][0]["physicalLocation"].pop("artifactLocation"),
        "needs one of address, artifactLocation"),
    "uri with <>": (lambda g: _result(g)["locations"][0]["physicalLocation"]["artifactLocation"].update(
        uri="<kernel>"), "not an RFC 3986 URI reference"),
    "relative $schema": (lambda g: g.update({"$schema": "sarif.json"}), "not an absolute URI"),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_the_schema_rules_reject_a_broken_log(name):
    log = _minimal_log()
    validate(log)
    change, words = BROKEN[name]
    change(log)
    with pytest.raises(SarifError, match=re.escape(words)):
        validate(log)


def test_sarif_of_a_program_built_from_a_string():
    """Programs built from source strings have no file: their findings sit at ``<kernel>``,
    which SARIF's artifactLocation.uri (an RFC 3986 URI reference) must carry escaped."""
    import sgvm
    import sgvm.cl as cl
    from sgvm.check import sarif
    from sgvm.runtime.quick import _context

    ctx, _ = _context()
    oob = cl.Program(ctx, "kernel void k(global int *o) {\n  o[get_global_id(0) + 1] = 1;\n}\n").build(check=True)
    oob.checker.echo = False
    sgvm.run(oob, "k", (32,), (32,), np.zeros(32, np.int32))
    log = sarif.check_sarif(oob.checker.report)
    validate(log)
    (res,) = log["runs"][0]["results"]
    assert res["ruleId"] == "out-of-bounds"
    assert res["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": "%3Ckernel%3E"},
                                                       "region": {"startLine": 2, "startColumn": 27}}  # the store's =
    port = cl.Program(ctx, GEMV).build(check="portability")
    port.checker.echo = False
    sgvm.run(port, "gemv8", (64,), (32,), np.arange(64, dtype=np.float32),
             np.arange(1, 9, dtype=np.float32), np.zeros(64, np.float32))
    log = sarif.portability_sarif(port.checker.report)
    validate(log)
    (res,) = log["runs"][0]["results"]
    assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "%3Ckernel%3E"
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
