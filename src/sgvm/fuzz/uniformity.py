"""How uniform a generated value or control-flow context is (sgvm.fuzz.generator): the
same for the whole work-group, for the sub-group, or per work-item."""

WG, SG, LANE = 2, 1, 0
