"""A small model before a change (change_model.py), for `tlparse diff`:

    TORCH_TRACE=/tmp/trace_before INDUCTOR_PROVENANCE=1 python record_change_before.py
"""

from change_model import record

if __name__ == "__main__":
    record(after=False)
