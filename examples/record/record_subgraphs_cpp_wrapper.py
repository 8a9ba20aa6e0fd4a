"""The nested torch.cond of record_subgraphs.py with
torch._inductor.config.cpp_wrapper = True on CPU: the C++ wrapper, inside the
Python output code, inlines each branch in a block that opens with
`// subgraph: true_graph_0`.

    TORCH_TRACE=/tmp/trace_subgraphs_cpp_wrapper INDUCTOR_PROVENANCE=1 python record_subgraphs_cpp_wrapper.py
"""

import torch._inductor.config as inductor_config

from model import record_jit
from record_subgraphs import SubgraphModel

if __name__ == "__main__":
    inductor_config.cpp_wrapper = True
    record_jit("cpu", build=lambda: SubgraphModel(region=False))
