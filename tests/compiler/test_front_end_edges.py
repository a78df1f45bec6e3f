"""Front-end edges: source bytes that are not UTF-8, ``#include`` from the current directory,
damaged cache entries, diagnostics printed once, and the package metadata."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import sgvm
from sgvm import cl
from sgvm.cli import main
from sgvm.compiler import cache, compile_with_log
from sgvm.spirv import read

LATIN1 = b"// Fran\xe7ois's kernel, caf\xe9\nkernel void k(global int *a) { a[get_global_id(0)] = 7; }\n"


def test_non_utf8_source_bytes_reach_clang_unchanged() -> None:
    """clCreateProgramWithSource takes char strings; clang accepts invalid UTF-8 in comments."""
    assert read(sgvm.compile(LATIN1)).kernel_names == ["k"]
    out = np.zeros(4, np.int32)
    sgvm.run(LATIN1, "k", (4,), None, out)
    assert out.tolist() == [7] * 4
    prg = cl.Program(cl.create_some_context(), LATIN1).build()
    assert prg.get_info(cl.program_info.KERNEL_NAMES) == "k"


def test_non_utf8_string_literal_warns_and_identifier_fails_cleanly() -> None:
    log = compile_with_log(b'kernel void k(global int *a) { printf("caf\xe9"); a[0] = 1; }').log
    assert "illegal character encoding in string literal" in log
    with pytest.raises(sgvm.BuildError, match="source file is not valid UTF-8"):
        sgvm.compile(b"kernel void k(global int *a) { int caf\xe9 = 1; a[0] = caf\xe9; }")


def test_include_from_the_current_directory(tmp_path, monkeypatch) -> None:
    (tmp_path / "cwd_header.h").write_text("#define FROM_CWD 41\n")
    src = '#include "cwd_header.h"\nkernel void k(global int *a) { a[0] = FROM_CWD + 1; }\n'
    monkeypatch.chdir(tmp_path)
    out = np.zeros(1, np.int32)
    sgvm.run(src, "k", (1,), None, out)
    assert out[0] == 42


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "meta"])
def test_damaged_cache_entry_is_rebuilt(tmp_path, monkeypatch, damage: str) -> None:
    monkeypatch.setenv("SGVM_CACHE_DIR", str(tmp_path))
    src = f"kernel void k(global int *a) {{ a[0] = 3; }} // {damage}\n"
    good = sgvm.compile(src)
    (spv,) = tmp_path.glob("*/*.spv")
    if damage == "truncate":
        spv.write_bytes(spv.read_bytes()[:40])
    elif damage == "garbage":
        spv.write_bytes(bytes(range(256)) * 4)
    elif damage == "empty":
        spv.write_bytes(b"")
    else:
        spv.with_suffix(".json").write_text("[1, 2")
    assert cache.load(spv.stem) is None
    assert sgvm.compile(src) == good
    assert spv.read_bytes() == good  # the entry was rewritten
    assert cache.load(spv.stem)[0] == good


def test_required_sub_group_size_error_is_printed_once(tmp_path, capsys) -> None:
    path = tmp_path / "k7.cl"
    path.write_text("__attribute__((intel_reqd_sub_group_size(7))) kernel void k(global int *a) { a[0] = 1; }\n")
    with pytest.raises(sgvm.BuildError) as err:
        sgvm.compile(path.read_text())
    assert str(err.value).count("intel_reqd_sub_group_size(7)") == 1
    assert main(["compile", str(path), "-o", str(tmp_path / "k7.spv")]) == 1
    assert capsys.readouterr().err.count("intel_reqd_sub_group_size(7)") == 1


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")
def test_license_is_an_spdx_expression() -> None:
    """PEP 639: ``license`` is an SPDX string (the table form is deprecated by setuptools >= 77)."""
    import tomllib

    meta = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert meta["project"]["license"] == "Apache-2.0"
    assert "setuptools>=77" in meta["build-system"]["requires"]


MASKED_TRIP_COUNT = """
__attribute__((intel_reqd_sub_group_size(16)))
kernel void k(global const uint *in, global uint *out) {
  uint v2 = in[7u];
  for (uint i = 0u; i < (v2 & 3u) + 1u; i++) {
    if ((i & 7u) == 3u)
      sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0) * 8u + i] =
        intel_sub_group_shuffle_up(i * 0x9E3779B9u, v2 * 0x9E3779B9u, i % 17u);
  }
}"""


def _masked_trip_count_expected(inp: np.ndarray) -> np.ndarray:
    """shuffle_up(previous, current, delta): lane l gets current of lane l - i if l >= i,
    else previous of lane l - i + 16 (every lane's previous is i * K, current v2 * K)."""
    k, v2 = 0x9E3779B9, int(inp[7])
    out = np.full(16 * 8, 0xA5A5A5A5, np.uint32)
    for lane in range(16):
        for i in range((v2 & 3) + 1):
            out[lane * 8 + i] = (v2 * k if lane >= i else i * k) & 0xFFFFFFFF
    return out


@pytest.mark.parametrize("options", ["-cl-opt-disable", ""], ids=["O0", "O2"])
def test_loop_trip_count_from_a_masked_value(options) -> None:
    """Found by sgvm fuzz: clang 22's SPIR-V backend, after its loop strength reduction,
    wrote the trip count (v2 & 3) + 1 as ((ulong)v2 & 255) + 1 (its LLVM IR was right);
    sgvm builds with that pass off (compiler.toolchain.CODEGEN_FLAGS)."""
    inp = np.zeros(64, np.uint32)
    inp[7] = 0x515948AE  # (v2 & 3) + 1 = 3 iterations; (v2 & 255) + 1 = 175
    out = np.full(16 * 8, 0xA5A5A5A5, np.uint32)
    sgvm.run(MASKED_TRIP_COUNT, "k", (16,), (16,), inp, out, options=options)
    assert np.array_equal(out, _masked_trip_count_expected(inp))
