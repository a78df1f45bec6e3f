"""What every backend shares: value types and memory layout (``types``), constant values
and byte packing (``values``), the folding rules of OpSpecConstantOp and sampler and image
operand constants (``constants``), printf formatting (``printf``), kernel signatures
(``signature``), the step budget (``limits``), the block order of divergent
execution (``block_order``). The backend
interface is ``engine.backend``."""
