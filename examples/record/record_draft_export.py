"""torch.export.draft_export of a model with a data-dependent guard: the
output size depends on a tensor's value (.item()), which strict export cannot
decide; draft export runs on the real example input, records the guard and
reports it.

    TORCH_TRACE=trace_draft_export python record_draft_export.py
"""

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
    ep = torch.export.draft_export(m, args)
    print(ep._report)
    torch.testing.assert_close(ep.module()(*args), m(*args))
    print("exported; the trace is in $TORCH_TRACE")
