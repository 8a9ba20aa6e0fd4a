"""Recompiles of a training step on CPU: each compile of the model has a
forward and a backward Inductor graph (the backward compiled when
loss.backward() first runs it, in the same compile id).

  Head(act)   a module attribute: act "relu", then "gelu"     -> [0/1]
              (the backward's kernels change with it)
              batch 8, then 12 (automatic dynamic)           -> [0/2]
              (forward and backward with a symbolic batch)

    TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) TORCH_TRACE=trace INDUCTOR_PROVENANCE=1 python record_train_recompiles.py
"""

import torch


class Head(torch.nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.act = "relu"
        self.fc1 = torch.nn.Linear(d, d)
        self.fc2 = torch.nn.Linear(d, d)

    def forward(self, x):
        y = self.fc1(x)
        if self.act == "relu":
            y = torch.relu(y)
        else:
            y = torch.nn.functional.gelu(y)
        return self.fc2(y) * 2 + x


def step(compiled, opt, x):
    opt.zero_grad()
    loss = compiled(x).square().mean()
    loss.backward()
    opt.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    head = Head()
    opt = torch.optim.SGD(head.parameters(), lr=0.01)
    compiled = torch.compile(head)
    step(compiled, opt, torch.randn(8, 16))    # [0/0]
    head.act = "gelu"
    step(compiled, opt, torch.randn(8, 16))    # act == 'relu' fails: [0/1]
    loss = step(compiled, opt, torch.randn(12, 16))  # size: dynamic, [0/2]
    print("three training steps, loss %.4f; the trace is in $TORCH_TRACE"
          % loss)
