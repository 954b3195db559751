#!/usr/bin/env python3
"""Meep against yee on the same problems, one core each.

Runs Meep (Debian's python3-meep, double precision, OMP_NUM_THREADS=1) on vacuum grids of the
given sizes for a fixed number of steps, then `yee bench --json --only ...` (rayon backend, one
thread), and prints both rates in Mcells/s and their ratio. Needs a release build of yee:
    cargo build --release -p yee && python3 bench/meep_compare.py
Use /usr/bin/python3 (Debian's) if another python3 comes first on PATH.
"""
import json
import os
import subprocess
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import meep as mp  # noqa: E402

mp.verbosity(0)

PROBLEMS = [
    # (name in yee bench, meep dims, cell size, steps)
    ("3D 100^3", 3, (100, 100, 100), 60),
    ("2D 4096^2", 2, (4096, 4096, 0), 12),
    ("1D 10^7", 1, (10_000_000, 0, 0), 40),
]


def meep_rate(dims, size, steps):
    """Mcells/s of Meep on a vacuum grid (resolution 1, no PML, one point source), median of 3."""
    cell = mp.Vector3(*size)
    component = mp.Ex if dims == 1 else mp.Ez  # Meep's 1D grid carries Ex, Hy
    sources = [mp.Source(mp.GaussianSource(0.05, fwidth=0.05), component=component, center=mp.Vector3())]
    # Meep's 1D grid runs along z.
    dim_kw = {1: mp.Vector3(0, 0, size[0]), 2: mp.Vector3(size[0], size[1]), 3: cell}[dims]
    sim = mp.Simulation(cell_size=dim_kw, resolution=1, sources=sources, dimensions=dims)
    sim.init_sim()
    dt = sim.fields.dt
    cells = size[0] * max(size[1], 1) * max(size[2], 1)
    rates = []
    for _ in range(3):
        start = time.perf_counter()
        sim.run(until=steps * dt)
        rates.append(cells * steps / (time.perf_counter() - start) / 1e6)
    return sorted(rates)[1]


def yee_rates(yee, name):
    out = subprocess.run([yee, "bench", "--json", "--only", name], check=True, capture_output=True, text=True).stdout
    rows = json.loads(out)
    return {r["value_type"]: r["mcells_per_s"] for r in rows if r["backend"] == "rayon" and r["threads"] == 1}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    yee = os.path.join(root, "target", "release", "yee")
    if not os.path.exists(yee):
        sys.exit("build yee first: cargo build --release -p yee")
    only = sys.argv[1:] or [p[0] for p in PROBLEMS]
    print(f"{'problem':<11} {'meep f64':>10} {'yee f64':>10} {'ratio':>7} {'yee f32':>10} {'ratio':>7}   (Mcells/s, one core)")
    for name, dims, size, steps in PROBLEMS:
        if name not in only:
            continue
        meep = meep_rate(dims, size, steps)
        yee_r = yee_rates(yee, name)
        print(f"{name:<11} {meep:>10.1f} {yee_r['f64']:>10.1f} {yee_r['f64'] / meep:>6.2f}x {yee_r['f32']:>10.1f} {yee_r['f32'] / meep:>6.2f}x")


if __name__ == "__main__":
    main()
