"""The C++ function of one kernel around its blocks' cases (docs/native.md, "The code it
generates"): the work-group loop over the range of work-groups a call runs (their ids
counted up, the local ids filled when the group size changes, local and private memory
cleared), and in it the scheduler's loop, whose step runs the lowest block some lane waits
at: a region's phase for blocks in a sub-group region (``regions.phase``), else the
block's case of the switch. An ``extern "C"`` entry point passes the frame's lane arrays
as ``__restrict`` parameters."""

from __future__ import annotations

from . import regions, schedule


def function(symbol: str, site_table: str, arrays: list[tuple[str, str, int]],
             private_bytes: int, groupable: bool, head: list[str], spec: list[str],
             scalar_decls: list[str], lazy: list[str], phases: list[str], body: list[str]
             ) -> str:
    """The C++ of kernel ``symbol``: ``arrays`` (C type, name, byte offset per lane) are the
    frame's lane arrays, ``head`` the argument and check set-up, ``spec`` the spec-constant
    values, ``scalar_decls`` the work-group scalars, ``lazy`` the check of counters left
    unwritten (``counters.head``; none: the kernel leaves none), ``phases`` the regions' phases and
    ``body`` the blocks' cases; ``groupable``: the code for work-groups run together."""
    return "\n".join([
        site_table,
        *regions.group_macros(groupable),
        f"static __attribute__((noinline)) int {symbol}_run(const SgCtx *sgc, "
        "const u64 *sg_args, u64 sg_first, u64 sg_count, char *sg_local, char *sg_priv, "
        "u32 sg_pm" + "".join(f", {ct} *__restrict {n}" for ct, n, _ in arrays) + ") {",
        "  SgGroup sg_g; sg_g.c = sgc; sg_g.local = sg_local; sg_g.priv = sg_priv;",
        f"  sg_g.priv_end = sg_priv + (u64){private_bytes} * sg_pm;",
        "  memset(sg_fsl, 0, (u64)4 * sg_pm);",
        "  sg_g.lid[0] = sg_lid0; sg_g.lid[1] = sg_lid1; sg_g.lid[2] = sg_lid2; sg_g.wof = sg_wof;",
        "  const u64 sg_enq0 = sgc->enq[0], sg_enq1 = sgc->enq[1], sg_enq2 = sgc->enq[2];",
        "  const u64 sg_goff0 = sgc->goff[0], sg_goff1 = sgc->goff[1], sg_goff2 = sgc->goff[2];",
        "  const u64 sg_gsz0 = sgc->gsize[0], sg_gsz1 = sgc->gsize[1], sg_gsz2 = sgc->gsize[2];",
        "  const u64 sg_ngr0 = sgc->ngr[0], sg_ngr1 = sgc->ngr[1], sg_ngr2 = sgc->ngr[2];",
        "  const u32 sg_dim = sgc->dim;",
        *head,
        "  u64 sg_had[3] = {0, 0, 0};  // the group size the local ids were filled for",
        "  u64 sg_merged = 0, sg_joined = 0;  // loops run fused (merge.py, segment_joins.py): counted",
        "  u64 sg_streamed = 0;  // pieces of rows stored with non-temporal stores (streams.py)",
        "  u64 sg_looped = 0;  // loops run sub-group by sub-group (loops.py): the same",
        "  u64 sg_prefixed = 0;  // branches on the local id run without lane loops (prefix.py)",
        # the work-group's id: divided out once, then counted up (no division per group)
        "  sg_g.gid[0] = sg_first % sg_ngr0; sg_g.gid[1] = sg_first / sg_ngr0 % sg_ngr1;",
        "  sg_g.gid[2] = sg_first / (sg_ngr0 * sg_ngr1);",
        # sg_W work-groups at a time, consecutive in dimension 0 (regions.groups): lane
        # l of work-group gid + sg_wof[l]; sg_W divides the count of groups in dimension 0
        f"  const u64 sg_W = {'sgc->wg' if groupable else '1'};",
        "  for (u64 sg_w = sg_first; sg_w < sg_first + sg_count; sg_w += sg_W) {",
        "    if (sg_w != sg_first && (sg_g.gid[0] += sg_W) == sg_ngr0) { sg_g.gid[0] = 0;",
        "      if (++sg_g.gid[1] == sg_ngr1) { sg_g.gid[1] = 0; sg_g.gid[2]++; } }",
        "    for (int d = 0; d < 3; d++) { u64 left = sgc->gsize[d] - sg_g.gid[d] * sgc->enq[d];",
        "      sg_g.lsz[d] = left < sgc->enq[d] ? left : sgc->enq[d]; }",
        "    const u32 sg_gvol = (u32)(sg_g.lsz[0] * sg_g.lsz[1] * sg_g.lsz[2]);",
        "    const u32 sg_vol = sg_gvol * (u32)sg_W;",
        "    if (sgc->local_bytes) memset(sg_local, 0, sgc->local_bytes);",
        f"    if ({private_bytes}) memset(sg_priv, 0, (u64){private_bytes} * sg_pm);",
        # no counters to set: every lane runs the entry block (sg_next), whose terminator
        # sets each lane's counter before anything reads it
        "    if (sg_g.lsz[0] != sg_had[0] || sg_g.lsz[1] != sg_had[1] || sg_g.lsz[2] != sg_had[2]) {",
        "      sg_had[0] = sg_g.lsz[0]; sg_had[1] = sg_g.lsz[1]; sg_had[2] = sg_g.lsz[2];",
        "      u32 l = 0; for (u32 w = 0; w < (u32)sg_W; w++)",
        "      for (u32 z = 0; z < (u32)sg_g.lsz[2]; z++)",
        "        for (u32 y = 0; y < (u32)sg_g.lsz[1]; y++)",
        "          for (u32 x = 0; x < (u32)sg_g.lsz[0]; x++, l++) {",
        "            sg_lid0[l] = x; sg_lid1[l] = y; sg_lid2[l] = z; sg_wof[l] = w; } }",
        "    const u64 sg_gb0 = sg_g.gid[0] * sg_enq0 + sg_goff0, sg_gb1 = sg_g.gid[1] * sg_enq1 "
        "+ sg_goff1, sg_gb2 = sg_g.gid[2] * sg_enq2 + sg_goff2;",
        "    const u64 sg_grp0 = sg_g.gid[0], sg_grp1 = sg_g.gid[1], sg_grp2 = sg_g.gid[2];",
        "    const u64 sg_lsz0 = sg_g.lsz[0], sg_lsz1 = sg_g.lsz[1], sg_lsz2 = sg_g.lsz[2];",
        "    const u32 sg_row = SG_ROW;",
        *spec,
        *scalar_decls,
        "    u64 sg_steps = 0;",
        *(["    u32 sg_lazy = 0;  // counters stale: 1 every lane's, 2 two runs' (counters.py)"]
          if lazy else []),
        *schedule.HEAD,
        *lazy,
        *phases,
        "      if (sgc->checks && ++sg_steps > sgc->steps) {",
        "        sg_fault(sgc->fault, sg_linear_gid(sg_g, 0), 0, 0, 0, 8); return 1; }",
        "      const bool sg_all = sg_hi == sg_b;",
        *schedule.RUN,
        "      switch (sg_b) {",
        *body,
        "      default: return 2;",
        "      }",
        "    }",
        "  }",
        "  if (sg_merged) __atomic_fetch_add(&sg_merged_runs, sg_merged, __ATOMIC_RELAXED);",
        "  if (sg_looped) __atomic_fetch_add(&sg_looped_runs, sg_looped, __ATOMIC_RELAXED);",
        "  if (sg_joined) __atomic_fetch_add(&sg_joined_runs, sg_joined, __ATOMIC_RELAXED);",
        "  if (sg_streamed) __atomic_fetch_add(&sg_streamed_runs, sg_streamed, __ATOMIC_RELAXED);",
        "  if (sg_prefixed) __atomic_fetch_add(&sg_prefix_runs, sg_prefixed, __ATOMIC_RELAXED);",
        "  return 0;",
        "}",
        f'extern "C" int {symbol}(const SgCtx *sgc, const u64 *sg_args, u64 sg_first, '
        "u64 sg_count, char *sg_frame, char *sg_local, char *sg_priv, u32 sg_pm) {",
        f"  const int sg_rc = {symbol}_run(sgc, sg_args, sg_first, sg_count, sg_local, "
        "sg_priv, sg_pm" + "".join(f", ({ct} *)(sg_frame + (u64){off} * sg_pm)"
                                   for ct, _, off in arrays) + ");",
        "  SG_STREAMS_DONE();  // before the pool counts the chunk done (streams.py)",
        "  return sg_rc;",
        "}",
        *regions.group_macros(None),
    ])
