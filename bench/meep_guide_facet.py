"""The reflection of a slab guide's fundamental mode at its end facet, by Meep's eigenmode
coefficients, on the scene of `apps/yee/tests/mode_monitors.rs`'s facet test (issue 47): a
TMz slab (eps = 4, 8 units wide) ending at x = 260 in a 400 x 80 cell (lengths in units,
CPML/PML 12 thick), driven by an Ez line across its core at x = 100, the mode monitor at
x = 180; 11 frequencies from 0.02 to 0.03.

Run with /usr/bin/python3 (Meep 1.x, double precision): `python3 bench/meep_guide_facet.py
[RESOLUTION]` (default 2, 16 cells across the core; about 20 s). Prints frequency,
R = |a-|^2/|a+|^2 and n_eff (from MPB's k) per frequency. At resolution 2:

    0.0200 0.098288    0.0210 0.102507    0.0220 0.108253    0.0230 0.112544
    0.0240 0.114155    0.0250 0.119258    0.0260 0.125246    0.0270 0.125991
    0.0280 0.129150    0.0290 0.133555    0.0300 0.132575

(at resolution 1 the same R from 0.0959 to 0.1265, rippling by ±5 % from one frequency to
the next; yee's at resolution 1 rise smoothly from 0.0976 to 0.1368).
"""
import sys

import meep as mp

SX, SY, DPML = 400, 80, 12
def x(v):
    return v - SX / 2
def y(v):
    return v - SY / 2

fcen, df, nf = 0.025, 0.01, 11
core = mp.Medium(epsilon=4.0)
geometry = [
    mp.Block(
        size=mp.Vector3(260 + DPML, 8, mp.inf),
        center=mp.Vector3(x((260 - DPML) / 2), y(40)),
        material=core,
    )
]
sources = [
    mp.Source(
        mp.GaussianSource(fcen, fwidth=0.02),
        component=mp.Ez,
        center=mp.Vector3(x(100), y(40)),
        size=mp.Vector3(0, 8),
    )
]
sim = mp.Simulation(
    cell_size=mp.Vector3(SX, SY),
    resolution=float(sys.argv[1]) if len(sys.argv) > 1 else 2,
    geometry=geometry,
    sources=sources,
    boundary_layers=[mp.PML(DPML)],
    Courant=0.5,
)
monitor = sim.add_mode_monitor(
    fcen, df, nf, mp.ModeRegion(center=mp.Vector3(x(180), y(40)), size=mp.Vector3(0, SY))
)
sim.run(until=3000)
res = sim.get_eigenmode_coefficients(monitor, [1], eig_parity=mp.ODD_Z)
alpha = res.alpha[0]
freqs = mp.get_flux_freqs(monitor)
for k, f in enumerate(freqs):
    fw, bw = alpha[k, 0], alpha[k, 1]
    n_eff = res.kdom[k].x / f
    print(f"{f:.4f} {abs(bw)**2 / abs(fw)**2:.6f} {n_eff:.6f}")
