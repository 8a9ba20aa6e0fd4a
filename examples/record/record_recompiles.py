"""Recompiles, one cause each, on CPU: why a frame compiled again.

Each function is compiled once and called so that its guards fail:
  scaled(x)   reads a global float; the global changes      -> [0/1]
  block(x)    a module: eval, then train mode (torch 2.13 guards no
              self.training here, so it does not compile again)
  cast(x)     float32, then float64 inputs (dtype)          -> [2/1]
  grow(x)     batch 4, then 6 (size: the recompile makes the batch dynamic),
              then a 3-d input (rank), compiled with dynamic=False so the
              size change stays static                        -> [3/1], [3/2]
  breaks(x)   a graph break; a second batch size recompiles both frames

    TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) TORCH_TRACE=trace INDUCTOR_PROVENANCE=1 python record_recompiles.py
"""

import torch

from model import Block

SCALE = 2.0


def scaled(x):
    return torch.sin(x) * SCALE + 1


def cast(x):
    return torch.cos(x) + x * 3


def grow(x):
    return torch.relu(x) * 2 - x.sum(-1, keepdim=True)


def breaks(x):
    y = torch.tanh(x) + 1
    print("graph break here")
    return y * y


if __name__ == "__main__":
    global_scaled = torch.compile(scaled)
    torch.manual_seed(0)
    x = torch.randn(4, 16)
    with torch.no_grad():
        global_scaled(x)
        SCALE = 3.0
        global_scaled(x)                    # G['SCALE'] == 2.0 fails

        block = Block(16).eval()
        compiled_block = torch.compile(block)
        compiled_block(x)
        block.train()
        compiled_block(x)                   # self.training == False fails

        compiled_cast = torch.compile(cast)
        compiled_cast(x)
        compiled_cast(x.double())           # dtype

        compiled_grow = torch.compile(grow, dynamic=False)
        compiled_grow(x)
        compiled_grow(torch.randn(6, 16))   # size, kept static
        compiled_grow(torch.randn(2, 4, 16))  # rank

        compiled_breaks = torch.compile(breaks)
        compiled_breaks(x)
        compiled_breaks(torch.randn(6, 16))  # both frames recompile
    print("recompiled; the trace is in $TORCH_TRACE")
