"""A NumPy float64 array moved to emu:0 (no float64 there): with the default policy it becomes float32,
warned once and counted in the report; with the strict policy it is an error that says what to do."""
import numpy as np

import concord

x = np.linspace(0, 1, 5)                      # float64
t = concord.tensor(x).to("emu:0")
print("default policy:", t.dtype, "on", t.device)
with concord.dtype_policy("strict"):
    try:
        concord.tensor(x).to("emu:0")
    except concord.UnsupportedDtypeError as e:   # also a concord.DtypeError and a TypeError
        print("strict policy:", type(e).__name__, "-", e)
print(concord.report())
