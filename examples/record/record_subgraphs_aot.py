"""The nested torch.cond of record_subgraphs.py under AOTInductor on CPU:
the C++ wrapper inlines each branch in the caller's code, in a block that
opens with `// subgraph: true_graph_0` (nested blocks for the inner cond).

    TORCH_TRACE=/tmp/trace_subgraphs_aot INDUCTOR_PROVENANCE=1 python record_subgraphs_aot.py
"""

import os
import tempfile

import torch

from model import example_input
from record_subgraphs import SubgraphModel

if __name__ == "__main__":
    torch.manual_seed(0)
    model = SubgraphModel(region=False).eval()
    x = example_input("cpu")
    with torch.no_grad():
        ep = torch.export.export(model, (x,))
        path = os.path.join(tempfile.mkdtemp(), "model.pt2")
        torch._inductor.aoti_compile_and_package(ep, package_path=path)
        loaded = torch._inductor.aoti_load_package(path)
        torch.testing.assert_close(loaded(x), model(x), rtol=1e-3, atol=1e-3)
    print("compiled %s and checked; the trace is in $TORCH_TRACE" % path)
