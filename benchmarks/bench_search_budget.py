"""What SelectOptions(search_budget=N) costs the 7-DOF nearest choice: on seeded random jumps
(q_current uniform in the limits, far from the pose's solutions) and control steps (q_current within
0.01 rad of the pose's configuration), how often the budgeted choice is the full search's, how much
farther the others are, and how often a search was cut. Zero options (pure nearest), so the
distance is the cost the search minimises. Prints a table (the README's "Search budget" numbers).

    python benchmarks/bench_search_budget.py [--n 2000] [--seed 12345] [--budgets 8 32]

Instruction counts on a microcontroller come from `make -C csrc footprint` instead.
"""
from __future__ import annotations

import argparse

import numpy as np

import piperik


def measure(arm, n: int, seed: int, budgets, jump: bool):
    """{budget: (same, mean extra distance of the others [rad], cut)} over n poses."""
    rng = np.random.default_rng(seed)
    full_opts, rows = piperik.SelectOptions.nearest(), {b: [0, 0.0, 0] for b in budgets}
    for _ in range(n):
        q = rng.uniform(arm.lower, arm.upper)
        q_current = rng.uniform(arm.lower, arm.upper) if jump else q + rng.uniform(-0.01, 0.01, 7)
        T = arm.fk(q)
        full = arm.select(T, q_current, options=full_opts)
        for b in budgets:
            sel = arm.select(T, q_current, options=piperik.SelectOptions.nearest(search_budget=b))
            extra = sel.distance - full.distance
            row = rows[b]
            if extra <= 1e-9 * (1 + full.distance):
                row[0] += 1
            else:
                row[1] += extra
            row[2] += sel.search_cut
    return {b: (s, e / (n - s) if n > s else 0.0, c) for b, (s, e, c) in rows.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="poses per arm and kind")
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--budgets", type=int, nargs="+", default=[8, 32])
    args = ap.parse_args()
    arms = [piperik.Iiwa14(), piperik.Nero()]
    print(f"piperik {piperik.__version__}: {args.n} poses per arm, seed {args.seed}\n")
    print("| search_budget | " + " | ".join(f"{type(a).__name__}: jumps nearest / mean extra / cut, "
                                           "control steps cut" for a in arms) + " |")
    print("|---|" + "---|" * len(arms))
    results = [(measure(a, args.n, args.seed, args.budgets, True), measure(a, args.n, args.seed, args.budgets, False))
               for a in arms]
    for b in args.budgets:
        cells = []
        for jumps, steps in results:
            s, e, c = jumps[b]
            cells.append(f"{s:,} / {e:.2f} rad / {c:,}, {steps[b][2]:,}")
        print(f"| {b} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
