"""The sub-group specifications as small pure NumPy functions over lane arrays.

Each rule of cl_intel_subgroups, cl_intel_subgroups_char, SPV_INTEL_subgroups,
the cl_khr_subgroup_* extensions, cl_khr_integer_dot_product, cl_intel_media_block_io
and the OpenCL C work-group functions is one function here, whose docstring
quotes the sentence it implements. The CPU engine calls them; the CUDA
backend's tests compare against them.

Array conventions
-----------------
- A sub-group-shaped value is an array of shape (G, S) or (G, S, N): axis 0
  indexes independent groups (sub-groups, or work-groups for the work-group
  functions), axis 1 the lane within the group, and the optional trailing axis
  N the components of a vector. S is the *maximum* sub-group size; the missing
  lanes of a partial sub-group are present but inactive. For work-groups, axis 1
  is the linear local id.
- ``active`` is a bool (G, S) array of the lanes that execute the operation.
  Inactive lanes never contribute; results in them are unspecified (usually 0),
  since the engine only writes back active lanes.
- Values keep their NumPy dtype (int8 ... uint64, float16/32/64). Integer
  arithmetic wraps at every width; float16 rounds to half at every step.
- Group-wide results (reduce, all/any, broadcast) are repeated in every lane,
  so every function returns arrays of the input's (G, S[, N]) shape;
  ``reduce_groups`` is ``reduce`` once per group, (G[, N]).
- Functions that can hit undefined behaviour return or offer a bool mask of it
  (``out_of_range``, ``*_undefined``, ``*_misaligned``) for the checkers.
"""

from .ballot import (
    all_equal,
    ballot,
    ballot_bit_count,
    ballot_bit_extract,
    ballot_exclusive_scan,
    ballot_find_lsb,
    ballot_find_msb,
    ballot_inclusive_scan,
    bit_extract_undefined,
    broadcast_first,
    elect,
    find_undefined,
    inverse_ballot,
    sub_group_mask,
)
from .block_io import block_offsets, read_misaligned, write_misaligned
from .collectives import (
    all_,
    any_,
    broadcast,
    broadcast_undefined,
    cluster_size_undefined,
    clustered_reduce,
    group_lane_id,
    identity,
    reduce,
    reduce_groups,
    scan_exclusive,
    scan_inclusive,
)
from .dot_product import dot, dot_acc_sat, unpack_4x8
from .image_block import (
    image_block_coords,
    image_block_in_bounds,
    image_block_oob_undefined,
    image_block_read_bytes,
    image_block_write_dropped,
    image_block_write_misaligned,
    image_from_buffer_base_misaligned,
    image_from_buffer_pitch_invalid,
    texel_size_undefined,
)
from .khr_shuffles import (
    gather,
    khr_shuffle_down_source,
    khr_shuffle_source,
    khr_shuffle_up_source,
    khr_shuffle_xor_source,
    rotate_source,
)
from .lanes import first_active, not_uniform
from .media_block import (
    MAX_HEIGHT,
    media_block_coords,
    media_block_oob_undefined,
    media_block_size_undefined,
    media_block_x_misaligned,
)
from .shuffles import (
    ShuffleSource,
    shuffle,
    shuffle_down,
    shuffle_down_source,
    shuffle_source,
    shuffle_up,
    shuffle_up_source,
    shuffle_xor,
    shuffle_xor_source,
    source_inactive,
)
from .work_group import (
    enqueued_num_sub_groups,
    linear_local_id,
    local_id_from_linear,
    local_id_out_of_range,
    num_sub_groups,
    sub_group_id,
    sub_group_local_id,
    sub_group_size,
    work_group_broadcast,
)

__all__ = [
    "MAX_HEIGHT",
    "ShuffleSource",
    "all_",
    "all_equal",
    "any_",
    "ballot",
    "ballot_bit_count",
    "ballot_bit_extract",
    "ballot_exclusive_scan",
    "ballot_find_lsb",
    "ballot_find_msb",
    "ballot_inclusive_scan",
    "bit_extract_undefined",
    "block_offsets",
    "broadcast",
    "broadcast_first",
    "broadcast_undefined",
    "cluster_size_undefined",
    "clustered_reduce",
    "dot",
    "dot_acc_sat",
    "elect",
    "enqueued_num_sub_groups",
    "find_undefined",
    "first_active",
    "gather",
    "group_lane_id",
    "identity",
    "image_block_coords",
    "image_block_in_bounds",
    "image_block_oob_undefined",
    "image_block_read_bytes",
    "image_block_write_dropped",
    "image_block_write_misaligned",
    "image_from_buffer_base_misaligned",
    "image_from_buffer_pitch_invalid",
    "inverse_ballot",
    "khr_shuffle_down_source",
    "khr_shuffle_source",
    "khr_shuffle_up_source",
    "khr_shuffle_xor_source",
    "linear_local_id",
    "local_id_from_linear",
    "local_id_out_of_range",
    "media_block_coords",
    "media_block_oob_undefined",
    "media_block_size_undefined",
    "media_block_x_misaligned",
    "not_uniform",
    "num_sub_groups",
    "read_misaligned",
    "reduce",
    "reduce_groups",
    "rotate_source",
    "scan_exclusive",
    "scan_inclusive",
    "shuffle",
    "shuffle_down",
    "shuffle_down_source",
    "shuffle_source",
    "shuffle_up",
    "shuffle_up_source",
    "shuffle_xor",
    "shuffle_xor_source",
    "source_inactive",
    "sub_group_id",
    "sub_group_local_id",
    "sub_group_mask",
    "sub_group_size",
    "texel_size_undefined",
    "unpack_4x8",
    "work_group_broadcast",
    "write_misaligned",
]
