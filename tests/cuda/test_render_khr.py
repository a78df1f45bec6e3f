"""Renderer checks that need no GPU: the cl_khr_subgroup_* instructions, media block IO and
the integer dot products render for sub-group sizes 8/16/32, every collective taking the
sub-group membership ``sg_m`` (docs/cuda.md); the GPU runs are in tests/subgroups with
SGVM_TEST_DEVICE=cuda."""

from __future__ import annotations

import pytest

import sgvm
from sgvm.engine.cuda.render import Renderer
from sgvm.spirv import read

SOURCE = """
kernel void k(global int *o, global uint4 *b, read_only image2d_t im, write_only image2d_t wo) {
  int l = get_sub_group_local_id(), x = o[l];
  uint4 bl = sub_group_ballot(x > 3);
  b[l] = bl + get_sub_group_eq_mask() + get_sub_group_gt_mask();
  o[l] = sub_group_elect() + sub_group_non_uniform_all_equal(x) + sub_group_inverse_ballot(bl)
       + sub_group_ballot_bit_count(bl) + sub_group_ballot_find_msb(bl)
       + sub_group_ballot_exclusive_scan(bl) + sub_group_ballot_bit_extract(bl, 3)
       + sub_group_shuffle_xor(x, 3) + sub_group_shuffle_up(x, 1) + sub_group_rotate(x, 3)
       + sub_group_clustered_rotate(x, 2, 4) + sub_group_non_uniform_broadcast(x, 1)
       + sub_group_broadcast_first(x) + sub_group_non_uniform_scan_exclusive_mul(x)
       + sub_group_clustered_reduce_logical_xor(x, 8) + sub_group_non_uniform_reduce_and(x)
       + dot_acc_sat_4x8packed_su_int(x, o[4], o[5]) + (int)dot(as_uchar4(x), as_uchar4(o[2]))
       + intel_sub_group_media_block_read_us2((int2)(0, 0), 4, 2, im).y;
  intel_sub_group_media_block_write_ui((int2)(0, 0), 4, 1, (uint)x, wo);
}
"""


@pytest.mark.parametrize("S", [8, 16, 32])
def test_khr_instructions_render(S: int) -> None:
    module = read(sgvm.compile(SOURCE, "-cl-std=CL3.0"))
    src, kernels = Renderer(module, S).render()
    assert "k" in kernels
    for call in ("sg_ballot(sg_m,", "sg_elect(sg_m)", "sg_all_equal(sg_m,", "sg_kshuffle(sg_m,",
                 "sg_kshuffle_up(sg_m,", "sg_krotate(sg_m,", "sg_broadcast_first(sg_m,",
                 "sg_scan<OpMul<u32>, u32>(sg_m,", "sg_clustered<OpLXor, bool>(sg_m,",
                 "sg_reduce<OpAnd<u32>, u32>(sg_m,", "sg_bit_count(", "sg_find_msb(",
                 "sg_lane_mask(0)", "sg_lane_mask(2)", "sg_media_block_read<u16, 2>",
                 "sg_media_block_write<u32, 1>", "(s8)((u32)"):
        assert call in src, call
