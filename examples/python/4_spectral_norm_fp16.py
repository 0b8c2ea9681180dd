"""SpectralNorm of a float16 weight, and of a float32 weight under autocast(float16): float16 math
computes in float32 and rounds once per op; the report shows which ops autocast moved."""
import numpy as np

import concord

w = concord.randn(64, 32, seed=3)
exact = np.linalg.svd(w.to(concord.float64).numpy(), compute_uv=False)[0]
sn16 = concord.nn.SpectralNorm(w.to(concord.float16), n_power_iterations=20, seed=0)
out16 = sn16().to(concord.float64).numpy()
print("float16 weight:           sigma(out) = %.5f (exact 1; sigma(w) = %.4f)"
      % (np.linalg.svd(out16, compute_uv=False)[0], exact))
concord.reset_report()
with concord.autocast(concord.float16):
    sn = concord.nn.SpectralNorm(w, n_power_iterations=20, seed=0)
    out = sn()
print("float32 weight, autocast: sigma(out) = %.5f, dtype %s"
      % (np.linalg.svd(out.to(concord.float64).numpy(), compute_uv=False)[0], out.dtype))
print(concord.report())
