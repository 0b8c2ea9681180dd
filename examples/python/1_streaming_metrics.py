"""Streaming precision and recall on a device without float64 (emu:0's default profile): float64
scores from NumPy stay on the CPU and are thresholded there exactly; the int64 counts live on emu:0.
The result has the same bits as on the CPU."""
import numpy as np

import concord

rng = np.random.default_rng(0)
on_emu = [concord.metrics.Precision.binary(), concord.metrics.Recall.binary()]
on_cpu = [concord.metrics.Precision.binary(), concord.metrics.Recall.binary()]
for _ in range(10):
    scores = rng.random(256)                 # float64: emu:0 cannot hold it
    labels = rng.integers(0, 2, 256)
    for m in on_emu:
        m.update(scores, concord.tensor(labels, device="emu:0"))
    for m in on_cpu:
        m.update(scores, labels)
for name, e, c in zip(("precision", "recall"), on_emu, on_cpu):
    print("%-9s emu:0 %.17g  cpu %.17g  same bits: %s" % (name, e.compute().item(), c.compute().item(),
                                                         e.compute().item() == c.compute().item()))
print(concord.report())
