"""torch.export.draft_export of a model with a data-dependent guard: the
output size depends on a tensor's value (.item()), which strict export cannot
decide; draft export runs on the real example input, records the guard and
reports it.

Draft export writes its own log through its own handler, into the folder
named by TORCH_DTRACE (else a folder export_<user> in the temp folder); this
script points TORCH_DTRACE at TORCH_TRACE's folder when it is not set.

    TORCH_TRACE=trace_draft_export python record_draft_export.py
"""

import os

import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x, n):
        k = n.item()
        y = self.fc(x)
        if k > 2:                     # a guard on a data-dependent value
            y = y * 2
        return y[:k].relu()


if __name__ == "__main__":
    torch.manual_seed(0)
    m = M().eval()
    args = (torch.randn(6, 8), torch.tensor(4))
    if "TORCH_TRACE" in os.environ:
        os.environ.setdefault("TORCH_DTRACE", os.environ["TORCH_TRACE"])
    ep = torch.export.draft_export(m, args)
    print(ep._report)
    torch.testing.assert_close(ep.module()(*args), m(*args))
    print("exported; the trace is in $TORCH_TRACE")
