"""pytest plugin: record or replay OpenCL C builds, for machines without clang.

``SGVM_SPV_RECORD=DIR`` stores each build's SPIR-V (``KEY.spv``) and log (``KEY.json``)
under DIR, keyed by a hash of (source, options, include dirs, file name);
``SGVM_SPV_REPLAY=DIR`` answers builds from DIR. Every build goes through
``compiler.driver.compile_with_log`` (``sgvm.compile`` calls it, ``cl.Program.build``
imports it by name), so both are patched. The GPU machine has CuPy but no clang:
record here, carry DIR, replay there (docs/cuda.md, "Differential suite"). Load with
``-p spv_archive`` and ``tests/cuda`` on PYTHONPATH.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import sgvm.cl.program
import sgvm.compiler.driver as driver
from sgvm.compiler import CompileResult, ParsedOptions, parse_options
from sgvm.compiler.subgroup_size import check_sub_group_sizes

_build = driver.compile_with_log


def _key(source: str, options: str | ParsedOptions, kw: dict[str, Any]) -> str:
    text = options.text if isinstance(options, ParsedOptions) else str(options)
    extra = f"{tuple(kw.get('include_dirs', ()))}\0{kw.get('filename', '<source>')}"
    return hashlib.sha256(f"{source}\0{text}\0{extra}".encode()).hexdigest()


def _recording(source: str, options: str | ParsedOptions = "", **kw: Any) -> CompileResult:
    result = _build(source, options, **kw)
    d = Path(os.environ["SGVM_SPV_RECORD"])
    d.mkdir(parents=True, exist_ok=True)
    key = _key(source, options, kw)
    (d / f"{key}.spv").write_bytes(result.spirv)
    (d / f"{key}.json").write_text(json.dumps({"log": result.log, "line_dump": result.line_dump}))
    return result


def _replaying(source: str, options: str | ParsedOptions = "", **kw: Any) -> CompileResult:
    key = _key(source, options, kw)
    path = Path(os.environ["SGVM_SPV_REPLAY"]) / f"{key}.spv"
    if not path.exists():
        return _build(source, options, **kw)
    meta = path.with_suffix(".json")
    info = json.loads(meta.read_text()) if meta.exists() else {"log": "", "line_dump": ""}
    opts = options if isinstance(options, ParsedOptions) else parse_options(options)
    spirv = path.read_bytes()
    check_sub_group_sizes(spirv, opts)
    return CompileResult(spirv, info["log"], opts, info["line_dump"])


if os.environ.get("SGVM_SPV_RECORD"):
    driver.compile_with_log = sgvm.cl.program.compile_with_log = _recording
elif os.environ.get("SGVM_SPV_REPLAY"):
    driver.compile_with_log = sgvm.cl.program.compile_with_log = _replaying
