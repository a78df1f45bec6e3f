"""Every checker category: its severity, the specification clause it enforces, a hint.

Severity: ``error`` where the specifications make the behaviour undefined,
``warning`` where only the result is undefined/unspecified or the code is a
portability hazard. The quotes are verbatim: the Intel extensions from
``cl_intel_subgroups.txt`` / ``cl_intel_subgroups_char.txt``, the work-group
functions from ``opencl_c_work_group_functions.txt`` (the OpenCL C 2.0 text),
the rest from the OpenCL C 2.0, C99/C11 and SPIR-V 1.6 specifications.
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR, WARNING = "error", "warning"
INTEL = "cl_intel_subgroups"
KHR = "cl_khr_subgroup_extensions"
MEDIA = "cl_intel_media_block_io"
OUT_OF_RANGE = "There is no defined behavior for out-of-range indices."


@dataclass(frozen=True)
class Category:
    """One kind of finding."""

    name: str
    family: int  # the numbered family in docs/checker.md
    severity: str
    document: str
    clause: str
    hint: str


_ALL = [
    Category("shuffle-out-of-range", 1, ERROR, INTEL + ", intel_sub_group_shuffle",
             "There is no defined behavior for out-of-range sub_group_local_ids.",
             "the index must name a lane below get_max_sub_group_size()"),
    Category("shuffle-down-out-of-range", 1, ERROR, INTEL + ", intel_sub_group_shuffle_down",
             "If the shuffle index is greater than or equal to the max_sub_group_size but less "
             "than twice the max_sub_group_size, the result of this built-in function is the value "
             "of the next data source for the work item with sub_group_local_id equal to the "
             "shuffle index minus the max_sub_group_size. All other values of the shuffle index "
             "are considered to be out-of-range. " + OUT_OF_RANGE,
             "keep sub_group_local_id + delta below 2 * get_max_sub_group_size()"),
    Category("shuffle-up-out-of-range", 1, ERROR, INTEL + ", intel_sub_group_shuffle_up",
             "If the shuffle index is less than zero but greater than or equal to the negative "
             "max_sub_group_size, the result of this built-in function is the value of the previous "
             "data source for the work item with sub_group_local_id equal to the shuffle index plus "
             "the max_sub_group_size. All other values of the shuffle index are considered to be "
             "out-of-range. " + OUT_OF_RANGE,
             "keep delta at most get_max_sub_group_size() + sub_group_local_id"),
    Category("shuffle-xor-out-of-range", 1, ERROR, INTEL + ", intel_sub_group_shuffle_xor",
             "If the result of the XOR is greater than max_sub_group_size then it is considered "
             "out-of-range. " + OUT_OF_RANGE,
             "keep the XOR value below get_max_sub_group_size() (a power of two)"),
    Category("shuffle-source-inactive", 2, WARNING, INTEL + ", sub-group shuffles",
             "These built-in functions need not be encountered by all work items in a subgroup "
             "executing the kernel, however, data may only be shuffled among work items "
             "encountering the subgroup shuffle function. Shuffling data from a work item that "
             "does not encounter the subgroup shuffle function will produce undefined results.",
             "move the shuffle out of the divergent branch, or only read lanes that take it"),
    Category("subgroup-divergence", 3, ERROR, INTEL + ", sub-group functions",
             "These built-in functions must be encountered by all work items in a subgroup "
             "executing the kernel.",
             "call the sub-group function in control flow that is uniform across the sub-group"),
    Category("subgroup-barrier-divergence", 3, ERROR, INTEL + ", sub_group_barrier",
             "This function must be encountered by all work items in a subgroup executing the "
             "kernel.",
             "call sub_group_barrier in control flow that is uniform across the sub-group"),
    Category("broadcast-lane-not-uniform", 4, ERROR, INTEL + ", sub_group_broadcast",
             "sub_group_local_id must be the same value for all work items in the subgroup.",
             "compute the broadcast lane id from sub-group-uniform values only"),
    Category("broadcast-lane-invalid", 4, ERROR, INTEL + ", sub_group_broadcast",
             "Broadcasts the value of x for work item identified by sub_group_local_id (value "
             "returned by get_sub_group_local_id) to all work items in the subgroup.",
             "broadcast from a lane that exists and executes the broadcast"),
    Category("block-argument-not-uniform", 4, ERROR, INTEL + ", sub-group read and write functions",
             "Furthermore, since these are block operations, the pointer, image, and coordinate "
             "arguments to these built-in functions must be the same for all work items in the "
             "subgroup (when applicable, only the data argument may be different).",
             "pass the same pointer (or image and coordinate) from every lane of the sub-group"),
    Category("work-group-broadcast-id-not-uniform", 4, ERROR,
             "OpenCL C 2.0 s6.13.15, work_group_broadcast",
             "local_id must be the same value for all work-items in the work-group.",
             "compute the local id from work-group-uniform values only"),
    Category("work-group-broadcast-id-invalid", 4, ERROR,
             "OpenCL C 2.0 s6.13.15, work_group_broadcast",
             "Broadcast the value of x for work-item identified by local_id to all work-items in "
             "the work-group.",
             "the local id must lie inside the work-group (mind partial work-groups)"),
    Category("block-read-misaligned", 5, ERROR, INTEL + ", intel_sub_group_block_read",
             "p must be aligned to a 32-bit (4-byte) boundary.",
             "align the block-read pointer to 4 bytes"),
    Category("block-write-misaligned", 5, ERROR, INTEL + ", intel_sub_group_block_write",
             "p must be aligned to a 128-bit (16-byte) boundary.",
             "align the block-write pointer to 16 bytes"),
    Category("image-block-write-misaligned", 5, ERROR, INTEL + ", intel_sub_group_block_write (image)",
             "the x-component of the byte coordinate for the image block write functions must be "
             "a multiple of four; in other words, the write must begin at 32-bit boundary.",
             "make the byte x coordinate a multiple of 4"),
    Category("image-block-wide-format", 5, ERROR, INTEL + ", restrictions",
             "The behavior of the subgroup image block read and write built-ins is undefined for "
             "images with an element size greater than four bytes (such as CL_RGBA + CL_FLOAT).",
             "use an image format of at most 4 bytes per element (e.g. CL_R + CL_UNSIGNED_INT32)"),
    Category("image-block-out-of-bounds", 5, ERROR, INTEL + ", image block IO bounds",
             "If the image has element size less than the size of a uint (such as CL_R + "
             "CL_UNSIGNED_INT8), the entire image is addressable, however bounds checking will "
             "occur too late. For this reason, extra care should be taken to avoid out-of-bounds "
             "reads and writes, since out-of-bounds reads may return invalid data and "
             "out-of-bounds writes may corrupt other images or buffers unpredictably.",
             "keep the block inside the image, or use a 4-byte format (clamped reads, dropped writes)"),
    Category("khr-shuffle-out-of-range", 10, WARNING, KHR + ", sub_group_shuffle",
             "The return value is undefined if the work item with sub-group local ID equal to "
             "_index_ is inactive or if _index_ is greater than or equal to the size of the "
             "sub-group.",
             "keep the index (l ^ mask, l - delta, l + delta) inside get_sub_group_size()"),
    Category("khr-shuffle-source-inactive", 10, WARNING, KHR + ", sub-group shuffles",
             "The return value is undefined if the work item with sub-group local ID equal to "
             "the calculated index is inactive",
             "only read lanes that execute the shuffle (mind divergent branches)"),
    Category("rotate-source-inactive", 10, WARNING, "cl_khr_subgroup_rotate, sub_group_rotate",
             "The return value is undefined if the work item with sub-group local ID equal to the "
             "calculated index is inactive.",
             "rotate in control flow every lane of the sub-group (or cluster) takes"),
    Category("rotate-delta-not-uniform", 10, ERROR, "cl_khr_subgroup_rotate, sub_group_rotate",
             "The value of _delta_ is required to be dynamically-uniform for all work items in "
             "the sub-group, otherwise the behavior is undefined.",
             "compute delta from sub-group-uniform values only"),
    Category("non-uniform-broadcast-index-not-uniform", 10, ERROR,
             KHR + ", sub_group_non_uniform_broadcast",
             "Behavior is undefined when the value of _index_ is not equivalent for all active "
             "work items in the sub-group.",
             "compute the index from sub-group-uniform values only (or use sub_group_shuffle)"),
    Category("non-uniform-broadcast-lane-invalid", 10, WARNING,
             KHR + ", sub_group_non_uniform_broadcast",
             "The return value is undefined if the work item with sub-group local ID equal to "
             "_index_ is inactive or if _index_ is greater than or equal to the size of the "
             "sub-group.",
             "broadcast from a lane that executes the call (sub_group_broadcast_first always does)"),
    Category("inverse-ballot-value-not-uniform", 10, ERROR, KHR + ", sub_group_inverse_ballot",
             "Behavior is undefined when _value_ is not equivalent for all active work items in "
             "the sub-group.",
             "pass the same bitfield from every lane (e.g. a sub_group_ballot result)"),
    Category("ballot-bit-extract-out-of-range", 10, WARNING, KHR + ", sub_group_ballot_bit_extract",
             "The predicate return value is undefined if the work item with sub-group local ID "
             "equal to _index_ is greater than or equal to the size of the sub-group.",
             "keep the index below get_sub_group_size()"),
    Category("ballot-find-no-bit", 10, WARNING, KHR + ", sub_group_ballot_find_lsb/msb",
             "If no bits representing predicate values from all work items in the sub-group are "
             "set in the bitfield _value_ then the return value is undefined.",
             "test sub_group_ballot_bit_count(value) != 0 first"),
    Category("cluster-size-invalid", 10, ERROR, KHR + ", clustered operations",
             "Behavior is undefined if the specified cluster size is not an integer constant "
             "expression, is not a power-of-two, or is greater than the maximum size of a "
             "sub-group within the dispatch.",
             "use a constant power of two up to get_max_sub_group_size()"),
    Category("media-block-size-invalid", 11, ERROR, MEDIA + ", Table 6.X",
             "The following restrictions in Table 6.X apply for allowed sizes for the explicit "
             "width and height parameters of the flexible media block read/write built-in "
             "functions. [...] The width and height of the region must be compile-time constants.",
             "use a constant width of 4..32 bytes (a multiple of 4) and a height within the table"),
    Category("media-block-x-misaligned", 11, ERROR, MEDIA + ", media block read/write",
             "The source byte x-offset and width must be 4 byte aligned.",
             "make the byte x-offset a multiple of 4"),
    Category("media-block-out-of-bounds", 11, ERROR, MEDIA + ", media block reads",
             "For out-of-bound reads, the read-in texels are replicated from the nearest edge for "
             "byte sized texels. The out-of-bound behavior is undefined for larger sized texels "
             "with the \"_uc\" builtin-functions.",
             "keep the region inside the image, or read with an element at least the texel's size"),
    Category("media-block-wide-format", 11, ERROR, MEDIA + ", out-of-bound reads, note 5",
             "The behavior is undefined for images with greater than dword sized texels (such as "
             "CL_RGBA + CL_FLOAT).",
             "use an image format of at most 4 bytes per texel"),
    Category("barrier-divergence", 6, ERROR, "OpenCL C 2.0 s6.13.8, work_group_barrier",
             "This function must be encountered by all work-items in a work-group executing the "
             "kernel.",
             "every work-item of the work-group must reach the barrier: no early return, "
             "no barrier in a non-uniform branch or loop"),
    Category("work-group-divergence", 6, ERROR, "OpenCL C 2.0 s6.13.15, work-group functions",
             "These built-in functions must be encountered by all work-items in a work-group "
             "executing the kernel.",
             "call the work-group function in control flow that is uniform across the work-group"),
    Category("out-of-bounds", 7, ERROR, "C99 s6.5.6p8 (OpenCL C is based on C99)",
             "If both the pointer operand and the result point to elements of the same array "
             "object, or one past the last element of the array object, the evaluation shall not "
             "produce an overflow; otherwise, the behavior is undefined. If the result points one "
             "past the last element of the array object, it shall not be used as the operand of a "
             "unary * operator that is evaluated.",
             "guard the access with a bounds test (global sizes are often rounded up)"),
    Category("misaligned", 7, ERROR, "OpenCL C 2.0 s6.1.5, alignment of types",
             "The behavior of an unaligned load or store is undefined, except for the vloadn, "
             "vload_halfn, vstoren, and vstore_halfn functions defined in section 6.13.7.",
             "access through a pointer aligned to the type's size, or use vloadn/vstoren"),
    Category("read-only-write", 7, ERROR, "OpenCL 2.0 clCreateBuffer, CL_MEM_READ_ONLY",
             "This flag specifies that the memory object is a read-only memory object when used "
             "inside a kernel. Writing to a buffer or image object created with CL_MEM_READ_ONLY "
             "inside a kernel is undefined.",
             "create the buffer READ_WRITE, or do not write to it (or to __constant memory)"),
    Category("image-write-out-of-bounds", 7, ERROR,
             "OpenCL C 2.0 s6.13.14.4, built-in image write functions",
             "The behavior of write_imagef, write_imagei and write_imageui for image objects "
             "created with image_channel_data_type values not specified in the description "
             "above or with (x, y) coordinate values that are not in the range (0 ... image "
             "width - 1, 0 ... image height - 1), respectively, is undefined.",
             "keep the coordinate inside the image (global sizes are often rounded up)"),
    Category("image-read-out-of-bounds", 7, WARNING,
             "OpenCL C 2.0 s6.13.14.1, sampler addressing modes",
             "CLK_ADDRESS_NONE – for this addressing mode the programmer guarantees that the "
             "image coordinates used to sample elements of the image refer to a location inside "
             "the image; otherwise the results are undefined.",
             "sampler-less reads behave as CLK_ADDRESS_NONE: keep the coordinate inside the "
             "image or read through a CLK_ADDRESS_CLAMP_TO_EDGE / _CLAMP sampler"),
    Category("uninitialized-read", 7, WARNING, "C99 s6.7.8p10",
             "If an object that has automatic storage duration is not initialized explicitly, "
             "its value is indeterminate.",
             "write the local or private variable before reading it (local memory starts undefined)"),
    Category("data-race", 8, ERROR, "C11 s5.1.2.4p25 (the OpenCL 2.0 memory model)",
             "The execution of a program contains a data race if it contains two conflicting "
             "actions in different threads, at least one of which is not atomic, and neither "
             "happens before the other. Any such data race results in undefined behavior.",
             "separate the conflicting accesses with a barrier (same work-group) or use atomics"),
    Category("division-by-zero", 9, WARNING, "OpenCL C 2.0 s6.3 b, arithmetic operators",
             "A divide by zero with integer types does not cause an exception but will result "
             "in an unspecified value.",
             "test the divisor before dividing"),
    Category("division-overflow", 9, WARNING, "SPIR-V 1.6 s3.52.13, OpSDiv",
             "Behavior is undefined if Operand 2 is -1 and Operand 1 is the minimum "
             "representable value for the operands' type, causing signed overflow.",
             "exclude INT_MIN / -1 (or divide in a wider type)"),
    Category("shift-too-wide", 9, WARNING, "OpenCL C 2.0 s6.3 j, shift operators",
             "The result of E1 << E2 is E1 left-shifted by log2(N) least significant bits in E2 "
             "viewed as an unsigned integer value, where N is the number of bits used to represent "
             "the data type of E1 after integer promotion",
             "the amount is taken modulo the bit width in OpenCL C (undefined in C): keep it below "
             "the width"),
    Category("shift-undefined", 9, WARNING, "SPIR-V 1.6 s3.52.14, OpShiftLeftLogical",
             "The resulting value is undefined if Shift is greater than or equal to the bit width "
             "of the components of Base.",
             "keep the shift amount below the bit width"),
    Category("conversion-out-of-range", 9, WARNING, "OpenCL C 2.0 s6.2.3.3, out-of-range behavior",
             "The result of out-of-range conversion is determined by the conversion rules "
             "specified by the C99 specification in section 6.3. When converting from a floating "
             "point type to an integer type, the behavior is implementation-defined.",
             "clamp the value first or use convert_<type>_sat"),
]

CATEGORIES: dict[str, Category] = {c.name: c for c in _ALL}
