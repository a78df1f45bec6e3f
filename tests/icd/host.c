/* An ordinary OpenCL host program, linked against an ICD loader's libOpenCL.
 * It declares the few OpenCL types and functions it uses itself (no headers).
 *
 *   host list                 print the platform and device names
 *   host run KERNEL.spv       a sub-group kernel from source and from SPIR-V, checked
 *   host oob                  a kernel that writes one element past its buffer
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef void *cl_platform_id, *cl_device_id, *cl_context, *cl_command_queue, *cl_mem, *cl_program,
    *cl_kernel, *cl_event;

#define CL_PLATFORM_NAME 0x0902
#define CL_DEVICE_NAME 0x102B
#define CL_DEVICE_SUB_GROUP_SIZES_INTEL 0x4108
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFF
#define CL_MEM_READ_WRITE (1 << 0)
#define CL_PROGRAM_BUILD_LOG 0x1183
#define CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE 0x2033

cl_int clGetPlatformIDs(cl_uint, cl_platform_id *, cl_uint *);
cl_int clGetPlatformInfo(cl_platform_id, cl_uint, size_t, void *, size_t *);
cl_int clGetDeviceIDs(cl_platform_id, cl_ulong, cl_uint, cl_device_id *, cl_uint *);
cl_int clGetDeviceInfo(cl_device_id, cl_uint, size_t, void *, size_t *);
cl_context clCreateContext(const intptr_t *, cl_uint, const cl_device_id *, void *, void *, cl_int *);
cl_command_queue clCreateCommandQueue(cl_context, cl_device_id, cl_ulong, cl_int *);
cl_mem clCreateBuffer(cl_context, cl_ulong, size_t, void *, cl_int *);
cl_program clCreateProgramWithSource(cl_context, cl_uint, const char **, const size_t *, cl_int *);
cl_program clCreateProgramWithIL(cl_context, const void *, size_t, cl_int *);
cl_int clBuildProgram(cl_program, cl_uint, const cl_device_id *, const char *, void *, void *);
cl_int clGetProgramBuildInfo(cl_program, cl_device_id, cl_uint, size_t, void *, size_t *);
cl_kernel clCreateKernel(cl_program, const char *, cl_int *);
cl_int clSetKernelArg(cl_kernel, cl_uint, size_t, const void *);
cl_int clGetKernelSubGroupInfo(cl_kernel, cl_device_id, cl_uint, size_t, const void *, size_t, void *, size_t *);
cl_int clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                              const size_t *, cl_uint, const cl_event *, cl_event *);
cl_int clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void *, cl_uint,
                           const cl_event *, cl_event *);
cl_int clEnqueueWriteBuffer(cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void *, cl_uint,
                            const cl_event *, cl_event *);
cl_int clFinish(cl_command_queue);
cl_int clReleaseMemObject(cl_mem);
cl_int clReleaseKernel(cl_kernel);
cl_int clReleaseProgram(cl_program);
cl_int clReleaseCommandQueue(cl_command_queue);
cl_int clReleaseContext(cl_context);

#define CHECK(call)                                                               \
    do {                                                                          \
        cl_int err_ = (call);                                                     \
        if (err_ != 0) {                                                          \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, err_); \
            exit(3);                                                              \
        }                                                                         \
    } while (0)

static const char *SOURCE =
    "__kernel void sg_reverse(__global const int *in, __global int *out) {\n"
    "    int gid = get_global_id(0);\n"
    "    uint n = get_max_sub_group_size();\n"
    "    out[gid] = intel_sub_group_shuffle(in[gid], n - 1 - get_sub_group_local_id())\n"
    "              + 1000 * (int)get_sub_group_id();\n"
    "}\n";

static const char *OOB_SOURCE =
    "__kernel void past_the_end(__global int *out) {\n"
    "    int gid = get_global_id(0);\n"
    "    out[gid + 1] = gid;\n"
    "}\n";

enum { N = 64, LOCAL = 32 };

static cl_device_id device;
static cl_context context;
static cl_command_queue queue;

static void setup(void) {
    cl_platform_id platform;
    cl_uint count = 0;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &platform, &count));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
}

static cl_program build(cl_program program) {
    cl_int err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err != 0) {
        char log[4096] = {0};
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "build failed (%d):\n%s\n", err, log);
        exit(3);
    }
    return program;
}

/* Runs sg_reverse; checks each element against the sub-group reversal it must produce. */
static int run_reverse(cl_program program, const char *what) {
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, "sg_reverse", &err);
    CHECK(err);
    int in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = 7 * i + 3;
    cl_mem a = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
    CHECK(err);
    cl_mem b = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof out, NULL, &err);
    CHECK(err);
    CHECK(clEnqueueWriteBuffer(queue, a, 1, 0, sizeof in, in, 0, NULL, NULL));
    CHECK(clSetKernelArg(kernel, 0, sizeof a, &a));
    CHECK(clSetKernelArg(kernel, 1, sizeof b, &b));
    size_t global = N, local = LOCAL, sg = 0;
    CHECK(clGetKernelSubGroupInfo(kernel, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                  &local, sizeof sg, &sg, NULL));
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(queue, b, 1, 0, sizeof out, out, 0, NULL, NULL));
    CHECK(clFinish(queue));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        int group_base = i - i % LOCAL, lane = (i % LOCAL) % (int)sg, sub = (i % LOCAL) / (int)sg;
        int source = group_base + sub * (int)sg + ((int)sg - 1 - lane);
        int want = in[source] + 1000 * sub;
        if (out[i] != want) {
            if (bad++ < 4) fprintf(stderr, "%s: out[%d] = %d, want %d\n", what, i, out[i], want);
        }
    }
    printf("%s: sub-group size %zu, %s\n", what, sg, bad ? "WRONG" : "ok");
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(kernel);
    return bad != 0;
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc(*size);
    if (fread(data, 1, *size, f) != *size) { perror(path); exit(2); }
    fclose(f);
    return data;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "list";
    cl_int err;
    setup();
    if (strcmp(mode, "list") == 0) {
        char name[256];
        cl_platform_id platform;
        CHECK(clGetPlatformIDs(1, &platform, NULL));
        CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, NULL));
        printf("platform: %s\n", name);
        CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL));
        printf("device: %s\n", name);
        size_t sizes[8], bytes = 0;
        CHECK(clGetDeviceInfo(device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &bytes));
        printf("sub-group sizes:");
        for (size_t i = 0; i < bytes / sizeof(size_t); i++) printf(" %zu", sizes[i]);
        printf("\n");
        return 0;
    }
    if (strcmp(mode, "run") == 0 && argc > 2) {
        cl_program from_source = build(clCreateProgramWithSource(context, 1, &SOURCE, NULL, &err));
        CHECK(err);
        size_t size;
        unsigned char *il = read_file(argv[2], &size);
        cl_program from_il = clCreateProgramWithIL(context, il, size, &err);
        CHECK(err);
        build(from_il);
        int bad = run_reverse(from_source, "source") + run_reverse(from_il, "SPIR-V");
        clReleaseProgram(from_source);
        clReleaseProgram(from_il);
        clReleaseCommandQueue(queue);
        clReleaseContext(context);
        return bad ? 1 : 0;
    }
    if (strcmp(mode, "oob") == 0) {
        cl_program program = build(clCreateProgramWithSource(context, 1, &OOB_SOURCE, NULL, &err));
        CHECK(err);
        cl_kernel kernel = clCreateKernel(program, "past_the_end", &err);
        CHECK(err);
        cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, N * sizeof(int), NULL, &err);
        CHECK(err);
        CHECK(clSetKernelArg(kernel, 0, sizeof out, &out));
        size_t global = N;
        err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
        clFinish(queue);
        printf("launch status %d\n", err);
        return 0;
    }
    fprintf(stderr, "usage: host list | run KERNEL.spv | oob\n");
    return 2;
}
