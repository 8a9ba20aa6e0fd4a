"""A training step on CPU: forward and backward of one torch.compile, then
the optimizer step (torch.optim.SGD, compiled too), twice.

    TORCH_TRACE=trace_train INDUCTOR_PROVENANCE=1 python record_train_cpu.py
"""

import torch

from model import Model, example_input

if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model(layers=2, d=32)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    compiled = torch.compile(model)

    @torch.compile
    def opt_step():
        opt.step()

    x = example_input("cpu", d=32)
    for _ in range(2):
        opt.zero_grad()
        loss = compiled(x).square().mean()
        loss.backward()
        opt_step()
    print("two training steps, loss %.4f; the trace is in $TORCH_TRACE"
          % loss.item())
