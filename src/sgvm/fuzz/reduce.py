"""Delta debugging of a kernel's text (Zeller and Hildebrandt's ddmin over its lines).

``reduce_lines(lines, interesting)`` returns a smaller list of lines for which
``interesting`` still holds. The candidates a fuzzing campaign tries must still build,
pass the checker with no findings (so the reduced kernel is as well-defined as the
original) and show the same disagreement; deleting a line that declares a variable
still in use simply fails to build and is rejected. Two passes alternate until neither
shrinks the kernel: ddmin over single lines, and unwrapping a block (deleting its
``if``/``for``/``else`` line and its closing brace, keeping the body).
"""

from __future__ import annotations

from collections.abc import Callable

Lines = list[str]


def _ddmin(lines: Lines, test: Callable[[Lines], bool], budget: list[int]) -> Lines:
    n = 2
    while len(lines) >= 2 and budget[0] > 0:
        chunk = -(-len(lines) // n)
        reduced = False
        for start in range(0, len(lines), chunk):
            candidate = lines[:start] + lines[start + chunk:]
            budget[0] -= 1
            if candidate and test(candidate):
                lines, n, reduced = candidate, max(n - 1, 2), True
                break
            if budget[0] <= 0:
                break
        if not reduced:
            if n >= len(lines):
                break
            n = min(len(lines), 2 * n)
    return lines


def _blocks(lines: Lines) -> list[tuple[int, int]]:
    """(opening line, closing line) of every ``{ … }`` block whose braces end lines."""
    stack, out = [], []
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("}"):
            if stack:
                out.append((stack.pop(), i))
            if s.endswith("{"):  # "} else {": closes one block, opens the next
                stack.append(i)
        elif s.endswith("{"):
            stack.append(i)
    return out


def _unwrap(lines: Lines, test: Callable[[Lines], bool], budget: list[int]) -> Lines:
    changed = True
    while changed and budget[0] > 0:
        changed = False
        for open_, close in _blocks(lines):
            if lines[open_].strip().startswith("}"):
                continue
            candidate = [ln for i, ln in enumerate(lines) if i not in (open_, close)]
            budget[0] -= 1
            if test(candidate):
                lines, changed = candidate, True
                break
            if budget[0] <= 0:
                break
    return lines


def reduce_lines(lines: Lines, interesting: Callable[[Lines], bool], budget: int = 400) -> Lines:
    """A 1-minimal (within ``budget`` tests) sublist of ``lines`` that is still interesting."""
    left = [budget]
    cache: dict[tuple[str, ...], bool] = {}

    def test(candidate: Lines) -> bool:
        key = tuple(candidate)
        if key not in cache:
            cache[key] = interesting(candidate)
        return cache[key]

    while left[0] > 0:
        before = len(lines)
        lines = _ddmin(lines, test, left)
        lines = _unwrap(lines, test, left)
        if len(lines) == before:
            break
    return lines
