"""The model of record_change_before.py after a small change
(change_model.py): a wider layer, an extra op, a moved graph break and
one more compiled function.

    TORCH_TRACE=/tmp/trace_after INDUCTOR_PROVENANCE=1 python record_change_after.py
"""

from change_model import record

if __name__ == "__main__":
    record(after=True)
