#!/usr/bin/env python3
"""The README's error-model table from `concord parity --exhaustive --json` runs.

    concord parity --exhaustive --json default.json
    concord parity --exhaustive --reproducible --json reproducible.json
    python3 tools/accuracy_summary.py default.json reproducible.json

One row per op (the correctly rounded ops in one row): the declared bound in
ULPs and the largest measured error / bound over every device config and
floating dtype, for each run given, with where it was reached. The full
tables are docs/ACCURACY.md.
"""
import json
import sys


def load(path):
    with open(path) as f:
        return [r for r in json.load(f)["results"] if r["ran"]]


def worst(rows):
    """The row with the largest ratio (-1 stands for an infinite one)."""
    return max(rows, key=lambda r: float("inf") if r["ratio"] < 0 else r["ratio"])


def cell(r):
    ratio = "inf" if r["ratio"] < 0 else "%.3f" % r["ratio"]
    return "%s (%s %s)" % (ratio, r["device"], r["dtype"])


def main(paths):
    runs = [load(p) for p in paths]
    ops = []
    for r in runs[0]:
        if r["op"] not in ops:
            ops.append(r["op"])
    rounded = [op for op in ops if all(r["bound_ulp"] == 0.5 for r in runs[0] if r["op"] == op)]
    groups = [(", ".join(rounded), rounded)] + [(op, [op]) for op in ops if op not in rounded]
    names = [p.rsplit("/", 1)[-1].rsplit(".", 1)[0] for p in paths]
    print("| op | bound (ULP) | " + " | ".join("worst error / bound, %s" % n for n in names) + " |")
    print("|---|---|" + "---|" * len(paths))
    for label, members in groups:
        bound = runs[0][[r["op"] for r in runs[0]].index(members[0])]["bound_ulp"]
        cells = [cell(worst([r for r in rows if r["op"] in members])) for rows in runs]
        print("| %s | %g | %s |" % (label, bound, " | ".join(cells)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
