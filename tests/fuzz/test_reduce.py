"""The delta debugger against predicates whose minimal answers are known by hand."""

from __future__ import annotations

from sgvm.fuzz.reduce import reduce_lines


def test_keeps_exactly_the_lines_the_predicate_needs():
    lines = [f"s{i};" for i in range(40)]
    needed = {"s3;", "s17;", "s38;"}
    calls = []

    def interesting(ls):
        calls.append(1)
        return needed <= set(ls)

    assert reduce_lines(lines, interesting) == ["s3;", "s17;", "s38;"]
    assert len(calls) < 200


def test_unwraps_blocks_but_keeps_their_bodies():
    lines = ["a;", "if (x) {", "  for (;;) {", "    b;", "  }", "} else {", "  c;", "}", "d;"]

    def interesting(ls):
        braces = sum(line.count("{") - line.count("}") for line in ls)
        return braces == 0 and "    b;" in ls and "  c;" in ls

    assert reduce_lines(lines, interesting) == ["    b;", "  c;"]


def test_budget_bounds_the_work():
    calls = []

    def interesting(ls):
        calls.append(1)
        return True

    reduce_lines([f"s{i};" for i in range(100)], interesting, budget=5)
    assert len(calls) <= 5
