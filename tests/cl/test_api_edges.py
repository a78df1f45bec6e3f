"""Host API edge cases PyOpenCL scripts run into: info queries with odd parameters,
device types sgvm has no device of, host memory that is not plain data, values
that do not fit their parameter, image sizes past the device's limits."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm.cl as cl

from .conftest import raises_cl

KERNEL = "kernel void k(global int *a, int n) { a[get_global_id(0)] = n; }"


@pytest.fixture(scope="module")
def prg() -> cl.Program:
    return cl.Program(cl.create_some_context(), KERNEL).build()


@pytest.mark.parametrize("param", ["WORK_GROUP_SIZE", None, 1.5, [0x11B0], 0x7777])
def test_work_group_info_rejects_what_is_no_param(prg: cl.Program, param: object) -> None:
    knl = cl.Kernel(prg, "k")
    with raises_cl("CL_INVALID_VALUE"):
        knl.get_work_group_info(param, prg.context.devices[0])
    assert knl.get_work_group_info(np.int64(cl.kernel_work_group_info.WORK_GROUP_SIZE),
                                   prg.context.devices[0]) == prg.context.devices[0].max_work_group_size


@pytest.mark.parametrize("query", [
    lambda prg: prg.context.devices[0].get_info("NAME"),
    lambda prg: prg.get_info([1]),
    lambda prg: prg.get_build_info(prg.context.devices[0], "LOG"),
    lambda prg: cl.Kernel(prg, "k").get_info(None),
    lambda prg: cl.Kernel(prg, "k").get_arg_info(0, "NAME"),
    lambda prg: cl.Kernel(prg, "k").get_sub_group_info(None, "MAX_NUM_SUB_GROUPS"),
    lambda prg: cl.CommandQueue(prg.context).get_info({}),
])
def test_every_info_query_rejects_what_is_no_param(prg: cl.Program, query) -> None:
    with raises_cl("CL_INVALID_VALUE"):
        query(prg)


def test_arg_index_that_is_no_number(prg: cl.Program) -> None:
    knl = cl.Kernel(prg, "k")
    for index in ("0", None, 0.0):
        with raises_cl("CL_INVALID_ARG_INDEX"):
            knl.set_arg(index, np.int32(1))
        with raises_cl("CL_INVALID_ARG_INDEX"):
            knl.get_arg_info(index, cl.kernel_arg_info.NAME)


def test_device_types_without_devices_give_no_devices() -> None:
    (platform,) = cl.get_platforms()
    assert platform.get_devices(cl.device_type.ACCELERATOR) == []
    assert platform.get_devices(cl.device_type.CUSTOM) == []
    assert len(platform.get_devices(cl.device_type.ACCELERATOR | cl.device_type.GPU)) >= 1
    with raises_cl("CL_INVALID_DEVICE_TYPE"):
        platform.get_devices("GPU")
    with raises_cl("CL_INVALID_DEVICE_TYPE"):
        platform.get_devices(0)
    with raises_cl("CL_DEVICE_NOT_FOUND"):
        cl.Context(dev_type=cl.device_type.ACCELERATOR)


def test_enum_classes_expose_only_constants_and_to_string(prg: cl.Program) -> None:
    """PyOpenCL-style loops read every public name but ``to_string`` as an info key."""
    dev = prg.context.devices[0]
    for ns in (cl.device_info, cl.platform_info, cl.kernel_info, cl.program_info, cl.mem_info,
               cl.image_info, cl.mem_flags, cl.device_type, cl.channel_order, cl.profiling_info):
        public = {n for n in dir(ns) if not n.startswith("_")}
        assert {n for n in public if not isinstance(getattr(ns, n), int)} == {"to_string"}, ns.__name__
    for name in dir(cl.platform_info):
        if not name.startswith("_") and name != "to_string":
            prg.context.devices[0].platform.get_info(getattr(cl.platform_info, name))
    assert dev.name and dev.max_work_group_size > 0


@pytest.fixture(scope="module")
def objects() -> np.ndarray:
    return np.array([object() for _ in range(64)], dtype=object)


@pytest.mark.parametrize("take", [
    lambda ctx, q, a: cl.Buffer(ctx, cl.mem_flags.COPY_HOST_PTR, hostbuf=a),
    lambda ctx, q, a: cl.Buffer(ctx, cl.mem_flags.USE_HOST_PTR, hostbuf=a),
    lambda ctx, q, a: cl.Buffer(ctx, cl.mem_flags.COPY_HOST_PTR, hostbuf=memoryview(a)),
    lambda ctx, q, a: cl.enqueue_copy(q, a, cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 512)),
    lambda ctx, q, a: cl.enqueue_copy(q, cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 512), a),
    lambda ctx, q, a: cl.enqueue_fill_buffer(q, cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 512), a[:1], 0, 8),
    lambda ctx, q, a: cl.Image(ctx, cl.mem_flags.COPY_HOST_PTR,
                               cl.ImageFormat(cl.channel_order.R, cl.channel_type.UNSIGNED_INT32),
                               shape=(8, 8), hostbuf=a),
    lambda ctx, q, a: cl.enqueue_copy(q, a, cl.Image(ctx, cl.mem_flags.READ_WRITE, cl.ImageFormat(
        cl.channel_order.R, cl.channel_type.UNSIGNED_INT32), shape=(8, 8)), origin=(0, 0), region=(8, 8)),
    lambda ctx, q, a: cl.Kernel(cl.Program(ctx, KERNEL).build(), "k").set_arg(1, a[:1]),
], ids=["copy", "use", "memoryview", "read", "write", "fill", "image", "read image", "by-value"])
def test_host_memory_holding_python_objects_is_refused(objects: np.ndarray, take) -> None:
    ctx = cl.create_some_context()
    with raises_cl("CL_INVALID_VALUE") as info:
        take(ctx, cl.CommandQueue(ctx), objects)
    assert "object" in str(info.value) and "astype" in str(info.value)
    record = np.zeros(4, dtype=[("x", "f4"), ("o", "O")])
    with raises_cl("CL_INVALID_VALUE"):
        take(ctx, cl.CommandQueue(ctx), record)


def test_python_numbers_that_do_not_fit_their_parameter(prg: cl.Program) -> None:
    knl = cl.Kernel(prg, "k")
    knl.set_scalar_arg_dtypes([None, np.int32])
    for value in (2**40, -(2**31) - 1, 2.5):
        with raises_cl("CL_INVALID_ARG_VALUE") as info:
            knl.set_arg(1, value)
        assert "argument 1 ('n')" in str(info.value)
    knl.set_arg(1, -(2**31))
    knl.set_arg(1, 7.0)
    knl.set_scalar_arg_dtypes([None, np.float32])
    with raises_cl("CL_INVALID_ARG_VALUE"):
        knl.set_arg(1, 1e39)
    knl.set_arg(1, float("inf"))


@pytest.mark.parametrize(("shape", "is_array"), [
    ((2**22, 2**20), False),   # 16 TiB of RGBA float
    ((16385, 4), False),
    ((4, 4, 2049), False),
    ((4, 4, 2049), True),
    ((16385,), False),
    ((16384, 16384, 8), True),  # every size allowed, 32 TiB in all
])
def test_images_beyond_the_device_limits(shape: tuple[int, ...], is_array: bool) -> None:
    ctx = cl.create_some_context()
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    with raises_cl("CL_INVALID_IMAGE_SIZE") as info:
        cl.Image(ctx, cl.mem_flags.READ_WRITE, fmt, shape=shape, is_array=is_array)
    assert "the device allows" in str(info.value) or "MAX_MEM_ALLOC_SIZE" in str(info.value)
