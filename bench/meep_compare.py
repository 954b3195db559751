#!/usr/bin/env python3
"""Meep against yee on the same problems, one core each.

Runs Meep (Debian's python3-meep, double precision, OMP_NUM_THREADS=1) on grids of the given
sizes for a fixed number of steps — vacuum, and with `yee bench --scenes`'s realistic problems
(PML 10 cells thick on every face, and a dielectric sphere of ε = 2.25 and radius 30 inside it)
— then `yee bench --json --only ...` (rayon backend, one thread), alternating the two round by
round (the machine's rate drifts), and prints the median stepping rates in Mcells/s and the
median of the rounds' ratios. Needs a release build of yee:
    cargo build --release -p yee && python3 bench/meep_compare.py [--rounds N] ["3D 100^3" ...]
With `--time-block K` (or `auto`) yee's rows are its temporally blocked runs (`yee bench
--time-block K`, the `rayon-tb` rows), and its one-step rates of the same runs are printed beside.
Use /usr/bin/python3 (Debian's) if another python3 comes first on PATH.
"""
import argparse
import json
import os
from statistics import median
import subprocess
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import meep as mp  # noqa: E402

mp.verbosity(0)

PROBLEMS = [
    # (name in yee bench, meep dims, cell size, steps, what fills it)
    ("3D 100^3", 3, (100, 100, 100), 60, "vacuum"),
    ("2D 4096^2", 2, (4096, 4096, 0), 12, "vacuum"),
    ("1D 10^7", 1, (10_000_000, 0, 0), 40, "vacuum"),
    ("CPML 100^3", 3, (100, 100, 100), 60, "pml"),
    ("sphere 100^3", 3, (100, 100, 100), 60, "sphere"),
]


def meep_simulation(dims, size, fill):
    """Meep on the grid (resolution 1, one point source), initialised: vacuum without PML, or
    PML 10 cells thick on every face, or that and a sphere of ε = 2.25, radius 0.3 of the grid."""
    component = mp.Ex if dims == 1 else mp.Ez  # Meep's 1D grid carries Ex, Hy
    sources = [mp.Source(mp.GaussianSource(0.05, fwidth=0.05), component=component, center=mp.Vector3())]
    # Meep's 1D grid runs along z.
    cell = {1: mp.Vector3(0, 0, size[0]), 2: mp.Vector3(size[0], size[1]), 3: mp.Vector3(*size)}[dims]
    pml = [mp.PML(10)] if fill in ("pml", "sphere") else []
    geometry = [mp.Sphere(radius=0.3 * size[0], material=mp.Medium(epsilon=2.25))] if fill == "sphere" else []
    sim = mp.Simulation(
        cell_size=cell, resolution=1, sources=sources, dimensions=dims, boundary_layers=pml, geometry=geometry
    )
    sim.init_sim()
    return sim


def meep_rate(sim, cells, steps):
    """Mcells/s of one timed run of `steps` steps of an initialised simulation."""
    start = time.perf_counter()
    sim.run(until=steps * sim.fields.dt)
    return cells * steps / (time.perf_counter() - start) / 1e6


def yee_rates(yee, name, fill, time_block):
    """yee's rayon backend on one thread (`yee bench`: median of 5 runs) in f64 and f32: the
    one-step rates, and with `time_block` the blocked ones (keys "f64-tb", "f32-tb")."""
    args = [yee, "bench", "--json", "--only", name, "--threads", "1", "--no-scalar"]
    if fill != "vacuum":
        args.append("--scenes")
    if time_block:
        args += ["--time-block", time_block]
    rows = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    rates = {r["value_type"]: r["mcells_per_s"] for r in rows if r["backend"] == "rayon"}
    rates.update({r["value_type"] + "-tb": r["mcells_per_s"] for r in rows if r["backend"] == "rayon-tb"})
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problems", nargs="*", help='names as in yee bench, e.g. "3D 100^3" (default: all)')
    parser.add_argument("--rounds", type=int, default=5, help="alternating Meep/yee rounds (default 5)")
    parser.add_argument("--time-block", help="yee's temporally blocked rows (yee bench --time-block K|auto)")
    args = parser.parse_args()
    if args.rounds < 1:
        sys.exit("--rounds must be at least 1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    yee = os.path.join(root, "target", "release", "yee")
    if not os.path.exists(yee):
        sys.exit("build yee first: cargo build --release -p yee")
    known = [p[0] for p in PROBLEMS]
    unknown = [n for n in args.problems if n not in known]
    if unknown:
        sys.exit(f"unknown problem(s) {unknown}; expected some of {known}")
    only = args.problems or known
    print(f"Mcells/s on one core, medians of {args.rounds} alternating rounds; ratio = median of the rounds' ratios")
    blocked = f" (--time-block {args.time_block}; one-step rates of the same runs at the end)" if args.time_block else ""
    print(f"{'problem':<12} {'meep f64':>10} {'yee f64':>10} {'ratio':>7} {'yee f32':>10} {'ratio':>7}   f64 ratio range{blocked}")
    for name, dims, size, steps, fill in PROBLEMS:
        if name not in only:
            continue
        sim = meep_simulation(dims, size, fill)
        cells = size[0] * max(size[1], 1) * max(size[2], 1)
        meep_rate(sim, cells, max(steps // 4, 1))  # warm-up: faults the arrays in
        meep, f64, f32, one_step = [], [], [], {"f64": [], "f32": []}
        suffix = "-tb" if args.time_block else ""
        for _ in range(args.rounds):
            meep.append(meep_rate(sim, cells, steps))
            rates = yee_rates(yee, name, fill, args.time_block)
            if suffix and "f64-tb" not in rates:
                sys.exit(f"yee bench ran no time-blocked row for {name}")
            f64.append(rates["f64" + suffix])
            f32.append(rates["f32" + suffix])
            for t in one_step:
                one_step[t].append(rates[t])
        r64 = [y / m for y, m in zip(f64, meep)]
        r32 = [y / m for y, m in zip(f32, meep)]
        line = (
            f"{name:<12} {median(meep):>10.1f} {median(f64):>10.1f} {median(r64):>6.2f}x"
            f" {median(f32):>10.1f} {median(r32):>6.2f}x   {min(r64):.2f}-{max(r64):.2f}"
        )
        if suffix:
            line += f"   one step: f64 {median(one_step['f64']):.1f}, f32 {median(one_step['f32']):.1f}"
        print(line)
        del sim


if __name__ == "__main__":
    main()
