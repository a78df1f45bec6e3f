"""Intel's ``-cl-intel-*`` build options (Intel Graphics Compiler, IGC/Options/API-Options.md,
and Intel's "OpenCL Build and Linking Options" reference).

Programs written for Intel's runtime pass them to ``clBuildProgram``; sgvm accepts
each one and says in the build log what it means here. Most tune Intel's GPU code
generator (register file, scheduling, instruction compaction, GT-Pin), which sgvm
does not have; a few are spellings of standard options and act as those.
"""

from __future__ import annotations

_NO_CODEGEN = "tunes Intel's GPU code generator; sgvm has none, no effect"

# option -> (what sgvm does with it, the standard option it stands for or "")
FLAGS: dict[str, tuple[str, str]] = {
    "-cl-intel-128-GRF-per-thread": ("selects 128 registers per hardware thread; sgvm has no register file, "
                                     "no effect", ""),
    "-cl-intel-256-GRF-per-thread": ("selects 256 registers per hardware thread; sgvm has no register file, "
                                     "no effect", ""),
    "-cl-intel-large-register-file": ("selects the large register file; sgvm has no register file, no effect", ""),
    "-cl-intel-enable-auto-large-GRF-mode": ("lets IGC choose the register-file size; sgvm has no register file, "
                                             "no effect", ""),
    "-cl-intel-greater-than-4GB-buffer-required": ("allows buffers over 4 GB; sgvm always addresses buffers with "
                                                   "64-bit offsets, no effect", ""),
    "-cl-intel-no-prera-scheduling": ("disables IGC's pre-register-allocation scheduling; " + _NO_CODEGEN, ""),
    "-cl-intel-disable-compaction": ("disables compact instruction encodings; " + _NO_CODEGEN, ""),
    "-cl-intel-disable-a64WA": ("disables a 64-bit addressing workaround; " + _NO_CODEGEN, ""),
    "-cl-intel-no-fusedCallWA": ("disables a fused-EU call workaround; " + _NO_CODEGEN, ""),
    "-cl-intel-force-global-mem-allocation": ("forces private memory into global memory; sgvm gives each "
                                              "work-item its own private region either way, no effect", ""),
    "-cl-intel-no-local-to-generic": ("promises no local pointer is cast to generic; sgvm's generic pointers "
                                      "need no such promise, no effect", ""),
    "-cl-intel-take-global-address": ("keeps addresses of program-scope globals; no effect on sgvm", ""),
    "-cl-intel-skip-fde": ("skips DWARF frame descriptions; no effect on sgvm", ""),
    "-cl-intel-debug-info": ("asks for kernel debug information; use -g for sgvm's source positions, "
                             "no effect", ""),
    "-cl-intel-collect-cost-info": ("collects loop cost estimates for Intel's tools; no effect on sgvm", ""),
    "-cl-intel-static-profile-guided-trimming": ("trims kernels by static profile; " + _NO_CODEGEN, ""),
    "-cl-intel-gtpin-rera": ("GT-Pin instrumentation interface; no effect on sgvm", ""),
    "-cl-intel-gtpin-grf-info": ("GT-Pin instrumentation interface; no effect on sgvm", ""),
    "-cl-intel-gtpin-indir-ref": ("GT-Pin instrumentation interface; no effect on sgvm", ""),
    "-cl-intel-enable-ieee-float-exception-trap": ("enables IEEE floating-point exception traps; sgvm does not "
                                                   "trap on floating-point exceptions, no effect", ""),
    "-cl-intel-fp64-gen-emu": ("emulates double precision on GPUs without it; sgvm computes doubles natively, "
                               "no effect", ""),
    "-cl-intel-fp64-gen-conv-emu": ("emulates double conversions on GPUs without them; sgvm computes doubles "
                                    "natively, no effect", ""),
    "-cl-intel-poison-unsupported-fp64-kernels": ("poisons kernels that need unsupported doubles; sgvm supports "
                                                  "doubles, no effect", ""),
    "-cl-intel-library-compilation": ("compiles a library for Intel's linker; no effect on sgvm", ""),
    "-cl-intel-emit-lib-compile-errors": ("reports library compilation errors; no effect on sgvm", ""),
    "-cl-intel-opt-disable": ("same as -cl-opt-disable", "-cl-opt-disable"),
    "-cl-intel-uniform-work-group-size": ("same as -cl-uniform-work-group-size", "-cl-uniform-work-group-size"),
    "-cl-intel-fp32-correctly-rounded-divide-sqrt": ("same as -cl-fp32-correctly-rounded-divide-sqrt",
                                                     "-cl-fp32-correctly-rounded-divide-sqrt"),
    "-cl-intel-no-subgroup-ifp": ("same as -cl-no-subgroup-ifp (no effect)", "-cl-no-subgroup-ifp"),
}

# Options with a value, as "-opt VALUE" or "-opt=VALUE".
VALUED: dict[str, str] = {
    "-cl-intel-exp-register-file-size": "sets the register count for register allocation; sgvm has no "
                                        "register file, no effect",
    "-cl-intel-large-grf-kernel": "selects the large register file for matching kernels; no effect on sgvm",
    "-cl-intel-regular-grf-kernel": "selects the regular register file for matching kernels; no effect on sgvm",
    "-cl-intel-library-compile-simd": "SIMD width of a library compilation; no effect on sgvm",
    "-cl-intel-reqd-eu-thread-count": "requires a number of EU threads; no effect on sgvm",
    "-cl-intel-gtpin-scratch-area-size": "GT-Pin scratch area size; no effect on sgvm",
}


def note(option: str, meaning: str) -> str:
    """The build-log line for one Intel option."""
    return f"note: {option}: {meaning}"
