#!/usr/bin/env python3
"""Meep's R + T − 1 for the slab of tests/tests/low_frequency.rs (issue 51), on the same cells.

A 1D grid of 500 cells (resolution 1) with 20-cell PML at both ends, a slab of ε = 4 over
[220, 260], a current sheet at 60, flux planes at 120 and 380; the pulse is the issue's
Gaussian (f0 = 0.0145, w = 25, so Meep's fwidth = 1/w) or a Ricker wavelet of peak 0.0145
(a custom source). R from the reflected fields (the slab run's flux less the empty run's, Meep's
load_minus_flux_data), T from the transmitted flux, both over the empty run's flux; prints the
largest |R + T − 1| over [0.005, 0.024]. Meep's 1D grid lies along z and carries Ex, Hy.
Run with Debian's python3-meep (double precision):
    /usr/bin/python3 bench/meep_slab_rt.py [--courant 0.5] [--until 2500]
Recorded (Meep 1.25.0, --until 5000): Gaussian 5.4e-5 and Ricker 1.3e-5 at Courant 0.5 (Meep's
default); 3.9e-5 and 1.3e-5 at Courant 0.99 (the test's). Meep's Gaussian source current is the
time derivative of its Gaussian dipole, so it has no DC part.
"""
import argparse
import math
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
import meep as mp  # noqa: E402

mp.verbosity(0)

F0, WIDTH = 0.0145, 25.0
FREQS = [0.005 + 0.0005 * i for i in range(39)]


def ricker(t):
    a = math.pi * F0 * (t - 125.0)
    return (1.0 - 2.0 * a * a) * math.exp(-a * a)


def run(pulse, slab, courant, until, minus=None):
    """The two flux monitors' spectra (and the reflection monitor's data) of one run."""
    cell = mp.Vector3(0, 0, 500)
    at = lambda x: mp.Vector3(0, 0, x - 250)  # noqa: E731 — yee's x to Meep's centred z
    if pulse == "gaussian":
        src = mp.GaussianSource(F0, fwidth=1.0 / WIDTH)
    else:
        src = mp.CustomSource(ricker, end_time=250.0)
    geometry = []
    if slab:
        geometry = [mp.Block(mp.Vector3(mp.inf, mp.inf, 40), center=at(240), material=mp.Medium(epsilon=4))]
    sim = mp.Simulation(
        cell_size=cell,
        resolution=1,
        dimensions=1,
        boundary_layers=[mp.PML(20)],
        geometry=geometry,
        sources=[mp.Source(src, component=mp.Ex, center=at(60))],
        Courant=courant,
    )
    refl = sim.add_flux(FREQS, mp.FluxRegion(center=at(120)))
    tran = sim.add_flux(FREQS, mp.FluxRegion(center=at(380)))
    if minus is not None:
        sim.load_minus_flux_data(refl, minus)
    sim.run(until=until)
    return mp.get_fluxes(refl), mp.get_fluxes(tran), sim.get_flux_data(refl)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--courant", type=float, default=0.5)
    parser.add_argument("--until", type=float, default=2500.0)
    args = parser.parse_args()
    for pulse in ("gaussian", "ricker"):
        inc_r, inc_t, data = run(pulse, False, args.courant, args.until)
        ref, tra, _ = run(pulse, True, args.courant, args.until, minus=data)
        worst = max(abs(-r / ir + t / it - 1.0) for r, ir, t, it in zip(ref, inc_r, tra, inc_t))
        print(f"meep {mp.__version__}, {pulse}, Courant {args.courant}, until {args.until}: "
              f"|R + T - 1| <= {worst:.2e}")


if __name__ == "__main__":
    main()
