"""Meep's mode-resolved transmission and reflection of a width step (the taper example's two
guides, examples/scenes/taper.toml, without the taper: an eps = 12 slab 1 a wide meeting one
2 a wide at x = 8), for apps/yee/tests/mode_step_vs_meep.rs. 2D, Ez (the slabs' TE modes),
lengths in a, RES cells per a (the first argument, default 10), PML 1 a, an EigenModeSource of
the narrow guide's mode 1 (Meep numbers from 1) at x = 2, get_eigenmode_coefficients on planes
at x = 3 and x = 14 over 0.12-0.15 (31 frequencies). Prints |S21|^2 (the wide guide's mode 0
forward over the launched forward coefficient at x = 3) and |S11|^2. The test records the
runs at 20 and 40 cells per a (37 s and 6.5 min of wall time on 2 shared cores): Meep converges at first order,
its |S21|^2 at 0.15 c/a 1.08 %, 0.53 % and 0.26 % above yee's at 10, 20 and 40. Run with
/usr/bin/python3 (Meep 1.x, double precision): `python3 bench/meep_width_step.py 40`."""
import sys

import meep as mp
import numpy as np

res = int(sys.argv[1]) if len(sys.argv) > 1 else 10
sx, sy = 16, 8
pml = 1.0
si = mp.Medium(epsilon=12)
geometry = [
    mp.Block(size=mp.Vector3(8, 1), center=mp.Vector3(-4, 0), material=si),
    mp.Block(size=mp.Vector3(8, 2), center=mp.Vector3(4, 0), material=si),
]
f0, fmin, fmax, nf = 0.135, 0.12, 0.15, 31
# yee's Gaussian of width 20 (standard deviation in time) has a spectral width 1/(2 pi 20);
# Meep's GaussianSource(fwidth) has width 1/fwidth in time.
src = mp.GaussianSource(f0, fwidth=1 / (2 * np.pi * 20) * 2 * np.pi)
sources = [
    mp.EigenModeSource(
        src,
        center=mp.Vector3(2 - sx / 2, 0),
        size=mp.Vector3(0, sy),
        eig_band=1,
        eig_parity=mp.EVEN_Y + mp.ODD_Z,
        eig_match_freq=True,
    )
]
sim = mp.Simulation(
    cell_size=mp.Vector3(sx, sy),
    geometry=geometry,
    sources=sources,
    boundary_layers=[mp.PML(pml)],
    resolution=res,
)
freqs = np.linspace(fmin, fmax, nf)
mon_in = sim.add_mode_monitor(freqs, mp.ModeRegion(center=mp.Vector3(3 - sx / 2, 0), size=mp.Vector3(0, sy)))
mon_out = sim.add_mode_monitor(freqs, mp.ModeRegion(center=mp.Vector3(14 - sx / 2, 0), size=mp.Vector3(0, sy)))
sim.run(until_after_sources=mp.stop_when_fields_decayed(50, mp.Ez, mp.Vector3(14 - sx / 2, 0), 1e-9))
a_in = sim.get_eigenmode_coefficients(mon_in, [1], eig_parity=mp.EVEN_Y + mp.ODD_Z).alpha
a_out = sim.get_eigenmode_coefficients(mon_out, [1], eig_parity=mp.EVEN_Y + mp.ODD_Z).alpha
incident = np.abs(a_in[0, :, 0]) ** 2
t = np.abs(a_out[0, :, 0]) ** 2 / incident
r = np.abs(a_in[0, :, 1]) ** 2 / incident
print("T", ", ".join(f"{x:.6f}" for x in t))
print("R", ", ".join(f"{x:.6e}" for x in r))
