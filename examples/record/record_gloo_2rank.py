"""Two ranks on one machine (gloo, CPU), with a functional all_reduce inside
the compiled region. Each rank writes its own log into $TORCH_TRACE, named
dedicated_log_torch_trace_rank_<N>_<random>.log.

    TORCH_TRACE=trace_gloo INDUCTOR_PROVENANCE=1 python record_gloo_2rank.py
"""

import os

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.multiprocessing as mp

from model import Block


def worker(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.set_num_threads(1)
    # Before anything is traced, so the log file carries the rank.
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    block = Block(16).eval()

    def f(x):
        y = block(x)
        y = funcol.all_reduce(y, "sum", dist.group.WORLD)
        return torch.relu(y) + 1

    x = torch.randn(4, 16) + rank
    with torch.no_grad():
        out = torch.compile(f)(x)
        torch.testing.assert_close(out, f(x), rtol=1e-3, atol=1e-3)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2, join=True)
    print("two ranks compiled and checked; the logs are in $TORCH_TRACE")
