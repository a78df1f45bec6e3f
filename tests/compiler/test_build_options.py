"""Build options other runtimes accept: clang's warning controls and Intel's ``-cl-intel-*`` family."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm
from sgvm import cl
from sgvm.compiler import compile_with_log, intel_options, parse_options

# ggml's argsort.cl/rope.cl pattern: a pointer assigned across pointee types.
INCOMPATIBLE = """kernel void k(global int *out, global float *f) {
  global int *bits = f;
  out[get_global_id(0)] = bits[get_global_id(0)];
}"""


@pytest.mark.parametrize("opt", ["-w", "-Werror", "-Wall", "-Wextra", "-Wno-unused-variable",
                                 "-Wno-error=incompatible-pointer-types", "-Werror=unused-variable",
                                 "-Wno-incompatible-pointer-types"])
def test_warning_options_reach_clang(opt: str) -> None:
    assert opt in parse_options(opt).clang_args


@pytest.mark.parametrize("opt", ["-W", "-Wl,--foo", "-Wa,-x", "-Wp,-DX", "-Wno-$(rm)"])
def test_non_warning_w_options_are_refused(opt: str) -> None:
    with pytest.raises(sgvm.BuildError, match="CL_INVALID_BUILD_OPTIONS"):
        parse_options(opt)


def test_incompatible_pointer_types_build_with_warning_options() -> None:
    with pytest.raises(sgvm.BuildError, match="incompatible pointer types"):
        compile_with_log(INCOMPATIBLE)
    assert "warning: incompatible pointer types" in compile_with_log(
        INCOMPATIBLE, "-Wno-error=incompatible-pointer-types").log
    assert "incompatible" not in compile_with_log(INCOMPATIBLE, "-Wno-incompatible-pointer-types").log


def test_warning_option_through_the_host_api() -> None:
    """clBuildProgram with Intel's CPU runtime's option for ggml's kernels; the kernel then runs."""
    f = np.array([1.0, -2.5, 3.25, 0.0], np.float32)
    out = np.zeros(4, np.int32)
    sgvm.run(INCOMPATIBLE, "k", (4,), None, out, f, options="-Wno-incompatible-pointer-types")
    assert np.array_equal(out, f.view(np.int32))


def test_werror_turns_warnings_into_errors() -> None:
    src = "kernel void k(global int *a) { int unused; a[0] = 1; }"
    compile_with_log(src, "-Wall")
    with pytest.raises(sgvm.BuildError, match="unused variable"):
        compile_with_log(src, "-Wall -Werror")


def test_every_intel_option_is_accepted_with_a_note() -> None:
    words = [*intel_options.FLAGS]
    for i, name in enumerate(intel_options.VALUED):
        words += [name, "16"] if i % 2 else [f"{name}=16"]
    parsed = parse_options(words)
    for name in [*intel_options.FLAGS, *intel_options.VALUED]:
        assert any(n.startswith(f"note: {name}") for n in parsed.notes), name
    assert parsed.opt_disable and parsed.uniform_work_group_size
    assert "-cl-fp32-correctly-rounded-divide-sqrt" in parsed.clang_args


def test_intel_options_in_the_build_log() -> None:
    ctx = cl.create_some_context()
    prg = cl.Program(ctx, "kernel void k(global int *a) { a[0] = 1; }")
    prg.build("-cl-intel-256-GRF-per-thread -cl-intel-greater-than-4GB-buffer-required "
              "-cl-intel-no-prera-scheduling")
    log = prg.get_build_info(ctx.devices[0], cl.program_build_info.LOG)
    assert "note: -cl-intel-256-GRF-per-thread: selects 256 registers" in log
    assert "note: -cl-intel-greater-than-4GB-buffer-required:" in log
    assert "note: -cl-intel-no-prera-scheduling:" in log


def test_unknown_intel_option_is_refused() -> None:
    with pytest.raises(sgvm.BuildError, match="unknown build option: '-cl-intel-bogus'"):
        parse_options("-cl-intel-bogus")
    with pytest.raises(sgvm.BuildError, match="missing argument"):
        parse_options("-cl-intel-exp-register-file-size")
