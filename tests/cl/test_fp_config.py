"""CL_DEVICE_SINGLE/DOUBLE_FP_CONFIG say what each backend does with denormals: the NumPy
engine and the native backend keep them; the CUDA backend flushes single-precision ones (CuPy
compiles with -ftz=true; docs/cuda.md), which OpenCL allows a device that leaves
CL_FP_DENORM out of its single-precision config, and keeps double ones."""

from sgvm.cl import device_fp_config, device_info
from sgvm.cl.platform import Device, get_platforms
from sgvm.runtime.device import CPU_DEVICE, CUDA_DEVICE, NATIVE_DEVICE


def _configs(model, backend: str) -> tuple[int, int]:
    d = Device(get_platforms()[0], model, backend)
    return d.get_info(device_info.SINGLE_FP_CONFIG), d.get_info(device_info.DOUBLE_FP_CONFIG)


def test_denormals_per_backend():
    single, double = _configs(CUDA_DEVICE, "cuda")
    assert not single & device_fp_config.DENORM
    assert double & device_fp_config.DENORM
    for model, backend in ((CPU_DEVICE, "cpu"), (NATIVE_DEVICE, "native")):
        single, double = _configs(model, backend)
        assert single & device_fp_config.DENORM and double & device_fp_config.DENORM
