"""The nested torch.cond of record_subgraphs.py under AOTInductor on CPU:
the C++ wrapper inlines each branch in the caller's code, in a block that
opens with `// subgraph: true_graph_0` (nested blocks for the inner cond).

    TORCH_TRACE=/tmp/trace_subgraphs_aot INDUCTOR_PROVENANCE=1 python record_subgraphs_aot.py
"""

from model import record_aot
from record_subgraphs import SubgraphModel

if __name__ == "__main__":
    record_aot("cpu", build=lambda: SubgraphModel(region=False))
