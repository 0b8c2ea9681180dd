"""A batched solve on a device that lacks it (emu:0 with the profile no-op:solve): the op runs on the
CPU, its inputs go there and the result comes back, each counted; with the strict fallback policy it is
an error instead."""
import numpy as np

import concord

rng = np.random.default_rng(1)
a = concord.tensor(rng.standard_normal((8, 4, 4)) + 4 * np.eye(4), dtype=concord.float32, device="emu:0")
b = concord.tensor(rng.standard_normal((8, 4, 2)), dtype=concord.float32, device="emu:0")
with concord.profile("emu:0", "no-op:solve"):
    x = concord.linalg.solve(a, b)
    print("solve on emu:0 ran on the CPU", concord.report().count("solve", "fallback"), "time(s); result on", x.device)
    residual = (a @ x - b).abs().amax().item()
    print("max |A x - b| = %.3g" % residual)
    with concord.fallback_policy("strict"):
        try:
            concord.linalg.solve(a, b)
        except concord.NotImplementedError as e:
            print("strict fallback policy:", e)
print(concord.report())
