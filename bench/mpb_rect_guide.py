"""The reference for yee-modes' rectangular-guide test (modes/tests/rect_guide.rs): MPB's
effective and group indices of a silicon-like strip guide, 0.5 x 0.22 um of n = 3.45 in
n = 1.45, at a vacuum wavelength of 1.55 um, in a 2 x 1.5 um cross-section (periodic in MPB,
PEC walls in yee: the mode has decayed to below 1e-2 of its peak there).

Lengths in um, frequencies in c/um. Run: /usr/bin/python3 bench/mpb_rect_guide.py
(it prints one line per resolution: resolution, then n_eff and n_g of the first two bands).
"""
import sys

import meep as mp
from meep import mpb

WIDTH, HEIGHT = 0.5, 0.22
SY, SZ = 2.0, 1.5
N_CORE, N_CLAD = 3.45, 1.45
F = 1 / 1.55
BANDS = 2


def solve(resolution):
    ms = mpb.ModeSolver(
        geometry_lattice=mp.Lattice(size=mp.Vector3(0, SY, SZ)),
        geometry=[
            mp.Block(
                size=mp.Vector3(mp.inf, WIDTH, HEIGHT),
                material=mp.Medium(index=N_CORE),
            )
        ],
        default_material=mp.Medium(index=N_CLAD),
        resolution=resolution,
        num_bands=BANDS,
        tolerance=1e-9,
    )
    vg = {}

    def group_velocity(ms, band):
        vg[band] = ms.compute_one_group_velocity_component(mp.Vector3(1, 0, 0), band)

    ks = ms.find_k(
        mp.NO_PARITY, F, 1, BANDS, mp.Vector3(1, 0, 0), 1e-10,
        F * 2.5, F * N_CLAD, F * N_CORE, group_velocity,
    )
    return [(k / F, 1 / vg[b + 1]) for b, k in enumerate(ks)]


if __name__ == "__main__":
    for resolution in [int(r) for r in sys.argv[1:]] or [32, 64, 128]:
        modes = solve(resolution)
        print(resolution, " ".join(f"{n:.6f} {ng:.6f}" for n, ng in modes), flush=True)
