#!/usr/bin/python3
"""PyTorch side of `concord bench`: reads workload names on stdin, times them,
answers one JSON line each. Run with Debian's /usr/bin/python3 (python3-torch).

Protocol: "threads N" sets the thread count; "<workload> <repeats>" answers
{"name": ..., "seconds": [...]} or {"name": ..., "error": "..."}; "quit" ends.
"""
import json
import sys
import time

try:
    import torch
except Exception as e:  # no torch: say so once and answer errors
    torch = None
    IMPORT_ERROR = str(e)

_cache = {}


def setup(name):
    if name in _cache:
        return _cache[name]
    g = torch.Generator().manual_seed(7)
    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g, dtype=torch.float32).to(dtype)
    dt = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
          "bfloat16": torch.bfloat16}
    kind, _, arg = name.partition(":")
    fn = None
    if kind == "matmul":
        a, b = randn(1024, 1024, dtype=dt[arg]), randn(1024, 1024, dtype=dt[arg])
        fn = lambda: torch.matmul(a, b)
    elif kind == "add16M":
        a, b = randn(1 << 24, dtype=dt[arg]), randn(1 << 24, dtype=dt[arg])
        fn = lambda: torch.add(a, b)
    elif kind == "sum16M":
        a = randn(1 << 24, dtype=dt[arg])
        fn = lambda: torch.sum(a)
    elif kind == "exp16M":
        a = randn(1 << 24, dtype=dt[arg])
        fn = lambda: torch.exp(a)
    elif kind == "softmax":
        a = randn(4096, 1024, dtype=dt[arg])
        fn = lambda: torch.softmax(a, dim=-1)
    elif kind == "sumrows":
        a = randn(4096, 1024, dtype=dt[arg])
        fn = lambda: torch.sum(a, dim=-1)
    elif kind == "solve64":
        a = randn(64, 64, 64, dtype=dt[arg]) + 64 * torch.eye(64, dtype=dt[arg])
        b = randn(64, 64, 1, dtype=dt[arg])
        fn = lambda: torch.linalg.solve(a, b)
    elif kind == "add8":
        a, b = randn(8), randn(8)
        fn = lambda: torch.add(a, b)
    elif kind == "mlp":
        # 4 x (Linear 1024 -> 1024, ReLU), batch 256. arg: float32; autocast_bfloat16
        # (float32 module inside torch.autocast("cpu", dtype=torch.bfloat16));
        # bfloat16 (module and input converted with .to(torch.bfloat16)).
        layers = [torch.nn.Linear(1024, 1024) for _ in range(4)]
        x = randn(256, 1024)
        if arg == "bfloat16":
            layers = [l.to(torch.bfloat16) for l in layers]
            x = x.to(torch.bfloat16)

        def forward():
            h = x
            for l in layers:
                h = torch.relu(l(h))
            return h
        if arg == "autocast_bfloat16":
            def fn():
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    return forward()
        else:
            fn = forward
    else:
        raise ValueError("unknown workload " + name)
    _cache[name] = fn
    return fn


def main():
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "quit":
            break
        if torch is None:
            print(json.dumps({"name": parts[0], "error": "PyTorch unavailable: " + IMPORT_ERROR}), flush=True)
            continue
        if parts[0] == "threads":
            torch.set_num_threads(int(parts[1]))
            print(json.dumps({"threads": torch.get_num_threads(), "version": torch.__version__}), flush=True)
            continue
        name, repeats = parts[0], int(parts[1])
        try:
            fn = setup(name)
            with torch.no_grad():
                fn()  # warm-up
                inner = int(parts[2]) if len(parts) > 2 else 1
                secs = []
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    for _ in range(inner):
                        fn()
                    secs.append((time.perf_counter() - t0) / inner)
            print(json.dumps({"name": name, "seconds": secs}), flush=True)
        except Exception as e:  # noqa: BLE001 - report any failure as data
            print(json.dumps({"name": name, "error": str(e).splitlines()[0]}), flush=True)


if __name__ == "__main__":
    main()
