"""The values of the built-in variables in the native backend's lane loops (docs/native.md):
the ids from the work-group's values (``sg_gb0`` …) and the row's local ids (``sg_x``,
``sg_y``, ``sg_z``), the sub-group values from the lane ``l``."""

from __future__ import annotations

from ...errors import UnsupportedError
from ...spirv import Type
from ..clower import ctypes_ as C
from . import non_uniform

ID_DIMS = {"GlobalInvocationId", "LocalInvocationId", "WorkgroupId", "WorkgroupSize",
           "EnqueuedWorkgroupSize", "GlobalSize", "NumWorkgroups", "GlobalOffset"}


def values(name: str, t: Type, S: int, together: bool, fused: bool = False) -> list[str]:
    """The C of built-in variable ``name`` of type ``t`` at lane ``l`` (sub-group size ``S``;
    ``together``: the code for work-groups run together, ``regions.groups``; ``fused``: in
    the code of one sub-group from lane ``sg_c``, ``fused.py``, where the sub-group local
    id is the lane's distance from ``sg_c``: clang then sees it run 0 … S-1 along the lane
    loop and loads consecutive elements as a vector instead of lane by lane)."""
    if name in ID_DIMS:
        f = {"GlobalInvocationId": "(sg_gb{d} + sg_{xyz})",
             "LocalInvocationId": "sg_{xyz}", "WorkgroupId": "sg_grp{d}",
             "WorkgroupSize": "sg_lsz{d}", "EnqueuedWorkgroupSize": "sg_enq{d}",
             "GlobalSize": "sg_gsz{d}", "NumWorkgroups": "sg_ngr{d}",
             "GlobalOffset": "sg_goff{d}"}[name]
        # work-groups run together: the global id of the row's (regions.groups)
        first = "(sg_gb0 + (u64)sg_wi * sg_enq0 + sg_x)" if together \
            and name == "GlobalInvocationId" else f
        return [f"({C.scalar_ctype(x)}){(first if d == 0 else f).format(d=d, xyz='xyz'[d])}"
                for d, x in enumerate(C.leaf_types(t))]
    if name in non_uniform.LANE_MASKS:
        return non_uniform.lane_mask(name, t, S)
    ll = "(l - sg_wof[l] * sg_gvol)" if together else "l"  # the local linear id
    expr = {"WorkDim": "sg_dim",
            "GlobalLinearId": "(sg_linear_gid(sg_g, l))",
            "LocalInvocationIndex": ll, "SubgroupSize":
            f"(sg_gvol - {ll} / {S}u * {S}u < {S}u ? sg_gvol - {ll} / {S}u * {S}u : {S}u)",
            "SubgroupMaxSize": f"{S}u", "NumSubgroups": f"((sg_gvol + {S - 1}u) / {S}u)",
            "NumEnqueuedSubgroups":
            f"((u32)((sg_enq0 * sg_enq1 * sg_enq2 + {S - 1}) / {S}))",
            "SubgroupId": f"({ll} / {S}u)", "SubgroupLocalInvocationId": f"((l - sg_c) % {S}u)" if fused else f"(l % {S}u)"}.get(name)
    if expr is None:
        raise UnsupportedError(f"native backend: built-in {name}")
    return [f"({C.scalar_ctype(t)}){expr}"]
