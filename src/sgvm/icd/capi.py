"""The OpenCL 3.0 C API as sgvm's installable client driver exports it.

``TYPES`` are the Khronos ``cl.h`` type definitions the entry points use and
``ENTRY_POINTS`` their prototypes, written out here (no system headers are
needed). ``DISPATCH_ORDER`` is the member order of the Khronos ICD loader's
``struct _cl_icd_dispatch`` (``CL/cl_icd.h``): cl_khr_icd says "the first
member of every object is a pointer to the dispatch table", and the loader
calls through slot *i* for the *i*-th name, so this list must match it exactly.
Slots naming a function sgvm does not export (GL, Direct3D, EGL sharing) are NULL.
"""

from __future__ import annotations

import re

TYPES = """
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef uint32_t cl_bool;
typedef cl_ulong cl_bitfield;
typedef cl_bitfield cl_device_type;
typedef cl_uint cl_platform_info;
typedef cl_uint cl_device_info;
typedef cl_bitfield cl_command_queue_properties;
typedef intptr_t cl_device_partition_property;
typedef intptr_t cl_context_properties;
typedef cl_uint cl_context_info;
typedef cl_bitfield cl_queue_properties;
typedef cl_uint cl_command_queue_info;
typedef cl_uint cl_channel_order;
typedef cl_uint cl_channel_type;
typedef cl_bitfield cl_mem_flags;
typedef cl_bitfield cl_svm_mem_flags;
typedef cl_uint cl_mem_object_type;
typedef cl_uint cl_mem_info;
typedef cl_bitfield cl_mem_migration_flags;
typedef cl_uint cl_image_info;
typedef cl_uint cl_buffer_create_type;
typedef cl_uint cl_addressing_mode;
typedef cl_uint cl_filter_mode;
typedef cl_uint cl_sampler_info;
typedef cl_bitfield cl_map_flags;
typedef intptr_t cl_pipe_properties;
typedef cl_uint cl_pipe_info;
typedef cl_uint cl_program_info;
typedef cl_uint cl_program_build_info;
typedef cl_uint cl_kernel_info;
typedef cl_uint cl_kernel_arg_info;
typedef cl_uint cl_kernel_work_group_info;
typedef cl_uint cl_kernel_sub_group_info;
typedef cl_uint cl_event_info;
typedef cl_uint cl_profiling_info;
typedef cl_bitfield cl_sampler_properties;
typedef cl_uint cl_kernel_exec_info;
typedef cl_ulong cl_mem_properties;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;
typedef struct _cl_sampler *cl_sampler;
typedef struct _cl_image_format { cl_channel_order image_channel_order; cl_channel_type image_channel_data_type; }
    cl_image_format;
typedef struct _cl_image_desc {
    cl_mem_object_type image_type; size_t image_width; size_t image_height; size_t image_depth;
    size_t image_array_size; size_t image_row_pitch; size_t image_slice_pitch;
    cl_uint num_mip_levels; cl_uint num_samples; cl_mem mem_object;
} cl_image_desc;
typedef struct _cl_buffer_region { size_t origin; size_t size; } cl_buffer_region;
typedef struct _cl_name_version { cl_uint version; char name[64]; } cl_name_version;
"""

# One prototype per line (cl.h signatures); the names are the exported symbols.
ENTRY_POINTS = """
cl_int clGetPlatformIDs(cl_uint, cl_platform_id *, cl_uint *);
cl_int clIcdGetPlatformIDsKHR(cl_uint, cl_platform_id *, cl_uint *);
cl_int clGetPlatformInfo(cl_platform_id, cl_platform_info, size_t, void *, size_t *);
cl_int clGetDeviceIDs(cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *);
cl_int clGetDeviceInfo(cl_device_id, cl_device_info, size_t, void *, size_t *);
cl_int clCreateSubDevices(cl_device_id, const cl_device_partition_property *, cl_uint, cl_device_id *, cl_uint *);
cl_int clRetainDevice(cl_device_id);
cl_int clReleaseDevice(cl_device_id);
cl_int clGetDeviceAndHostTimer(cl_device_id, cl_ulong *, cl_ulong *);
cl_int clGetHostTimer(cl_device_id, cl_ulong *);
cl_context clCreateContext(const cl_context_properties *, cl_uint, const cl_device_id *, void (*)(const char *, const void *, size_t, void *), void *, cl_int *);
cl_context clCreateContextFromType(const cl_context_properties *, cl_device_type, void (*)(const char *, const void *, size_t, void *), void *, cl_int *);
cl_int clRetainContext(cl_context);
cl_int clReleaseContext(cl_context);
cl_int clGetContextInfo(cl_context, cl_context_info, size_t, void *, size_t *);
cl_int clSetContextDestructorCallback(cl_context, void (*)(cl_context, void *), void *);
cl_command_queue clCreateCommandQueue(cl_context, cl_device_id, cl_command_queue_properties, cl_int *);
cl_command_queue clCreateCommandQueueWithProperties(cl_context, cl_device_id, const cl_queue_properties *, cl_int *);
cl_int clSetDefaultDeviceCommandQueue(cl_context, cl_device_id, cl_command_queue);
cl_int clRetainCommandQueue(cl_command_queue);
cl_int clReleaseCommandQueue(cl_command_queue);
cl_int clGetCommandQueueInfo(cl_command_queue, cl_command_queue_info, size_t, void *, size_t *);
cl_int clFlush(cl_command_queue);
cl_int clFinish(cl_command_queue);
cl_mem clCreateBuffer(cl_context, cl_mem_flags, size_t, void *, cl_int *);
cl_mem clCreateBufferWithProperties(cl_context, const cl_mem_properties *, cl_mem_flags, size_t, void *, cl_int *);
cl_mem clCreateSubBuffer(cl_mem, cl_mem_flags, cl_buffer_create_type, const void *, cl_int *);
cl_mem clCreateImage(cl_context, cl_mem_flags, const cl_image_format *, const cl_image_desc *, void *, cl_int *);
cl_mem clCreateImageWithProperties(cl_context, const cl_mem_properties *, cl_mem_flags, const cl_image_format *, const cl_image_desc *, void *, cl_int *);
cl_mem clCreateImage2D(cl_context, cl_mem_flags, const cl_image_format *, size_t, size_t, size_t, void *, cl_int *);
cl_mem clCreateImage3D(cl_context, cl_mem_flags, const cl_image_format *, size_t, size_t, size_t, size_t, size_t, void *, cl_int *);
cl_mem clCreatePipe(cl_context, cl_mem_flags, cl_uint, cl_uint, const cl_pipe_properties *, cl_int *);
cl_int clGetPipeInfo(cl_mem, cl_pipe_info, size_t, void *, size_t *);
cl_int clRetainMemObject(cl_mem);
cl_int clReleaseMemObject(cl_mem);
cl_int clSetMemObjectDestructorCallback(cl_mem, void (*)(cl_mem, void *), void *);
cl_int clGetSupportedImageFormats(cl_context, cl_mem_flags, cl_mem_object_type, cl_uint, cl_image_format *, cl_uint *);
cl_int clGetMemObjectInfo(cl_mem, cl_mem_info, size_t, void *, size_t *);
cl_int clGetImageInfo(cl_mem, cl_image_info, size_t, void *, size_t *);
void *clSVMAlloc(cl_context, cl_svm_mem_flags, size_t, cl_uint);
void clSVMFree(cl_context, void *);
cl_sampler clCreateSampler(cl_context, cl_bool, cl_addressing_mode, cl_filter_mode, cl_int *);
cl_sampler clCreateSamplerWithProperties(cl_context, const cl_sampler_properties *, cl_int *);
cl_int clRetainSampler(cl_sampler);
cl_int clReleaseSampler(cl_sampler);
cl_int clGetSamplerInfo(cl_sampler, cl_sampler_info, size_t, void *, size_t *);
cl_program clCreateProgramWithSource(cl_context, cl_uint, const char **, const size_t *, cl_int *);
cl_program clCreateProgramWithBinary(cl_context, cl_uint, const cl_device_id *, const size_t *, const unsigned char **, cl_int *, cl_int *);
cl_program clCreateProgramWithBuiltInKernels(cl_context, cl_uint, const cl_device_id *, const char *, cl_int *);
cl_program clCreateProgramWithIL(cl_context, const void *, size_t, cl_int *);
cl_int clRetainProgram(cl_program);
cl_int clReleaseProgram(cl_program);
cl_int clBuildProgram(cl_program, cl_uint, const cl_device_id *, const char *, void (*)(cl_program, void *), void *);
cl_int clCompileProgram(cl_program, cl_uint, const cl_device_id *, const char *, cl_uint, const cl_program *, const char **, void (*)(cl_program, void *), void *);
cl_program clLinkProgram(cl_context, cl_uint, const cl_device_id *, const char *, cl_uint, const cl_program *, void (*)(cl_program, void *), void *, cl_int *);
cl_int clSetProgramReleaseCallback(cl_program, void (*)(cl_program, void *), void *);
cl_int clSetProgramSpecializationConstant(cl_program, cl_uint, size_t, const void *);
cl_int clUnloadCompiler(void);
cl_int clUnloadPlatformCompiler(cl_platform_id);
cl_int clGetProgramInfo(cl_program, cl_program_info, size_t, void *, size_t *);
cl_int clGetProgramBuildInfo(cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *);
cl_kernel clCreateKernel(cl_program, const char *, cl_int *);
cl_int clCreateKernelsInProgram(cl_program, cl_uint, cl_kernel *, cl_uint *);
cl_kernel clCloneKernel(cl_kernel, cl_int *);
cl_int clRetainKernel(cl_kernel);
cl_int clReleaseKernel(cl_kernel);
cl_int clSetKernelArg(cl_kernel, cl_uint, size_t, const void *);
cl_int clSetKernelArgSVMPointer(cl_kernel, cl_uint, const void *);
cl_int clSetKernelExecInfo(cl_kernel, cl_kernel_exec_info, size_t, const void *);
cl_int clGetKernelInfo(cl_kernel, cl_kernel_info, size_t, void *, size_t *);
cl_int clGetKernelArgInfo(cl_kernel, cl_uint, cl_kernel_arg_info, size_t, void *, size_t *);
cl_int clGetKernelWorkGroupInfo(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *, size_t *);
cl_int clGetKernelSubGroupInfo(cl_kernel, cl_device_id, cl_kernel_sub_group_info, size_t, const void *, size_t, void *, size_t *);
cl_int clGetKernelSubGroupInfoKHR(cl_kernel, cl_device_id, cl_kernel_sub_group_info, size_t, const void *, size_t, void *, size_t *);
cl_int clWaitForEvents(cl_uint, const cl_event *);
cl_int clGetEventInfo(cl_event, cl_event_info, size_t, void *, size_t *);
cl_event clCreateUserEvent(cl_context, cl_int *);
cl_int clRetainEvent(cl_event);
cl_int clReleaseEvent(cl_event);
cl_int clSetUserEventStatus(cl_event, cl_int);
cl_int clSetEventCallback(cl_event, cl_int, void (*)(cl_event, cl_int, void *), void *);
cl_int clGetEventProfilingInfo(cl_event, cl_profiling_info, size_t, void *, size_t *);
cl_int clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueReadBufferRect(cl_command_queue, cl_mem, cl_bool, const size_t *, const size_t *, const size_t *, size_t, size_t, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueWriteBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueWriteBufferRect(cl_command_queue, cl_mem, cl_bool, const size_t *, const size_t *, const size_t *, size_t, size_t, size_t, size_t, const void *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueFillBuffer(cl_command_queue, cl_mem, const void *, size_t, size_t, size_t, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueCopyBuffer(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueCopyBufferRect(cl_command_queue, cl_mem, cl_mem, const size_t *, const size_t *, const size_t *, size_t, size_t, size_t, size_t, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueReadImage(cl_command_queue, cl_mem, cl_bool, const size_t *, const size_t *, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueWriteImage(cl_command_queue, cl_mem, cl_bool, const size_t *, const size_t *, size_t, size_t, const void *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueFillImage(cl_command_queue, cl_mem, const void *, const size_t *, const size_t *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueCopyImage(cl_command_queue, cl_mem, cl_mem, const size_t *, const size_t *, const size_t *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueCopyImageToBuffer(cl_command_queue, cl_mem, cl_mem, const size_t *, const size_t *, size_t, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueCopyBufferToImage(cl_command_queue, cl_mem, cl_mem, size_t, const size_t *, const size_t *, cl_uint, const cl_event *, cl_event *);
void *clEnqueueMapBuffer(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint, const cl_event *, cl_event *, cl_int *);
void *clEnqueueMapImage(cl_command_queue, cl_mem, cl_bool, cl_map_flags, const size_t *, const size_t *, size_t *, size_t *, cl_uint, const cl_event *, cl_event *, cl_int *);
cl_int clEnqueueUnmapMemObject(cl_command_queue, cl_mem, void *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueMigrateMemObjects(cl_command_queue, cl_uint, const cl_mem *, cl_mem_migration_flags, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueTask(cl_command_queue, cl_kernel, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueNativeKernel(cl_command_queue, void (*)(void *), void *, size_t, cl_uint, const cl_mem *, const void **, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueMarker(cl_command_queue, cl_event *);
cl_int clEnqueueWaitForEvents(cl_command_queue, cl_uint, const cl_event *);
cl_int clEnqueueBarrier(cl_command_queue);
cl_int clEnqueueMarkerWithWaitList(cl_command_queue, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueBarrierWithWaitList(cl_command_queue, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueSVMFree(cl_command_queue, cl_uint, void **, void (*)(cl_command_queue, cl_uint, void **, void *), void *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueSVMMemcpy(cl_command_queue, cl_bool, void *, const void *, size_t, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueSVMMemFill(cl_command_queue, void *, const void *, size_t, size_t, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueSVMMap(cl_command_queue, cl_bool, cl_map_flags, void *, size_t, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueSVMUnmap(cl_command_queue, void *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueSVMMigrateMem(cl_command_queue, cl_uint, const void **, const size_t *, cl_mem_migration_flags, cl_uint, const cl_event *, cl_event *);
"""

DISPATCH_ORDER = """
clGetPlatformIDs clGetPlatformInfo clGetDeviceIDs clGetDeviceInfo clCreateContext
clCreateContextFromType clRetainContext clReleaseContext clGetContextInfo clCreateCommandQueue
clRetainCommandQueue clReleaseCommandQueue clGetCommandQueueInfo clSetCommandQueueProperty
clCreateBuffer clCreateImage2D clCreateImage3D clRetainMemObject clReleaseMemObject
clGetSupportedImageFormats clGetMemObjectInfo clGetImageInfo clCreateSampler clRetainSampler
clReleaseSampler clGetSamplerInfo clCreateProgramWithSource clCreateProgramWithBinary
clRetainProgram clReleaseProgram clBuildProgram clUnloadCompiler clGetProgramInfo
clGetProgramBuildInfo clCreateKernel clCreateKernelsInProgram clRetainKernel clReleaseKernel
clSetKernelArg clGetKernelInfo clGetKernelWorkGroupInfo clWaitForEvents clGetEventInfo
clRetainEvent clReleaseEvent clGetEventProfilingInfo clFlush clFinish clEnqueueReadBuffer
clEnqueueWriteBuffer clEnqueueCopyBuffer clEnqueueReadImage clEnqueueWriteImage
clEnqueueCopyImage clEnqueueCopyImageToBuffer clEnqueueCopyBufferToImage clEnqueueMapBuffer
clEnqueueMapImage clEnqueueUnmapMemObject clEnqueueNDRangeKernel clEnqueueTask
clEnqueueNativeKernel clEnqueueMarker clEnqueueWaitForEvents clEnqueueBarrier
clGetExtensionFunctionAddress clCreateFromGLBuffer clCreateFromGLTexture2D
clCreateFromGLTexture3D clCreateFromGLRenderbuffer clGetGLObjectInfo clGetGLTextureInfo
clEnqueueAcquireGLObjects clEnqueueReleaseGLObjects clGetGLContextInfoKHR
clGetDeviceIDsFromD3D10KHR clCreateFromD3D10BufferKHR clCreateFromD3D10Texture2DKHR
clCreateFromD3D10Texture3DKHR clEnqueueAcquireD3D10ObjectsKHR clEnqueueReleaseD3D10ObjectsKHR
clSetEventCallback clCreateSubBuffer clSetMemObjectDestructorCallback clCreateUserEvent
clSetUserEventStatus clEnqueueReadBufferRect clEnqueueWriteBufferRect clEnqueueCopyBufferRect
clCreateSubDevicesEXT clRetainDeviceEXT clReleaseDeviceEXT clCreateEventFromGLsyncKHR
clCreateSubDevices clRetainDevice clReleaseDevice clCreateImage
clCreateProgramWithBuiltInKernels clCompileProgram clLinkProgram clUnloadPlatformCompiler
clGetKernelArgInfo clEnqueueFillBuffer clEnqueueFillImage clEnqueueMigrateMemObjects
clEnqueueMarkerWithWaitList clEnqueueBarrierWithWaitList
clGetExtensionFunctionAddressForPlatform clCreateFromGLTexture
clGetDeviceIDsFromD3D11KHR clCreateFromD3D11BufferKHR clCreateFromD3D11Texture2DKHR
clCreateFromD3D11Texture3DKHR clCreateFromDX9MediaSurfaceKHR clEnqueueAcquireD3D11ObjectsKHR
clEnqueueReleaseD3D11ObjectsKHR clGetDeviceIDsFromDX9MediaAdapterKHR
clEnqueueAcquireDX9MediaSurfacesKHR clEnqueueReleaseDX9MediaSurfacesKHR
clCreateFromEGLImageKHR clEnqueueAcquireEGLObjectsKHR clEnqueueReleaseEGLObjectsKHR
clCreateEventFromEGLSyncKHR clCreateCommandQueueWithProperties clCreatePipe clGetPipeInfo
clSVMAlloc clSVMFree clEnqueueSVMFree clEnqueueSVMMemcpy clEnqueueSVMMemFill clEnqueueSVMMap
clEnqueueSVMUnmap clCreateSamplerWithProperties clSetKernelArgSVMPointer clSetKernelExecInfo
clGetKernelSubGroupInfoKHR clCloneKernel clCreateProgramWithIL clEnqueueSVMMigrateMem
clGetDeviceAndHostTimer clGetHostTimer clGetKernelSubGroupInfo clSetDefaultDeviceCommandQueue
clSetProgramReleaseCallback clSetProgramSpecializationConstant clCreateBufferWithProperties
clCreateImageWithProperties clSetContextDestructorCallback
""".split()

# Implemented in C (the loader asks for them before Python needs to start).
C_ENTRY_POINTS = ("clGetExtensionFunctionAddress", "clGetExtensionFunctionAddressForPlatform")


PY_PREFIX = "sgvm_py_"  # the Python implementation of clX is the embedded function sgvm_py_clX


def _split_params(params: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip() and cur.strip() != "void":
        out.append(cur.strip())
    return out


def _prototypes() -> list[tuple[str, str, list[str]]]:
    """(return type, name, parameter types) of every Python-implemented entry point."""
    found = re.findall(r"^(.*?)\b(cl\w+)\((.*)\);$", ENTRY_POINTS, re.M)
    return [(ret.strip(), name, _split_params(params)) for ret, name, params in found]


def embedded_api() -> str:
    """The cffi embedding declarations: ``ENTRY_POINTS`` renamed with ``PY_PREFIX``."""
    return re.sub(r"\b(cl\w+)\(", lambda m: f"{PY_PREFIX}{m.group(1)}(", ENTRY_POINTS)


def c_wrappers() -> str:
    """The exported ``clX`` functions. Each calls its Python implementation with the caller's
    pending Python exception (if any) set aside: a Python host may release OpenCL objects from a
    destructor while an exception unwinds, and Python code must not start with one set."""
    out = []
    for ret, name, params in _prototypes():
        named = [p.replace("(*)", f"(*a{i})", 1) if "(*)" in p else f"{p} a{i}" for i, p in enumerate(params)]
        args = ", ".join(f"a{i}" for i in range(len(params)))
        call = f"{PY_PREFIX}{name}({args})"
        body = f"{call};" if ret == "void" else f"{ret} r = {call};"
        tail = "" if ret == "void" else " return r;"
        out.append(f"{ret} {name}({', '.join(named) or 'void'}) {{\n"
                   f"    PyObject *t = NULL, *v = NULL, *tb = NULL; int saved = sgvm_set_aside(&t, &v, &tb);\n"
                   f"    {body}\n    if (saved) sgvm_restore(t, v, tb);{tail}\n}}\n")
    return "".join(out)


def entry_point_names() -> list[str]:
    """The names of the entry points implemented in Python, in ``ENTRY_POINTS`` order."""
    return re.findall(r"\b(cl\w+)\(", ENTRY_POINTS)


def dispatch_table_c() -> str:
    """The C definition of the dispatch table: one slot per ``DISPATCH_ORDER`` name."""
    exported = set(entry_point_names()) | set(C_ENTRY_POINTS)
    slots = [f"    (void *){n}," if n in exported else f"    NULL, /* {n} */" for n in DISPATCH_ORDER]
    return "static void *const sgvm_dispatch_table[] = {\n" + "\n".join(slots) + "\n};\n"


def extension_lookup_c() -> str:
    """clGetExtensionFunctionAddress: every exported entry point by name (the loader asks
    for ``clIcdGetPlatformIDsKHR`` this way; applications for ``clGetKernelSubGroupInfoKHR``)."""
    names = entry_point_names()
    rows = "\n".join(f'    {{"{n}", (void *){n}}},' for n in names)
    return (
        "static const struct { const char *name; void *fn; } sgvm_functions[] = {\n" + rows + "\n};\n"
        "void *clGetExtensionFunctionAddress(const char *name) {\n"
        "    if (!name) return NULL;\n"
        "    for (size_t i = 0; i < sizeof sgvm_functions / sizeof sgvm_functions[0]; i++)\n"
        "        if (strcmp(sgvm_functions[i].name, name) == 0) return sgvm_functions[i].fn;\n"
        "    return NULL;\n"
        "}\n"
        "void *clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char *name) {\n"
        "    (void)platform;\n"
        "    return clGetExtensionFunctionAddress(name);\n"
        "}\n"
    )
