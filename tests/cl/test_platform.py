"""Platforms, devices, contexts, queues, events and profiling."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm.cl as cl
from sgvm.runtime.device import CPU_DEVICE

from .conftest import raises_cl


def test_platform_and_device_queries(monkeypatch) -> None:
    monkeypatch.delenv("SGVM_DEVICE", raising=False)  # the default device (tests/conftest.py)
    (platform,) = cl.get_platforms()
    assert platform.name == "sgvm"
    assert "FULL_PROFILE" == platform.get_info(cl.platform_info.PROFILE)
    native, dev = platform.get_devices()  # the native backend first (the default), then NumPy
    assert dev.name == CPU_DEVICE.name and native.backend == "native"
    assert cl.create_some_context().devices == [native]
    assert dev.max_work_group_size == CPU_DEVICE.max_work_group_size
    assert dev.get_info(cl.device_info.MAX_WORK_ITEM_SIZES) == list(CPU_DEVICE.max_work_item_sizes)
    assert dev.local_mem_size == CPU_DEVICE.local_mem_size
    assert dev.sub_group_sizes_intel == list(CPU_DEVICE.sub_group_sizes)
    assert "cl_intel_subgroups" in dev.extensions.split()
    assert dev.type == cl.device_type.GPU
    assert dev.platform is platform
    assert platform.get_devices(cl.device_type.CPU) == [native, dev]


def test_unknown_queries_and_device_types() -> None:
    (platform,) = cl.get_platforms()
    assert platform.get_devices(cl.device_type.ACCELERATOR) == []
    dev = platform.get_devices()[0]
    with raises_cl("CL_INVALID_VALUE"):
        dev.get_info(0x7777)
    with pytest.raises(AttributeError):
        dev.no_such_info  # noqa: B018


def test_constants_match_opencl() -> None:
    assert cl.mem_flags.READ_WRITE == 1 and cl.mem_flags.COPY_HOST_PTR == 32
    assert cl.device_info.NAME == 0x102B
    assert cl.kernel_work_group_info.WORK_GROUP_SIZE == 0x11B0
    assert cl.channel_order.RGBA == 0x10B5
    assert cl.mem_flags.to_string(4) == "READ_ONLY"
    assert cl.status_code.INVALID_KERNEL_ARGS == -52


def test_create_some_context_honours_sgvm_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGVM_DEVICE", "cpu")
    assert cl.create_some_context().devices[0].backend == "cpu"
    monkeypatch.setenv("SGVM_DEVICE", "numpy")  # another name of the NumPy engine's device
    assert cl.create_some_context().devices[0].backend == "cpu"
    monkeypatch.setenv("SGVM_DEVICE", "native")
    assert cl.create_some_context().devices[0].backend == "native"
    monkeypatch.setenv("SGVM_DEVICE", "tpu")
    with raises_cl("CL_DEVICE_NOT_FOUND"):
        cl.create_some_context()


def test_context_and_queue_info(ctx: cl.Context) -> None:
    assert ctx.num_devices == 1
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    assert q.get_info(cl.command_queue_info.CONTEXT) is ctx
    assert q.properties == cl.command_queue_properties.PROFILING_ENABLE
    with raises_cl("CL_INVALID_VALUE"):
        cl.CommandQueue(ctx, properties=1 << 10)
    with q:
        q.flush()


def test_profiling_events(ctx: cl.Context) -> None:
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    host = np.arange(1 << 16, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, host.nbytes)
    ev = cl.enqueue_copy(q, buf, host)
    ev.wait()
    p = ev.profile
    assert p.queued <= p.submit <= p.start <= p.end
    assert ev.get_profiling_info(cl.profiling_info.END) == p.end
    assert ev.command_execution_status == cl.command_execution_status.COMPLETE
    assert ev.command_type == cl.command_type.WRITE_BUFFER
    cl.wait_for_events([ev, cl.enqueue_marker(q, wait_for=[ev])])


def test_profiling_needs_the_queue_property(queue: cl.CommandQueue, ctx: cl.Context) -> None:
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16)
    ev = cl.enqueue_fill_buffer(queue, buf, np.uint32(1), 0, 16)
    with raises_cl("CL_PROFILING_INFO_NOT_AVAILABLE"):
        ev.profile.start  # noqa: B018
    with raises_cl("CL_INVALID_EVENT_WAIT_LIST"):
        cl.enqueue_marker(queue, wait_for=[object()])


KHR_SUB_GROUP_EXTENSIONS = {
    "cl_khr_subgroup_extended_types": 1, "cl_khr_subgroup_non_uniform_vote": 1,
    "cl_khr_subgroup_ballot": 1, "cl_khr_subgroup_non_uniform_arithmetic": 1,
    "cl_khr_subgroup_shuffle": 1, "cl_khr_subgroup_shuffle_relative": 1,
    "cl_khr_subgroup_clustered_reduce": 1, "cl_khr_subgroup_rotate": 1,
    "cl_intel_media_block_io": 1, "cl_intel_subgroups_short": 1,
    "cl_khr_integer_dot_product": 2,  # 2.0.0: the 8-bit acceleration properties
}


def test_extensions_with_version_lists_the_sub_group_family(capsys) -> None:
    import json

    from sgvm.cli import main

    dev = cl.get_platforms()[0].get_devices()[0]
    versions = {nv.name: nv.version for nv in dev.get_info(cl.device_info.EXTENSIONS_WITH_VERSION)}
    assert set(versions) == set(dev.get_info(cl.device_info.EXTENSIONS).split())
    for name, major in KHR_SUB_GROUP_EXTENSIONS.items():
        assert versions[name] == major << 22, name  # CL_MAKE_VERSION(major, 0, 0)
    assert dev.get_info(cl.device_info.INTEGER_DOT_PRODUCT_CAPABILITIES_KHR) == 0x3
    assert main(["info", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["devices"][0]["extensions_with_version"]
    assert listed["cl_khr_integer_dot_product"] == "2.0.0" and listed["cl_khr_subgroup_rotate"] == "1.0.0"
