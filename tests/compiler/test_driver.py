"""compile(): options, includes, diagnostics, macros, cache, clang discovery, CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sgvm
from sgvm.cli import main as cli_main
from sgvm.compiler import compile_with_log, driver, parse_options
from sgvm.compiler.imports import demangle_name
from sgvm.runtime.device import CPU_DEVICE

from .conftest import disassemble

OK = "kernel void k(global int *p) { p[0] = 1; }\n"


def test_build_error_points_at_user_file() -> None:
    src = "kernel void k(global int *p) {\n  p[0] = undefined_name;\n}\n"
    with pytest.raises(sgvm.BuildError) as err:
        sgvm.compile(src, filename="my_kernel.cl")
    log = err.value.log
    assert "my_kernel.cl:2:10: error: use of undeclared identifier 'undefined_name'" in log
    assert "  p[0] = undefined_name;" in log and "^" in log
    assert "source.cl" not in log and "sgvm-build-" not in log
    assert err.value.code_name == "CL_BUILD_PROGRAM_FAILURE"


def test_defines_and_std() -> None:
    src = "#if __OPENCL_C_VERSION__ != 200 || VALUE != 7\n#error wrong\n#endif\n" + OK
    sgvm.compile(src, "-cl-std=CL2.0 -DVALUE=7")
    sgvm.compile(src, ["-cl-std=CL2.0", "-D", "VALUE=7"])
    with pytest.raises(sgvm.BuildError):
        sgvm.compile(src, "-DVALUE=7")  # default is CL1.2


def test_default_std_is_cl12() -> None:
    assert parse_options("").cl_std == "CL1.2"
    sgvm.compile("#if __OPENCL_C_VERSION__ != 120\n#error\n#endif\n" + OK)


def test_includes(tmp_path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "a.h").write_text("#define FROM_I 1\n")
    (tmp_path / "b.h").write_text("#define FROM_SRC_DIR 2\n")
    src = '#include "a.h"\n#include "b.h"\n#if FROM_I + FROM_SRC_DIR != 3\n#error\n#endif\n' + OK
    sgvm.compile(src, f"-I{tmp_path / 'inc'}", filename=str(tmp_path / "k.cl"))
    sgvm.compile(src, include_dirs=[str(tmp_path / "inc")], filename=str(tmp_path / "k.cl"))
    with pytest.raises(sgvm.BuildError, match="a.h"):
        sgvm.compile(src, filename=str(tmp_path / "k.cl"))


def test_unknown_option() -> None:
    with pytest.raises(sgvm.BuildError, match="CL_INVALID_BUILD_OPTIONS") as err:
        sgvm.compile(OK, "-cl-fast-relaxed-math -fno-such-thing")
    assert "-fno-such-thing" in str(err.value)
    with pytest.raises(sgvm.BuildError, match="CL_INVALID_BUILD_OPTIONS"):
        parse_options("-cl-std=CL9.9")


def test_parse_options_fields() -> None:
    o = parse_options("-sgvm-sub-group-size=16 -cl-uniform-work-group-size -cl-opt-disable -DA -I /x "
                      "-cl-mad-enable -cl-kernel-arg-info -w -Werror")
    assert o.sgvm == {"sub-group-size": "16"}
    assert o.uniform_work_group_size and o.opt_disable and o.kernel_arg_info and o.allow_contraction
    assert o.defines == ["A"] and o.include_dirs == ["/x"]
    assert not any(a.startswith("-sgvm") for a in o.clang_args)
    assert parse_options("-cl-std=CL2.0").uniform_work_groups_required is False


def test_sgvm_options_do_not_reach_clang() -> None:
    res = compile_with_log(OK, "-sgvm-sub-group-size=32")
    assert res.options.sgvm["sub-group-size"] == "32"


def test_feature_and_extension_macros() -> None:
    checks = "".join(f"#ifndef {e}\n#error missing {e}\n#endif\n" for e in CPU_DEVICE.extensions)
    for std in ("CL1.2", "CL2.0", "CL3.0"):
        sgvm.compile(checks + OK, f"-cl-std={std} -Werror")
    features = "".join(f"#ifndef {f}\n#error missing {f}\n#endif\n" for f in CPU_DEVICE.opencl_c_features)
    sgvm.compile(features + "#if !__IMAGE_SUPPORT__ || !__ENDIAN_LITTLE__ || !defined(CL_VERSION_3_0) || __OPENCL_VERSION__ != 300\n#error\n"
                 "#endif\n" + OK, "-cl-std=CL3.0 -Werror")
    # extensions the device does not have are not advertised
    sgvm.compile("#ifdef cl_khr_subgroup_named_barrier\n#error\n#endif\n" + OK, "-cl-std=CL3.0")


def test_fp_contraction(tmp_path) -> None:
    src = "kernel void k(global float *p) { p[0] = p[1] * p[2] + p[3]; }"
    assert " fma " not in disassemble(sgvm.compile(src), tmp_path)
    assert " fma " in disassemble(sgvm.compile(src, "-cl-mad-enable"), tmp_path)


def test_warnings_are_kept_in_log() -> None:
    res = compile_with_log("kernel void k(global int *p) { p[0] == 1; }")
    assert "warning" in res.log and isinstance(res.spirv, bytes)
    assert compile_with_log("kernel void k(global int *p) { p[0] == 1; }").log == res.log
    with pytest.raises(sgvm.BuildError):
        sgvm.compile("kernel void k(global int *p) { p[0] == 1; }", "-Werror")


def test_cache_hit_does_not_run_clang(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("SGVM_CACHE_DIR", str(tmp_path))
    (tmp_path / "h.h").write_text("#define V 1\n")
    src = '#include "h.h"\nkernel void k(global int *p) { p[0] = V; }\n'
    first = sgvm.compile(src, filename=str(tmp_path / "k.cl"))

    def no_clang(*args, **kwargs):
        raise AssertionError("clang was run on a cache hit")

    monkeypatch.setattr(driver.subprocess, "run", no_clang)
    assert sgvm.compile(src, filename=str(tmp_path / "k.cl")) == first
    (tmp_path / "h.h").write_text("#define V 2\n")  # an include changed: rebuild
    with pytest.raises(AssertionError, match="cache hit"):
        sgvm.compile(src, filename=str(tmp_path / "k.cl"))


def test_sgvm_clang_override(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("SGVM_CLANG", str(tmp_path / "no-such-clang"))
    with pytest.raises(sgvm.BuildError, match="no such file"):
        sgvm.compile(OK + "// uncached\n")
    fake = tmp_path / "clang"
    fake.write_text("#!/bin/sh\necho 'clang version 14.0.0'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("SGVM_CLANG", str(fake))
    with pytest.raises(sgvm.BuildError, match="need clang >= 18"):
        sgvm.compile(OK + "// uncached 2\n")


def test_demangle() -> None:
    assert demangle_name("_Z9mem_fencej") == "mem_fence"
    assert demangle_name("_Z23get_image_channel_order14ocl_image2d_ro") == "get_image_channel_order"
    assert demangle_name("__to_global") == "__to_global"


def test_cli(tmp_path, capsys) -> None:
    (tmp_path / "k.cl").write_text("kernel void k(global int *p) { p[0] = N; }\n")
    out = tmp_path / "k.spv"
    assert cli_main(["compile", str(tmp_path / "k.cl"), "-o", str(out), "-DN=3", "-cl-std=CL2.0"]) == 0
    assert out.read_bytes()[:4] == b"\x03\x02\x23\x07"
    assert cli_main(["compile", str(tmp_path / "k.cl"), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "k.cl:1:39: error" in err and "sgvm: error: build failed" in err
    assert cli_main(["compile", str(tmp_path / "k.cl"), "-bogus"]) == 1


def test_cli_subprocess(tmp_path) -> None:
    (tmp_path / "k.cl").write_text(OK)
    proc = subprocess.run([sys.executable, "-m", "sgvm", "compile", "k.cl"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "k.spv").exists()
