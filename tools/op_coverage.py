#!/usr/bin/env python3
"""Checks that every row of the op table (include/concord/ops_list.h) has every
piece an op needs, and names what is missing. Run by the CTest `op_coverage`:

    tools/op_coverage.py --root . --cli build/concord [--python build/pyenv/bin/python]

The pieces, per row:
  front     a public C++ function of that name in include/concord/*.h
  backends  on every device `concord ops --json` lists, each dtype the CPU
            defines is a kernel (native, widened, downcast) or a declared,
            counted CPU fallback: never "undefined" where the CPU has it
  diff      a case in the differential suite against PyTorch
            (tests/differential/torch_cases.py: by name, or every row of a
            family it reads from the table, as unary and binary)
  python    concord.<name>, concord.Tensor.<name>, concord.linalg.<name> or
            concord.nn.<name> in the installed package
            (only with --python)
  stub      `def <name>(` in the package's stubs or pure-Python modules
  docs      a row `| <name> |` in docs/OPS.md (`concord ops --markdown`)
The backend conformance suite needs no entry: it loops over the op table.

KNOWN_GAPS lists the pieces missing today, each with why; the check fails on a
gap not listed (a new op without its pieces) and on a listed gap that is gone
(so the list only shrinks). Example failure:
    op_coverage: hypot has no python binding (concord.hypot / Tensor.hypot)
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

# name in the op table -> the public name a piece uses, where they differ.
FRONT_NAME = {"fill": "full"}
PY_NAME = {"fill": "full", "copy": "clone"}

_NO_PY = "not bound in the Python package yet (the Array API issue adds the namespace)"
_NO_DIFF = "no PyTorch differential case yet; checked by the conformance suite against the float64 reference"
KNOWN_GAPS = {
    ("randint", "python"): _NO_PY, ("randint", "stub"): _NO_PY,
    ("index_select", "python"): _NO_PY, ("index_select", "stub"): _NO_PY,
    ("gather", "python"): _NO_PY, ("gather", "stub"): _NO_PY,
    ("tril", "python"): _NO_PY, ("tril", "stub"): _NO_PY,
    ("triu", "python"): _NO_PY, ("triu", "stub"): _NO_PY,
    ("addmm", "python"): _NO_PY, ("addmm", "stub"): _NO_PY,
    ("baddbmm", "python"): _NO_PY, ("baddbmm", "stub"): _NO_PY,
    ("linear", "python"): _NO_PY, ("linear", "stub"): _NO_PY,
    ("norm", "python"): _NO_PY, ("norm", "stub"): _NO_PY,
    ("flip", "stub"): "bound as Tensor.flip without a stub",
    ("copy", "stub"): "bound as Tensor.clone / to without a stub",
    ("copy", "diff"): _NO_DIFF, ("fill", "diff"): _NO_DIFF, ("arange", "diff"): _NO_DIFF,
    ("linspace", "diff"): _NO_DIFF, ("eye", "diff"): _NO_DIFF,
    ("rand", "diff"): "random bits are concord's own (Philox), not PyTorch's; test_random checks them",
    ("randn", "diff"): "random bits are concord's own (Philox), not PyTorch's; test_random checks them",
    ("randint", "diff"): "random bits are concord's own (Philox), not PyTorch's; test_random checks them",
    ("bmm", "diff"): _NO_DIFF, ("outer", "diff"): _NO_DIFF, ("baddbmm", "diff"): _NO_DIFF,
    ("linear", "diff"): _NO_DIFF, ("cat", "diff"): _NO_DIFF, ("stack", "diff"): _NO_DIFF,
    ("index_select", "diff"): _NO_DIFF, ("gather", "diff"): _NO_DIFF, ("flip", "diff"): _NO_DIFF,
    ("tril", "diff"): _NO_DIFF, ("triu", "diff"): _NO_DIFF, ("lu_factor", "diff"): _NO_DIFF,
    ("lu_solve", "diff"): _NO_DIFF, ("slogdet", "diff"): _NO_DIFF, ("cholesky", "diff"): _NO_DIFF,
    ("solve_triangular", "diff"): _NO_DIFF,
}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def rows(root):
    text = read(os.path.join(root, "include/concord/ops_list.h"))
    return re.findall(r"\n  X\(([a-z_0-9]+), *([a-z]+),", text)


def python_names(python, names):
    """The names of `names` that concord, concord.Tensor, concord.linalg or concord.nn has,
    asked of the installed package."""
    code = ("import concord, json, sys\n"
            "names = json.loads(sys.argv[1])\n"
            "t = concord.tensor([1.0])\n"
            "mods = [concord, t] + [getattr(concord, m) for m in ('linalg', 'nn') if hasattr(concord, m)]\n"
            "print(json.dumps([n for n in names if any(hasattr(m, n) for m in mods)]))\n")
    out = subprocess.run([python, "-c", code, json.dumps(names)], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    ap.add_argument("--cli", required=True, help="the concord program (for `concord ops --json`)")
    ap.add_argument("--python", help="a Python that imports the built package")
    a = ap.parse_args()

    ops = rows(a.root)
    if len(ops) < 50:
        sys.exit(f"op_coverage: read only {len(ops)} rows from ops_list.h; has its format changed?")
    headers = "".join(read(f) for f in sorted(glob.glob(os.path.join(a.root, "include/concord/*.h")))
                      if not f.endswith("ops_list.h"))
    diff = read(os.path.join(a.root, "tests/differential/torch_cases.py"))
    stubs = "".join(read(f) for f in sorted(glob.glob(os.path.join(a.root, "python/concord/*.py*"))))
    docs_path = os.path.join(a.root, "docs/OPS.md")
    docs = read(docs_path) if os.path.exists(docs_path) else ""
    table = json.loads(subprocess.run([a.cli, "ops", "--json"], capture_output=True, text=True, check=True).stdout)
    table = table["ops"]
    py = python_names(a.python, [PY_NAME.get(n, n) for n, _ in ops]) if a.python else None

    gaps = {}
    for name, family in ops:
        front = FRONT_NAME.get(name, name)
        if not re.search(r"\b" + front + r"\s*\(", headers):
            gaps[(name, "front")] = f"no public C++ function {front}() in include/concord/"
        entry = table.get(name)
        if entry is None:
            gaps[(name, "backends")] = "not listed by `concord ops --json`"
        else:
            cpu = entry.get("cpu", {})
            for dev, cells in entry.items():
                if not isinstance(cells, dict) or dev == "cpu":
                    continue
                missing = [d for d, s in cells.items() if s == "undefined" and cpu.get(d, "undefined") != "undefined"]
                if missing:
                    gaps[(name, "backends")] = f"{dev} has neither a kernel nor a CPU fallback for {', '.join(missing)}"
        # torch_cases.py takes every row of a family it reads from the table.
        from_table = f'table_ops("{family}")' in diff
        if not from_table and f'"{name}"' not in diff and f"'{name}'" not in diff:
            gaps[(name, "diff")] = "no case in tests/differential/torch_cases.py"
        pyname = PY_NAME.get(name, name)
        if py is not None and pyname not in py:
            gaps[(name, "python")] = f"no python binding (concord.{pyname} / Tensor.{pyname})"
        if not re.search(r"def " + pyname + r"\(", stubs):
            gaps[(name, "stub")] = f"no stub `def {pyname}(` in python/concord/ (python/gen_stubs.sh)"
        if not re.search(r"^\| " + name + r" \|", docs, re.M):
            gaps[(name, "docs")] = "no row in docs/OPS.md (regenerate: concord ops --markdown)"

    failed = False
    for key, why in sorted(gaps.items()):
        if key in KNOWN_GAPS:
            continue
        if key[1] == "python" and py is None:
            continue
        print(f"op_coverage: {key[0]}: {why}")
        failed = True
    for key, reason in sorted(KNOWN_GAPS.items()):
        if key[1] == "python" and py is None:
            continue
        if key not in gaps:
            print(f"op_coverage: {key[0]} now has its {key[1]} piece: remove it from KNOWN_GAPS in tools/op_coverage.py")
            failed = True
    known = sum(1 for k in KNOWN_GAPS if k in gaps)
    print(f"op_coverage: {len(ops)} ops, {len(gaps) - known} unlisted gaps, {known} known gaps "
          f"({'python checked' if py is not None else 'python not checked: no --python'})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
