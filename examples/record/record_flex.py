"""flex_attention on CPU, with provenance: Dynamo writes the score and mask
functions as subgraph classes nested in the graph (`class score_mod_0`,
`class mask_fn_0`), whose node names repeat outer ones (`new_ones`,
`full_default`), and the block mask's `dense_mask[...] = new_ones;  setitem =
dense_mask` line, FX's two-statement form of an in-place node.

    TORCH_TRACE=/tmp/trace_flex INDUCTOR_PROVENANCE=1 python record_flex.py
"""

import torch
from torch.nn.attention.flex_attention import flex_attention


def relative_bias(score, batch, head, q_index, kv_index):
    return score + (q_index - kv_index) * 0.1


def attention(q, k, v):
    return flex_attention(q, k, v, score_mod=relative_bias)


if __name__ == "__main__":
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 128, 16) for _ in range(3))
    compiled = torch.compile(attention)
    with torch.no_grad():
        torch.testing.assert_close(compiled(q, k, v), attention(q, k, v),
                                   rtol=1e-3, atol=1e-3)
    print("compiled and checked; the trace is in $TORCH_TRACE")
