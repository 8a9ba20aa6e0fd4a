"""Dynamic shapes, a graph break and FX graph cache hits, on CPU.

The function breaks its graph at a print, so it compiles as two frames. A
second batch size makes Dynamo recompile each frame with a dynamic batch
dimension. Then torch._dynamo.reset() forgets the compiled code and the same
calls compile again, this time hitting Inductor's FX graph cache (start with
an empty TORCHINDUCTOR_CACHE_DIR so the first compiles are misses).

    TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) TORCH_TRACE=trace_dynamic INDUCTOR_PROVENANCE=1 python record_dynamic.py
"""

import torch

from model import Block


def run(block, inputs):
    def f(x):
        y = block(x)
        print("graph break here")
        return torch.relu(y) * 2 + 1

    compiled = torch.compile(f)
    with torch.no_grad():
        for x in inputs:
            torch.testing.assert_close(compiled(x), f(x), rtol=1e-3, atol=1e-3)


if __name__ == "__main__":
    torch.manual_seed(0)
    block = Block(16).eval()
    inputs = [torch.randn(4, 16), torch.randn(6, 16), torch.randn(9, 16)]
    run(block, inputs)        # [0/0] [1/0] static, [0/1] [1/1] dynamic
    torch._dynamo.reset()
    run(block, inputs)        # the same graphs again: FX graph cache hits
    print("compiled twice; the trace is in $TORCH_TRACE")
