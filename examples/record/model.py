"""The model the recording scripts compile: the same transformer-like blocks
that tests/tracegen/gen_trace.py imitates (linear, gelu, residual add, layer
norm), and a combo variant whose relu/sigmoid/tanh are independent."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        y = self.fc(x)
        y = torch.nn.functional.gelu(y)
        x = x + y
        x = self.norm(x)
        return x


class ComboBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        y = self.fc(x)
        x = torch.relu(y)
        s = torch.sigmoid(y)
        t = torch.tanh(y)
        return x, s, t


class Model(nn.Module):
    def __init__(self, layers=3, d=64, combo=False):
        super().__init__()
        block = ComboBlock if combo else Block
        self.combo = combo
        self.layers = nn.ModuleList(block(d) for _ in range(layers))

    def forward(self, x):
        extra = []
        for layer in self.layers:
            if self.combo:
                x, s, t = layer(x)
                extra += [s, t]
            else:
                x = layer(x)
        return (x, *extra) if extra else x


def example_input(device, batch=8, d=64):
    return torch.randn(batch, d, device=device)
