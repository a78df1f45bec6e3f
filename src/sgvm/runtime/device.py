"""The device model: every limit and capability sgvm's devices report.

This is the one place these values live; ``sgvm info``, ``sgvm.cl`` device
queries, the compiler's feature macros and the engine all read them from here.
The numbers follow a current Intel GPU where the specifications leave a choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

EXTENSIONS: tuple[str, ...] = (
    "cl_khr_byte_addressable_store",
    "cl_khr_fp16",
    "cl_khr_fp64",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_3d_image_writes",
    "cl_khr_il_program",
    "cl_khr_subgroups",
    "cl_intel_subgroups",
    "cl_intel_subgroups_char",
    "cl_intel_subgroups_short",
    "cl_intel_subgroups_long",
    "cl_intel_required_subgroup_size",
    "cl_intel_subgroup_local_block_io",
    "cl_intel_spirv_subgroups",
    "cl_intel_media_block_io",
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_rotate",
    "cl_khr_integer_dot_product",
)

# CL_DEVICE_EXTENSIONS_WITH_VERSION: each text's latest version; 1.0.0 for the rest
# (OpenCL 3.0 s4.2: "extensions that do not have a version ... 1.0.0").
EXTENSION_VERSIONS: dict[str, tuple[int, int, int]] = {
    "cl_khr_integer_dot_product": (2, 0, 0),
}

# OpenCL C 3.0 optional features (cl_khr feature macros), reported as
# CL_DEVICE_OPENCL_C_FEATURES and defined by the compiler.
OPENCL_C_FEATURES: tuple[str, ...] = (
    "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
    "__opencl_c_images",
    "__opencl_c_read_write_images",
    "__opencl_c_3d_image_writes",
    "__opencl_c_fp16",
    "__opencl_c_fp64",
    "__opencl_c_int64",
    "__opencl_c_generic_address_space",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
)

SPIRV_EXTENSIONS: tuple[str, ...] = (
    "SPV_INTEL_subgroups",
    "SPV_INTEL_media_block_io",
    "SPV_KHR_subgroup_rotate",
    "SPV_KHR_integer_dot_product",
)


def make_version(major: int, minor: int, patch: int = 0) -> int:
    """CL_MAKE_VERSION (OpenCL 3.0 s3.4): 10 bits major, 10 bits minor, 12 bits patch."""
    return (major << 22) | (minor << 12) | patch


@dataclass(frozen=True)
class DeviceModel:
    """Limits and capabilities of one sgvm device (what clGetDeviceInfo reports)."""

    name: str = "sgvm CPU"
    engine: str = "numpy"  # the engine.backend that runs its launches
    vendor: str = "sgvm"
    version: str = "OpenCL 3.0 sgvm"
    driver_version: str = "0.1.0"
    opencl_c_version: str = "OpenCL C 3.0"
    il_version: str = "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3 SPIR-V_1.4 SPIR-V_1.5 SPIR-V_1.6"
    sub_group_sizes: tuple[int, ...] = (8, 16, 32)
    default_sub_group_size: int = 16
    # Which work-items form a sub-group in 2-D/3-D work-groups (runtime.variant.slot_local_ids).
    sub_group_mapping: str = "linear"
    # Work-groups that run at once: the NumPy engine runs a batch of SGVM_BATCH_LANES
    # (262,144) lanes in lock-step. Libraries size their launches by this (PyOpenCL:
    # 32 groups of 128 work-items per compute unit for element-wise kernels, 3 scan
    # intervals per compute unit); 64 fills one batch, where 1 left each work-item of
    # a big scan or sort looping over thousands of elements in 3 work-groups.
    max_compute_units: int = 64
    max_work_item_dimensions: int = 3
    max_work_item_sizes: tuple[int, int, int] = (1024, 1024, 1024)
    max_work_group_size: int = 1024
    max_num_sub_groups: int = 128  # max_work_group_size / smallest sub-group size
    local_mem_size: int = 64 * 1024
    max_constant_buffer_size: int = 64 * 1024
    max_constant_args: int = 8
    global_mem_size: int = 16 * 1024**3
    max_mem_alloc_size: int = 4 * 1024**3
    mem_base_addr_align: int = 1024  # bits
    max_parameter_size: int = 2048
    address_bits: int = 64
    image_support: bool = True
    image2d_max_width: int = 16384
    image2d_max_height: int = 16384
    image3d_max_width: int = 2048
    image3d_max_height: int = 2048
    image3d_max_depth: int = 2048
    image_max_buffer_size: int = 2**27
    image_max_array_size: int = 2048
    image_pitch_alignment: int = 4  # pixels
    max_read_image_args: int = 128
    max_write_image_args: int = 128
    max_samplers: int = 16
    printf_buffer_size: int = 4 * 1024**2
    extensions: tuple[str, ...] = EXTENSIONS
    opencl_c_features: tuple[str, ...] = OPENCL_C_FEATURES
    spirv_extensions: tuple[str, ...] = SPIRV_EXTENSIONS
    fp_config: tuple[str, ...] = field(
        default=("DENORM", "INF_NAN", "ROUND_TO_NEAREST", "ROUND_TO_ZERO", "ROUND_TO_INF", "FMA",
                 "CORRECTLY_ROUNDED_DIVIDE_SQRT")
    )


    def extensions_with_version(self) -> list[tuple[str, int]]:
        """CL_DEVICE_EXTENSIONS_WITH_VERSION: (name, CL_MAKE_VERSION) per extension."""
        return [(e, make_version(*EXTENSION_VERSIONS.get(e, (1, 0, 0)))) for e in self.extensions]


CPU_DEVICE = DeviceModel()
NATIVE_DEVICE = DeviceModel(name="sgvm native", engine="native")
# CuPy compiles every module with -ftz=true appended to the options (cupy.cuda.compiler), so
# the CUDA backend flushes single-precision denormals to zero (x * 2.0f of 1e-40 gives 0):
# its single-precision config leaves out CL_FP_DENORM, as OpenCL allows (docs/cuda.md)
CUDA_DEVICE = DeviceModel(name="sgvm CUDA", engine="cuda", fp_config=tuple(
    x for x in DeviceModel().fp_config if x != "DENORM"))
# Every device by the name SGVM_DEVICE and Device.backend use for it, the default first: the
# native backend where it can run (docs/native.md), else the NumPy engine ("cpu").
DEVICES: dict[str, DeviceModel] = {"native": NATIVE_DEVICE, "cpu": CPU_DEVICE,
                                   "cuda": CUDA_DEVICE}
ALIASES = {"numpy": "cpu"}  # the NumPy engine's device is "cpu"
