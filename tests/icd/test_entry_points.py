"""The library's entry points called directly (ctypes, in this process: the embedded code reuses
the running interpreter): invalid, NULL and released handles, wrong sizes, and a Python failure
inside an entry point all come back as the OpenCL error codes the specification lists."""

from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest

from sgvm.errors import CL_ERROR_CODES as CODES

c_size_p = ctypes.POINTER(ctypes.c_size_t)


@pytest.fixture(scope="module")
def lib(icd):
    lib = ctypes.CDLL(str(icd.library))
    for name in ("clCreateContext", "clCreateCommandQueue", "clCreateBuffer", "clCreateProgramWithSource",
                 "clCreateKernel", "clSVMAlloc", "clEnqueueMapBuffer", "clCreateUserEvent"):
        getattr(lib, name).restype = ctypes.c_void_p
    return lib


@pytest.fixture(scope="module")
def platform(lib):
    p = ctypes.c_void_p()
    assert lib.clIcdGetPlatformIDsKHR(1, ctypes.byref(p), None) == 0
    return p


@pytest.fixture(scope="module")
def device(lib, platform):
    d = ctypes.c_void_p()
    assert lib.clGetDeviceIDs(platform, ctypes.c_uint64(0xFFFFFFFF), 1, ctypes.byref(d), None) == 0
    return d


@pytest.fixture(scope="module")
def context(lib, device):
    err = ctypes.c_int32(1)
    ctx = lib.clCreateContext(None, 1, ctypes.byref(device), None, None, ctypes.byref(err))
    assert err.value == 0 and ctx
    return ctypes.c_void_p(ctx)


def _name(lib, fn, handle, param) -> str:
    buf = ctypes.create_string_buffer(256)
    size = ctypes.c_size_t()
    assert fn(handle, param, 256, buf, ctypes.byref(size)) == 0
    assert size.value == len(buf.value) + 1
    return buf.value.decode()


def test_the_dispatch_table_is_the_first_member_of_every_handle(lib, platform, device, context):
    table = ctypes.cast(platform, ctypes.POINTER(ctypes.c_void_p))[0]
    for handle in (device, context):
        assert ctypes.cast(handle, ctypes.POINTER(ctypes.c_void_p))[0] == table
    # slot 1 of cl_icd_dispatch is clGetPlatformInfo: sgvm's own (-Bsymbolic), not a loader's
    slot = ctypes.cast(table, ctypes.POINTER(ctypes.c_void_p))[1]
    assert slot == ctypes.cast(lib.clGetPlatformInfo, ctypes.c_void_p).value
    get_info = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_size_t,
                                ctypes.c_void_p, c_size_p)(slot)
    assert _name(lib, get_info, platform, 0x0902) == "sgvm"


def test_extension_function_addresses(lib):
    lib.clGetExtensionFunctionAddress.restype = ctypes.c_void_p
    for name in (b"clIcdGetPlatformIDsKHR", b"clGetKernelSubGroupInfoKHR", b"clCreateBuffer"):
        assert lib.clGetExtensionFunctionAddress(name)
    assert lib.clGetExtensionFunctionAddress(b"clNoSuchFunctionKHR") is None


def test_invalid_null_and_wrong_kind_handles(lib, device, context):
    bogus = ctypes.c_void_p(0xDEADBEE0)
    size = ctypes.c_size_t()
    assert lib.clGetContextInfo(bogus, 0x1081, 0, None, ctypes.byref(size)) == CODES["CL_INVALID_CONTEXT"]
    assert lib.clGetContextInfo(None, 0x1081, 0, None, ctypes.byref(size)) == CODES["CL_INVALID_CONTEXT"]
    assert lib.clGetContextInfo(device, 0x1081, 0, None, ctypes.byref(size)) == CODES["CL_INVALID_CONTEXT"]
    assert lib.clRetainMemObject(context) == CODES["CL_INVALID_MEM_OBJECT"]
    assert lib.clReleaseKernel(None) == CODES["CL_INVALID_KERNEL"]
    assert lib.clFinish(bogus) == CODES["CL_INVALID_COMMAND_QUEUE"]


def test_sizes_and_null_pointers(lib, device, context):
    small = ctypes.create_string_buffer(2)
    assert lib.clGetDeviceInfo(device, 0x102B, 2, small, None) == CODES["CL_INVALID_VALUE"]
    assert lib.clGetDeviceInfo(device, 0x7777, 0, None, None) == CODES["CL_INVALID_VALUE"]
    err = ctypes.c_int32()
    assert lib.clCreateBuffer(context, ctypes.c_uint64(1), 0, None, ctypes.byref(err)) is None
    assert err.value == CODES["CL_INVALID_BUFFER_SIZE"]
    assert lib.clCreateBuffer(context, ctypes.c_uint64(1 << 5), 64, None, ctypes.byref(err)) is None
    assert err.value == CODES["CL_INVALID_HOST_PTR"]  # COPY_HOST_PTR without host_ptr
    assert lib.clCreateProgramWithSource(context, 1, None, None, ctypes.byref(err)) is None
    assert err.value == CODES["CL_INVALID_VALUE"]
    assert lib.clCreateBuffer(context, ctypes.c_uint64(1), 64, None, None) is not None  # errcode_ret may be NULL


def test_released_objects_and_reference_counts(lib, device, context):
    err = ctypes.c_int32()
    buf = ctypes.c_void_p(lib.clCreateBuffer(context, ctypes.c_uint64(1), 64, None, ctypes.byref(err)))
    count = ctypes.c_uint32()
    assert lib.clRetainMemObject(buf) == 0
    assert lib.clGetMemObjectInfo(buf, 0x1105, 4, ctypes.byref(count), None) == 0 and count.value == 2
    assert lib.clReleaseMemObject(buf) == 0 and lib.clReleaseMemObject(buf) == 0
    assert lib.clGetMemObjectInfo(buf, 0x1105, 4, ctypes.byref(count), None) == CODES["CL_INVALID_MEM_OBJECT"]
    assert lib.clReleaseMemObject(buf) == CODES["CL_INVALID_MEM_OBJECT"]


def test_destructor_callbacks_run_in_reverse_order(lib, context):
    err = ctypes.c_int32()
    buf = ctypes.c_void_p(lib.clCreateBuffer(context, ctypes.c_uint64(1), 64, None, ctypes.byref(err)))
    order = []
    callback = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
    first, second = callback(lambda m, d: order.append(1)), callback(lambda m, d: order.append(2))
    assert lib.clSetMemObjectDestructorCallback(buf, first, None) == 0
    assert lib.clSetMemObjectDestructorCallback(buf, second, None) == 0
    assert lib.clReleaseMemObject(buf) == 0
    assert order == [2, 1]


def test_a_kernel_fault_becomes_an_error_code_and_one_line(lib, device, context, capfd):
    err = ctypes.c_int32()
    queue = ctypes.c_void_p(lib.clCreateCommandQueue(context, device, ctypes.c_uint64(0), ctypes.byref(err)))
    src = ctypes.c_char_p(b"__kernel void f(__global int *x) { x[get_global_id(0) + 100] = 1; }")
    prg = ctypes.c_void_p(lib.clCreateProgramWithSource(context, 1, ctypes.byref(src), None, ctypes.byref(err)))
    assert lib.clBuildProgram(prg, 0, None, b"", None, None) == 0
    kernel = ctypes.c_void_p(lib.clCreateKernel(prg, b"f", ctypes.byref(err)))
    buf = ctypes.c_void_p(lib.clCreateBuffer(context, ctypes.c_uint64(1), 64, None, ctypes.byref(err)))
    assert lib.clSetKernelArg(kernel, 0, 8, ctypes.byref(buf)) == 0
    assert lib.clSetKernelArg(kernel, 0, 4, ctypes.byref(buf)) == CODES["CL_INVALID_ARG_SIZE"]
    assert lib.clSetKernelArg(kernel, 1, 8, ctypes.byref(buf)) == CODES["CL_INVALID_ARG_INDEX"]
    gsize = (ctypes.c_size_t * 1)(16)
    status = lib.clEnqueueNDRangeKernel(queue, kernel, 1, None, gsize, None, 0, None, None)
    assert status == CODES["CL_OUT_OF_RESOURCES"]
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("sgvm:")]
    assert len(lines) == 1 and "clEnqueueNDRangeKernel: KernelMemoryError" in lines[0]
    assert lib.clEnqueueNDRangeKernel(queue, kernel, 4, None, gsize, None, 0, None, None) == \
        CODES["CL_INVALID_WORK_DIMENSION"]


def test_calls_from_several_threads(lib, device, context):
    """Each thread fills its own buffer through its own queue and reads it back."""
    err = ctypes.c_int32()
    failures = []

    def work(k: int) -> None:
        queue = ctypes.c_void_p(lib.clCreateCommandQueue(context, device, ctypes.c_uint64(0), ctypes.byref(err)))
        buf = ctypes.c_void_p(lib.clCreateBuffer(context, ctypes.c_uint64(1), 4096, None, None))
        for i in range(20):
            pattern = ctypes.c_int32(k * 1000 + i)
            out = np.zeros(1024, np.int32)
            a = lib.clEnqueueFillBuffer(queue, buf, ctypes.byref(pattern), 4, 0, 4096, 0, None, None)
            b = lib.clEnqueueReadBuffer(queue, buf, 1, 0, 4096, out.ctypes.data_as(ctypes.c_void_p), 0, None, None)
            if a or b or not (out == k * 1000 + i).all():
                failures.append((k, i, a, b))
        lib.clReleaseMemObject(buf)
        lib.clReleaseCommandQueue(queue)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_a_released_queue_still_runs_its_held_commands(lib, device, context):
    err = ctypes.c_int32()
    queue = ctypes.c_void_p(lib.clCreateCommandQueue(context, device, ctypes.c_uint64(0), ctypes.byref(err)))
    gate = ctypes.c_void_p(lib.clCreateUserEvent(context, ctypes.byref(err)))
    buf = ctypes.c_void_p(lib.clCreateBuffer(context, ctypes.c_uint64(1), 64, None, None))
    pattern = ctypes.c_int32(42)
    assert lib.clEnqueueFillBuffer(queue, buf, ctypes.byref(pattern), 4, 0, 64, 1, ctypes.byref(gate), None) == 0
    assert lib.clReleaseCommandQueue(queue) == 0  # returns at once: an implicit flush, not a finish
    assert lib.clSetUserEventStatus(gate, 0) == 0
    assert lib.clSetUserEventStatus(gate, 0) == CODES["CL_INVALID_OPERATION"]  # set once only
    other = ctypes.c_void_p(lib.clCreateCommandQueue(context, device, ctypes.c_uint64(0), ctypes.byref(err)))
    out = np.zeros(16, np.int32)
    assert lib.clEnqueueReadBuffer(other, buf, 1, 0, 64, out.ctypes.data_as(ctypes.c_void_p), 0, None, None) == 0
    assert (out == 42).all()


def test_sub_group_info_and_its_khr_form(lib, device, context):
    err = ctypes.c_int32()
    src = ctypes.c_char_p(b"__attribute__((intel_reqd_sub_group_size(32))) "
                          b"__kernel void k(__global int *x) { x[0] = get_sub_group_size(); }")
    prg = ctypes.c_void_p(lib.clCreateProgramWithSource(context, 1, ctypes.byref(src), None, ctypes.byref(err)))
    assert lib.clBuildProgram(prg, 0, None, b"", None, None) == 0
    kernel = ctypes.c_void_p(lib.clCreateKernel(prg, b"k", ctypes.byref(err)))
    local = (ctypes.c_size_t * 2)(48, 2)
    for fn in (lib.clGetKernelSubGroupInfo, lib.clGetKernelSubGroupInfoKHR):
        out = ctypes.c_size_t()
        assert fn(kernel, device, 0x2033, 16, local, 8, ctypes.byref(out), None) == 0 and out.value == 32
        assert fn(kernel, device, 0x2034, 16, local, 8, ctypes.byref(out), None) == 0 and out.value == 3
        assert fn(kernel, device, 0x410A, 0, None, 8, ctypes.byref(out), None) == 0 and out.value == 32
        assert fn(kernel, device, 0x2033, 0, None, 8, ctypes.byref(out), None) == CODES["CL_INVALID_VALUE"]
    count = ctypes.c_size_t(2)
    sizes = (ctypes.c_size_t * 2)()
    got = ctypes.c_size_t()
    assert lib.clGetKernelSubGroupInfo(kernel, device, 0x11B8, 8, ctypes.byref(count), 16, sizes,
                                       ctypes.byref(got)) == 0
    assert list(sizes) == [64, 1] and got.value == 16  # two sub-groups of 32, in the dimensions asked for
