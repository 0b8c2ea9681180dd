"""A scan over a Linear layer (a small recurrent cell) on every device, compared with the CPU by
concord.testing.assert_close: the same seed gives the same layer everywhere."""
import concord

xs = concord.rand(16, 8, seed=4)


def run(device):
    cell = concord.nn.Linear(8, 8, seed=7, device=device)
    carry, ys = concord.nn.scan(lambda h, x: ((cell(x) + h).tanh(),) * 2,
                                concord.zeros(8, device=device), xs.to(device))
    return carry, ys


ref_carry, ref_ys = run("cpu")
for d in concord.devices():
    name = d["name"]
    carry, ys = run(name)
    concord.testing.assert_close(ys, ref_ys, rtol=1e-5, atol=1e-6)
    c = concord.testing.compare(carry, ref_carry, rtol=0, atol=0)
    print("%-9s close to cpu; bitwise equal: %s (max ULP %d)" % (name, bool(c), c.max_ulp))
print(concord.report())
