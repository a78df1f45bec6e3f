"""OpenCL enumerations as PyOpenCL exposes them (``cl.mem_flags.READ_ONLY`` …).

Values are those of the Khronos ``cl.h`` headers (OpenCL 3.0), so code that
stores or compares raw numbers keeps working. The image enumerations are the
ones :mod:`sgvm.runtime.images` defines.
"""

from __future__ import annotations

from ..runtime.images.enums import (
    addressing_mode,
    channel_order,
    channel_type,
    filter_mode,
    mem_object_type,
)


class _Constants:
    """A namespace of integer constants with PyOpenCL's ``to_string`` helper."""

    @classmethod
    def to_string(cls, value: int, default_format: str | None = None) -> str:
        """The name of ``value`` in this namespace (PyOpenCL's ``to_string``)."""
        for name in dir(cls):
            if name.isupper() and getattr(cls, name) == value:
                return name
        if default_format is None:
            raise ValueError(f"a name for value {value} was not found in {cls.__name__}")
        return default_format % value

    @classmethod
    def _names(cls) -> dict[str, int]:
        """Every constant of the namespace, name → value."""
        return {n: getattr(cls, n) for n in dir(cls) if not n.startswith("_") and isinstance(getattr(cls, n), int)}


class platform_info(_Constants):  # noqa: N801 - PyOpenCL's names
    PROFILE = 0x0900
    VERSION = 0x0901
    NAME = 0x0902
    VENDOR = 0x0903
    EXTENSIONS = 0x0904
    HOST_TIMER_RESOLUTION = 0x0905
    NUMERIC_VERSION = 0x0906
    EXTENSIONS_WITH_VERSION = 0x0907


class device_type(_Constants):  # noqa: N801
    DEFAULT = 1 << 0
    CPU = 1 << 1
    GPU = 1 << 2
    ACCELERATOR = 1 << 3
    CUSTOM = 1 << 4
    ALL = 0xFFFFFFFF


class device_fp_config(_Constants):  # noqa: N801
    DENORM = 1 << 0
    INF_NAN = 1 << 1
    ROUND_TO_NEAREST = 1 << 2
    ROUND_TO_ZERO = 1 << 3
    ROUND_TO_INF = 1 << 4
    FMA = 1 << 5
    SOFT_FLOAT = 1 << 6
    CORRECTLY_ROUNDED_DIVIDE_SQRT = 1 << 7


class device_mem_cache_type(_Constants):  # noqa: N801
    NONE = 0
    READ_ONLY_CACHE = 1
    READ_WRITE_CACHE = 2


class device_local_mem_type(_Constants):  # noqa: N801
    LOCAL = 1
    GLOBAL = 2


class device_exec_capabilities(_Constants):  # noqa: N801
    KERNEL = 1 << 0
    NATIVE_KERNEL = 1 << 1


class device_info(_Constants):  # noqa: N801
    TYPE = 0x1000
    VENDOR_ID = 0x1001
    MAX_COMPUTE_UNITS = 0x1002
    MAX_WORK_ITEM_DIMENSIONS = 0x1003
    MAX_WORK_GROUP_SIZE = 0x1004
    MAX_WORK_ITEM_SIZES = 0x1005
    PREFERRED_VECTOR_WIDTH_CHAR = 0x1006
    PREFERRED_VECTOR_WIDTH_SHORT = 0x1007
    PREFERRED_VECTOR_WIDTH_INT = 0x1008
    PREFERRED_VECTOR_WIDTH_LONG = 0x1009
    PREFERRED_VECTOR_WIDTH_FLOAT = 0x100A
    PREFERRED_VECTOR_WIDTH_DOUBLE = 0x100B
    MAX_CLOCK_FREQUENCY = 0x100C
    ADDRESS_BITS = 0x100D
    MAX_READ_IMAGE_ARGS = 0x100E
    MAX_WRITE_IMAGE_ARGS = 0x100F
    MAX_MEM_ALLOC_SIZE = 0x1010
    IMAGE2D_MAX_WIDTH = 0x1011
    IMAGE2D_MAX_HEIGHT = 0x1012
    IMAGE3D_MAX_WIDTH = 0x1013
    IMAGE3D_MAX_HEIGHT = 0x1014
    IMAGE3D_MAX_DEPTH = 0x1015
    IMAGE_SUPPORT = 0x1016
    MAX_PARAMETER_SIZE = 0x1017
    MAX_SAMPLERS = 0x1018
    MEM_BASE_ADDR_ALIGN = 0x1019
    MIN_DATA_TYPE_ALIGN_SIZE = 0x101A
    SINGLE_FP_CONFIG = 0x101B
    GLOBAL_MEM_CACHE_TYPE = 0x101C
    GLOBAL_MEM_CACHELINE_SIZE = 0x101D
    GLOBAL_MEM_CACHE_SIZE = 0x101E
    GLOBAL_MEM_SIZE = 0x101F
    MAX_CONSTANT_BUFFER_SIZE = 0x1020
    MAX_CONSTANT_ARGS = 0x1021
    LOCAL_MEM_TYPE = 0x1022
    LOCAL_MEM_SIZE = 0x1023
    ERROR_CORRECTION_SUPPORT = 0x1024
    PROFILING_TIMER_RESOLUTION = 0x1025
    ENDIAN_LITTLE = 0x1026
    AVAILABLE = 0x1027
    COMPILER_AVAILABLE = 0x1028
    EXECUTION_CAPABILITIES = 0x1029
    QUEUE_PROPERTIES = 0x102A
    QUEUE_ON_HOST_PROPERTIES = 0x102A
    NAME = 0x102B
    VENDOR = 0x102C
    DRIVER_VERSION = 0x102D
    PROFILE = 0x102E
    VERSION = 0x102F
    EXTENSIONS = 0x1030
    PLATFORM = 0x1031
    DOUBLE_FP_CONFIG = 0x1032
    HALF_FP_CONFIG = 0x1033
    PREFERRED_VECTOR_WIDTH_HALF = 0x1034
    HOST_UNIFIED_MEMORY = 0x1035
    NATIVE_VECTOR_WIDTH_CHAR = 0x1036
    NATIVE_VECTOR_WIDTH_SHORT = 0x1037
    NATIVE_VECTOR_WIDTH_INT = 0x1038
    NATIVE_VECTOR_WIDTH_LONG = 0x1039
    NATIVE_VECTOR_WIDTH_FLOAT = 0x103A
    NATIVE_VECTOR_WIDTH_DOUBLE = 0x103B
    NATIVE_VECTOR_WIDTH_HALF = 0x103C
    OPENCL_C_VERSION = 0x103D
    LINKER_AVAILABLE = 0x103E
    BUILT_IN_KERNELS = 0x103F
    IMAGE_MAX_BUFFER_SIZE = 0x1040
    IMAGE_MAX_ARRAY_SIZE = 0x1041
    PARENT_DEVICE = 0x1042
    PARTITION_MAX_SUB_DEVICES = 0x1043
    PARTITION_PROPERTIES = 0x1044
    PARTITION_AFFINITY_DOMAIN = 0x1045
    PARTITION_TYPE = 0x1046
    REFERENCE_COUNT = 0x1047
    PREFERRED_INTEROP_USER_SYNC = 0x1048
    PRINTF_BUFFER_SIZE = 0x1049
    IMAGE_PITCH_ALIGNMENT = 0x104A
    IMAGE_BASE_ADDRESS_ALIGNMENT = 0x104B
    MAX_READ_WRITE_IMAGE_ARGS = 0x104C
    MAX_GLOBAL_VARIABLE_SIZE = 0x104D
    QUEUE_ON_DEVICE_PROPERTIES = 0x104E
    QUEUE_ON_DEVICE_PREFERRED_SIZE = 0x104F
    QUEUE_ON_DEVICE_MAX_SIZE = 0x1050
    MAX_ON_DEVICE_QUEUES = 0x1051
    MAX_ON_DEVICE_EVENTS = 0x1052
    SVM_CAPABILITIES = 0x1053
    GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE = 0x1054
    MAX_PIPE_ARGS = 0x1055
    PIPE_MAX_ACTIVE_RESERVATIONS = 0x1056
    PIPE_MAX_PACKET_SIZE = 0x1057
    PREFERRED_PLATFORM_ATOMIC_ALIGNMENT = 0x1058
    PREFERRED_GLOBAL_ATOMIC_ALIGNMENT = 0x1059
    PREFERRED_LOCAL_ATOMIC_ALIGNMENT = 0x105A
    IL_VERSION = 0x105B
    MAX_NUM_SUB_GROUPS = 0x105C
    SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS = 0x105D
    NUMERIC_VERSION = 0x105E
    EXTENSIONS_WITH_VERSION = 0x1060
    ILS_WITH_VERSION = 0x1061
    BUILT_IN_KERNELS_WITH_VERSION = 0x1062
    ATOMIC_MEMORY_CAPABILITIES = 0x1063
    ATOMIC_FENCE_CAPABILITIES = 0x1064
    NON_UNIFORM_WORK_GROUP_SUPPORT = 0x1065
    OPENCL_C_ALL_VERSIONS = 0x1066
    PREFERRED_WORK_GROUP_SIZE_MULTIPLE = 0x1067
    WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT = 0x1068
    GENERIC_ADDRESS_SPACE_SUPPORT = 0x1069
    OPENCL_C_FEATURES = 0x106F
    DEVICE_ENQUEUE_CAPABILITIES = 0x1070
    PIPE_SUPPORT = 0x1071
    LATEST_CONFORMANCE_VERSION_PASSED = 0x1072
    INTEGER_DOT_PRODUCT_CAPABILITIES_KHR = 0x1073
    INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR = 0x1074
    INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR = 0x1075
    SUB_GROUP_SIZES_INTEL = 0x4108


class command_queue_properties(_Constants):  # noqa: N801
    OUT_OF_ORDER_EXEC_MODE_ENABLE = 1 << 0
    PROFILING_ENABLE = 1 << 1
    ON_DEVICE = 1 << 2
    ON_DEVICE_DEFAULT = 1 << 3


class context_info(_Constants):  # noqa: N801
    REFERENCE_COUNT = 0x1080
    DEVICES = 0x1081
    PROPERTIES = 0x1082
    NUM_DEVICES = 0x1083


class command_queue_info(_Constants):  # noqa: N801
    CONTEXT = 0x1090
    DEVICE = 0x1091
    REFERENCE_COUNT = 0x1092
    PROPERTIES = 0x1093


class mem_flags(_Constants):  # noqa: N801
    READ_WRITE = 1 << 0
    WRITE_ONLY = 1 << 1
    READ_ONLY = 1 << 2
    USE_HOST_PTR = 1 << 3
    ALLOC_HOST_PTR = 1 << 4
    COPY_HOST_PTR = 1 << 5
    HOST_WRITE_ONLY = 1 << 7
    HOST_READ_ONLY = 1 << 8
    HOST_NO_ACCESS = 1 << 9
    KERNEL_READ_AND_WRITE = 1 << 12


class map_flags(_Constants):  # noqa: N801
    READ = 1 << 0
    WRITE = 1 << 1
    WRITE_INVALIDATE_REGION = 1 << 2


class mem_info(_Constants):  # noqa: N801
    TYPE = 0x1100
    FLAGS = 0x1101
    SIZE = 0x1102
    HOST_PTR = 0x1103
    MAP_COUNT = 0x1104
    REFERENCE_COUNT = 0x1105
    CONTEXT = 0x1106
    ASSOCIATED_MEMOBJECT = 0x1107
    OFFSET = 0x1108


class image_info(_Constants):  # noqa: N801
    FORMAT = 0x1110
    ELEMENT_SIZE = 0x1111
    ROW_PITCH = 0x1112
    SLICE_PITCH = 0x1113
    WIDTH = 0x1114
    HEIGHT = 0x1115
    DEPTH = 0x1116
    ARRAY_SIZE = 0x1117
    BUFFER = 0x1118
    NUM_MIP_LEVELS = 0x1119
    NUM_SAMPLES = 0x111A


class sampler_info(_Constants):  # noqa: N801
    REFERENCE_COUNT = 0x1150
    CONTEXT = 0x1151
    NORMALIZED_COORDS = 0x1152
    ADDRESSING_MODE = 0x1153
    FILTER_MODE = 0x1154


class program_info(_Constants):  # noqa: N801
    REFERENCE_COUNT = 0x1160
    CONTEXT = 0x1161
    NUM_DEVICES = 0x1162
    DEVICES = 0x1163
    SOURCE = 0x1164
    BINARY_SIZES = 0x1165
    BINARIES = 0x1166
    NUM_KERNELS = 0x1167
    KERNEL_NAMES = 0x1168
    IL = 0x1169


class program_build_info(_Constants):  # noqa: N801
    STATUS = 0x1181
    OPTIONS = 0x1182
    LOG = 0x1183
    BINARY_TYPE = 0x1184
    GLOBAL_VARIABLE_TOTAL_SIZE = 0x1185


class build_status(_Constants):  # noqa: N801
    SUCCESS = 0
    NONE = -1
    ERROR = -2
    IN_PROGRESS = -3


class program_binary_type(_Constants):  # noqa: N801
    NONE = 0
    COMPILED_OBJECT = 1
    LIBRARY = 2
    EXECUTABLE = 4


class kernel_info(_Constants):  # noqa: N801
    FUNCTION_NAME = 0x1190
    NUM_ARGS = 0x1191
    REFERENCE_COUNT = 0x1192
    CONTEXT = 0x1193
    PROGRAM = 0x1194
    ATTRIBUTES = 0x1195


class kernel_arg_info(_Constants):  # noqa: N801
    ADDRESS_QUALIFIER = 0x1196
    ACCESS_QUALIFIER = 0x1197
    TYPE_NAME = 0x1198
    TYPE_QUALIFIER = 0x1199
    NAME = 0x119A


class kernel_arg_address_qualifier(_Constants):  # noqa: N801
    GLOBAL = 0x119B
    LOCAL = 0x119C
    CONSTANT = 0x119D
    PRIVATE = 0x119E


class kernel_arg_access_qualifier(_Constants):  # noqa: N801
    READ_ONLY = 0x11A0
    WRITE_ONLY = 0x11A1
    READ_WRITE = 0x11A2
    NONE = 0x11A3


class kernel_arg_type_qualifier(_Constants):  # noqa: N801
    NONE = 0
    CONST = 1 << 0
    RESTRICT = 1 << 1
    VOLATILE = 1 << 2
    PIPE = 1 << 3


class kernel_work_group_info(_Constants):  # noqa: N801
    WORK_GROUP_SIZE = 0x11B0
    COMPILE_WORK_GROUP_SIZE = 0x11B1
    LOCAL_MEM_SIZE = 0x11B2
    PREFERRED_WORK_GROUP_SIZE_MULTIPLE = 0x11B3
    PRIVATE_MEM_SIZE = 0x11B4
    GLOBAL_WORK_SIZE = 0x11B5


class kernel_sub_group_info(_Constants):  # noqa: N801
    MAX_SUB_GROUP_SIZE_FOR_NDRANGE = 0x2033
    SUB_GROUP_COUNT_FOR_NDRANGE = 0x2034
    LOCAL_SIZE_FOR_SUB_GROUP_COUNT = 0x11B8
    MAX_NUM_SUB_GROUPS = 0x11B9
    COMPILE_NUM_SUB_GROUPS = 0x11BA
    COMPILE_SUB_GROUP_SIZE_INTEL = 0x410A


class event_info(_Constants):  # noqa: N801
    COMMAND_QUEUE = 0x11D0
    COMMAND_TYPE = 0x11D1
    REFERENCE_COUNT = 0x11D2
    COMMAND_EXECUTION_STATUS = 0x11D3
    CONTEXT = 0x11D4


class command_type(_Constants):  # noqa: N801
    NDRANGE_KERNEL = 0x11F0
    TASK = 0x11F1
    NATIVE_KERNEL = 0x11F2
    READ_BUFFER = 0x11F3
    WRITE_BUFFER = 0x11F4
    COPY_BUFFER = 0x11F5
    READ_IMAGE = 0x11F6
    WRITE_IMAGE = 0x11F7
    COPY_IMAGE = 0x11F8
    COPY_IMAGE_TO_BUFFER = 0x11F9
    COPY_BUFFER_TO_IMAGE = 0x11FA
    MAP_BUFFER = 0x11FB
    MAP_IMAGE = 0x11FC
    UNMAP_MEM_OBJECT = 0x11FD
    MARKER = 0x11FE
    READ_BUFFER_RECT = 0x1201
    WRITE_BUFFER_RECT = 0x1202
    COPY_BUFFER_RECT = 0x1203
    USER = 0x1204
    BARRIER = 0x1205
    MIGRATE_MEM_OBJECTS = 0x1206
    FILL_BUFFER = 0x1207
    FILL_IMAGE = 0x1208
    SVM_FREE = 0x1209
    SVM_MEMCPY = 0x120A
    SVM_MEMFILL = 0x120B
    SVM_MAP = 0x120C
    SVM_UNMAP = 0x120D
    SVM_MIGRATE_MEM = 0x120E


class command_execution_status(_Constants):  # noqa: N801
    COMPLETE = 0x0
    RUNNING = 0x1
    SUBMITTED = 0x2
    QUEUED = 0x3


class profiling_info(_Constants):  # noqa: N801
    QUEUED = 0x1280
    SUBMIT = 0x1281
    START = 0x1282
    END = 0x1283
    COMPLETE = 0x1284


class status_code(_Constants):  # noqa: N801
    """OpenCL error codes by name without the ``CL_`` prefix (``status_code.INVALID_VALUE``)."""


def _fill_status_codes() -> None:
    from ..errors import CL_ERROR_CODES

    for name, value in CL_ERROR_CODES.items():
        setattr(status_code, name.removeprefix("CL_"), value)


_fill_status_codes()


__all__ = [
    "addressing_mode", "build_status", "channel_order", "channel_type", "command_execution_status",
    "command_queue_info", "command_queue_properties", "command_type", "context_info", "device_exec_capabilities",
    "device_fp_config", "device_info", "device_local_mem_type", "device_mem_cache_type", "device_type",
    "event_info", "filter_mode", "image_info", "kernel_arg_access_qualifier", "kernel_arg_address_qualifier",
    "kernel_arg_info", "kernel_arg_type_qualifier", "kernel_info", "kernel_sub_group_info",
    "kernel_work_group_info", "map_flags", "mem_flags", "mem_info", "mem_object_type", "platform_info",
    "profiling_info", "program_binary_type", "program_build_info", "program_info", "sampler_info", "status_code",
]
