"""The order in which the engines prefer blocks when the lanes of a sub-group diverge.

The CPU engine (``engine/cpu/scheduler.py``) runs the lowest-numbered block any lane
waits at, for exactly the lanes waiting there (DESIGN.md, "Divergence"); the CUDA
backend follows the same schedule in functions with sub-group collectives
(``engine/cuda/render_sched.py``), so both agree on which lanes take part in each.
"""

from __future__ import annotations

from ...spirv import Function


def successors(fn: Function) -> dict[int, list[int]]:
    """Each block's label → the labels its terminator may branch to."""
    succ: dict[int, list[int]] = {}
    for b in fn.blocks:
        t = b.terminator
        if t.opname == "OpBranch":
            succ[b.label] = [t.operands[0].value]
        elif t.opname == "OpBranchConditional":
            succ[b.label] = [t.operands[1].value, t.operands[2].value]
        elif t.opname == "OpSwitch":
            succ[b.label] = [t.operands[1].value] + [p.value[1] for p in t.operands[2:]]
        else:
            succ[b.label] = []
    return succ


def block_order(fn: Function) -> list[int]:
    """Reachable block labels in a topological order of the forward edges in which
    every loop's blocks are contiguous and precede the loop's exits.

    Running the lowest-numbered waiting block first then makes lanes finish a
    loop (and both sides of a branch) before any lane moves past it, so lanes
    reconverge at post-dominators and a barrier after a loop sees every lane.
    """
    succ = successors(fn)
    entry = fn.blocks[0].label
    # DFS: reverse post-order numbering and back edges (edges to an ancestor).
    seen, on_stack, post, back = {entry}, {entry}, [], set()
    stack = [(entry, iter(succ[entry]))]
    while stack:
        label, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            post.append(label)
            on_stack.discard(label)
            stack.pop()
        elif nxt in on_stack:
            back.add((label, nxt))
        elif nxt not in seen:
            seen.add(nxt)
            on_stack.add(nxt)
            stack.append((nxt, iter(succ[nxt])))
    rpo = {label: i for i, label in enumerate(reversed(post))}
    pred: dict[int, list[int]] = {label: [] for label in rpo}
    for u in rpo:
        for v in succ[u]:
            pred[v].append(u)
    loops: dict[int, set[int]] = {}  # header → body (natural loop)
    for u, h in back:
        body = loops.setdefault(h, {h})
        work = [u]
        while work:
            x = work.pop()
            if x not in body:
                body.add(x)
                work.extend(pred[x])

    def order(nodes: set[int], region: int | None) -> list[int]:
        inner = [h for h in loops if h in nodes and h != region]
        rep = {n: n for n in nodes}
        for n in nodes:
            best = None
            for h in inner:
                if n in loops[h] and (best is None or len(loops[h]) > len(loops[best])):
                    best = h
            if best is not None:
                rep[n] = best
        reps = set(rep.values())
        indeg = {r: 0 for r in reps}
        edges: dict[int, set[int]] = {r: set() for r in reps}
        for u in nodes:
            for v in succ[u]:
                if v in nodes and (u, v) not in back and rep[u] != rep[v] \
                        and rep[v] not in edges[rep[u]]:
                    edges[rep[u]].add(rep[v])
                    indeg[rep[v]] += 1
        ready = sorted((r for r in reps if indeg[r] == 0), key=rpo.__getitem__)
        out: list[int] = []
        while ready:
            r = ready.pop(0)
            out.extend(order(loops[r], r) if r in loops and r != region else [r])
            for v in edges[r]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    ready.append(v)
            ready.sort(key=rpo.__getitem__)
        return out

    return order(set(rpo), None)
