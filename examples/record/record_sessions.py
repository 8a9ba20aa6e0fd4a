"""Three sessions in one log: torch._dynamo.reset() twice, on CPU.

A benchmark harness resets Dynamo between models; each reset restarts the
frame ids and compile ids, so the same ids are logged again for other code.

  session 1: scale(x) at batch 4 and 6 -> [0/0] and [0/1] (dynamic batch);
             shift(x) -> [1/0]
  reset
  session 2: shift(x) first -> [0/0] (frame 0 is now shift); scale(x) at
             batch 4, 6 and 9 -> [1/0], [1/1]; the dynamic [1/1] serves 9
  reset
  session 3: scale(x) at batch 4 only -> [0/0], no recompile

    TORCH_TRACE=trace_sessions INDUCTOR_PROVENANCE=1 python record_sessions.py
"""

import torch


def scale(x):
    return torch.sin(x) * 2 + 1


def shift(x):
    return torch.cos(x) - 3


def check(fn, x):
    torch.testing.assert_close(torch.compile(fn)(x), fn(x))


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = {n: torch.randn(n, 8) for n in (4, 6, 9)}
    check(scale, batches[4])
    check(scale, batches[6])
    check(shift, batches[4])
    torch._dynamo.reset()
    check(shift, batches[4])
    for n in (4, 6, 9):
        check(scale, batches[n])
    torch._dynamo.reset()
    check(scale, batches[4])
    print("three sessions; the trace is in $TORCH_TRACE")
