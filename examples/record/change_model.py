"""The model of record_change_before.py and record_change_after.py: one
small network recorded before and after a small change, for `tlparse diff`.

The change, as a user might make it between two runs:
  - the hidden layer grows from 32 to 48 features (fc1, fc2);
  - forward gains an op (a relu after fc2);
  - the graph break moves from after fc1 to after fc2;
  - a second function, `postprocess`, is compiled only after the change.
Both runs call the model with a batch of 8, then 12, so forward compiles
twice in each (the second compile with a dynamic batch).
"""

import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self, after):
        super().__init__()
        self.after = after
        hidden = 48 if after else 32
        self.fc1 = nn.Linear(16, hidden)
        self.fc2 = nn.Linear(hidden, 16)

    def forward(self, x):
        y = F.gelu(self.fc1(x))
        if not self.after:
            torch._dynamo.graph_break()
        y = self.fc2(y)
        if self.after:
            y = torch.relu(y)
            torch._dynamo.graph_break()
        return y + x


def postprocess(y):
    return torch.softmax(y, -1) * 2


def record(after):
    """Compiles Net (and, after the change, postprocess), calls it with two
    batch sizes and checks it against eager mode."""
    torch.manual_seed(0)
    model = Net(after).eval()
    compiled = torch.compile(model)
    with torch.no_grad():
        for batch in (8, 12):
            x = torch.randn(batch, 16)
            y = compiled(x)
            torch.testing.assert_close(y, model(x), rtol=1e-3, atol=1e-3)
            if after:
                torch.testing.assert_close(torch.compile(postprocess)(y),
                                           postprocess(y), rtol=1e-3,
                                           atol=1e-3)
    print("compiled and checked; the trace is in $TORCH_TRACE")
