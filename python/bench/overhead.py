"""`make bench`, Python rows: the per-call cost of an 8-element add from Python (concord against
PyTorch 1.13, interleaved in one run, one thread each), and zero-copy round trips (NumPy and DLPack)
at 64 KiB and 64 MiB, which must take the same time at both sizes."""
import statistics
import sys
import timeit

import numpy as np

import concord

try:
    import torch
except ImportError:  # the PyTorch columns are left empty
    torch = None


def per_call(fn, number=20000, repeat=9):
    """Median over repeats of the mean time per call, in microseconds."""
    fn()
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def interleaved(fns, rounds=5, **kw):
    """Each function timed in turn, round after round (the machine's drift hits all alike)."""
    out = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            out[name].append(per_call(fn, **kw))
    return {name: statistics.median(v) for name, v in out.items()}


def main():
    if torch is not None:
        torch.set_num_threads(1)
    rows = []
    a, b = concord.ones(8), concord.ones(8)
    fns = {"concord": lambda: a + b, "concord_scalar": lambda: a + 1}
    if torch is not None:
        ta, tb = torch.ones(8), torch.ones(8)
        fns.update({"torch": lambda: ta + tb, "torch_scalar": lambda: ta + 1})
    t = interleaved(fns)
    rows.append(("add, 8 float32 (tensor + tensor)", t["concord"], t.get("torch")))
    rows.append(("add, 8 float32 (tensor + 1)", t["concord_scalar"], t.get("torch_scalar")))

    for label, nbytes in (("64 KiB", 64 << 10), ("64 MiB", 64 << 20)):
        arr = np.zeros(nbytes // 4, np.float32)
        fns = {"numpy": lambda: concord.from_numpy(arr).numpy()}
        if torch is not None:
            tt = torch.zeros(nbytes // 4)
            fns["dlpack"] = lambda: torch.from_dlpack(concord.from_dlpack(tt))
            fns["torch_numpy"] = lambda: torch.from_numpy(arr).numpy()
        r = interleaved(fns, number=2000, rounds=3)
        rows.append(("NumPy round trip %s (from_numpy, .numpy())" % label, r["numpy"], r.get("torch_numpy")))
        if torch is not None:
            rows.append(("DLPack round trip %s (torch -> concord -> torch)" % label, r["dlpack"], None))

    print("\nPython (per call, microseconds; median of interleaved runs, one thread)")
    print("| workload | concord | PyTorch 1.13 | concord / PyTorch |")
    print("|---|---:|---:|---:|")
    for name, c, p in rows:
        ratio = "%.2f" % (c / p) if p else "-"
        print("| %s | %.2f | %s | %s |" % (name, c, "%.2f" % p if p else "-", ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main())
