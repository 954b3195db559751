#!/usr/bin/env python3
"""Meep's transmission of the uniaxial crystal slabs of tests/tests/tensor.rs (issue 51), on the
same cells, against Berreman's 4x4 transfer matrix.

The crystal is yee's `turned_crystal`: eps = R diag(2.89, 2.25, 2.25) R^T, its optic axis
turned 30 degrees from x about y (`tilted`, in the plane of incidence: eps_xz != 0, light
polarised at 45 degrees, eigenpolarisations x and y) or about z (`inplane`: eps_xy != 0,
x-polarised light, split into the components along and across the optic axis as the test
does). Everything is placed on yee's cells (`slab_transmission`): `cells` = 34, 68, 136 per
vacuum wavelength, the slab round(1.3 cells) thick with its faces half a cell beyond E nodes,
the source 30 cells in, the slab's front cells/2 beyond it, the probe cells/2 beyond the back.
Meep: a 3D cell one pixel wide in x and y (periodic, k = 0, as yee's one-cell-wide periodic
grid), `resolution = cells` (unit length = the vacuum wavelength, so f0 = 1), Courant 0.5 (the
test's and Meep's default), PML on z one vacuum wavelength thick (yee has 20 CPML cells; the
absorbers only move the cell's ends), yee's Ricker pulse (f0, delay 2/f0) as an Ex + Ey current
sheet, and the DFT at f0 of Ex, Ey at the probe over a vacuum run's Ex. The cell has an even
number of pixels so Meep's integer grid points (where its Yee lattice puts Ex and Ey along z)
lie on yee's E nodes and the faces on pixel boundaries: each Ex/Ey pixel is wholly crystal or
wholly vacuum, so subpixel averaging leaves Ex and Ey's eps alone (Ez's half-integer pixels do
straddle the faces, but at normal incidence Dz = 0 and Ez feeds nothing back);
`--no-averaging` checks that.

Reference: Berreman's 4x4 matrix (1972, J. Opt. Soc. Am. 62, 502, eq. (7) at normal
incidence), ported from em/src/berreman.rs, and, as a check, Airy's formula per
eigenpolarisation, exact here: at normal incidence with eps_xy = eps_yz = 0 (tilted) the
matrix splits into an (Ex, Hy) block of index 1/sqrt((eps^-1)_xx) and an (Ey, Hx) block of
index sqrt(eps_yy); for the in-plane crystal the optic axis and its normal are the two
blocks (indices 1.7 and 1.5).

Run with Debian's python3-meep (Meep 1.25, double precision), a few seconds per run:
    /usr/bin/python3 bench/meep_tilted_slab.py [--case tilted|inplane|both] [--no-averaging]
Also prints the slab's |t|^2 on the 1D Yee lattice itself (`lattice_t`), which both codes
should reproduce up to their sources' and absorbers' small errors. Recorded 2026-11-29 (Meep
1.25.0; the same digits with --no-averaging), the larger |t|^2 error of the two
eigenpolarisations, Meep and yee (the tests' eprintln output):

    cells/l0   tilted: Meep    yee        in x-y plane: Meep   yee
          34        1.324e-2  1.32e-2                1.124e-2  1.12e-2
          68        3.258e-3  3.25e-3                2.847e-3  2.84e-3
         136        8.083e-4  8.08e-4                6.365e-4  6.34e-4

Meep's |t|^2 is the lattice's to 1e-6 and yee's to 5e-6 (tilted, extraordinary, 68 cells:
Meep 0.8779561, lattice 0.8779562, yee 0.8779603, Berreman 0.8812138): the error is the Yee
lattice's dispersion in a slab 1.3 vacuum wavelengths thick, the same in both codes.
"""
import argparse
import math
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import scipy.linalg  # noqa: E402
import meep as mp  # noqa: E402

mp.verbosity(0)

NO, NE = 2.25, 2.89
ANGLE = math.pi / 6.0
SLAB_WAVELENGTHS = 1.3
# The larger error of the two transmittances, yee (tests/tests/tensor.rs doc comments).
YEE = {
    "tilted": {34: 1.32e-2, 68: 3.25e-3, 136: 8.08e-4},
    "inplane": {34: 1.12e-2, 68: 2.84e-3, 136: 6.34e-4},
}


def rotated_diagonal(d, axis, angle):
    """em/src/tensor.rs's `rotated_diagonal`: R diag(d) R^T, R turning by `angle` about `axis`."""
    s, c = math.sin(angle), math.cos(angle)
    u, v = (axis + 1) % 3, (axis + 2) % 3
    r = np.zeros((3, 3))
    r[axis, axis] = 1.0
    r[u, u], r[u, v], r[v, u], r[v, v] = c, -s, s, c
    return r @ np.diag(d) @ r.T


def berreman(eps, thickness, frequency, incident):
    """Transmitted [Ex, Ey] of a slab between vacuum, Berreman's 4x4 at normal incidence."""
    e = np.asarray(eps, dtype=complex)
    delta = np.zeros((4, 4), dtype=complex)
    delta[0, 1] = delta[2, 3] = 1.0
    delta[1, 0] = e[0, 0] - e[0, 2] * e[2, 0] / e[2, 2]
    delta[1, 2] = e[0, 1] - e[0, 2] * e[2, 1] / e[2, 2]
    delta[3, 0] = e[1, 0] - e[1, 2] * e[2, 0] / e[2, 2]
    delta[3, 2] = e[1, 1] - e[1, 2] * e[2, 1] / e[2, 2]
    p = scipy.linalg.expm(1j * 2 * math.pi * frequency * thickness * delta)
    fwd = np.array([[1, 1, 0, 0], [0, 0, 1, 1]], dtype=float)
    bwd = np.array([[1, -1, 0, 0], [0, 0, 1, -1]], dtype=float)
    a = np.column_stack([p @ bwd[0], p @ bwd[1], -fwd[0], -fwd[1]])
    b = -(p @ (incident[0] * fwd[0] + incident[1] * fwd[1]))
    x = np.linalg.solve(a, b)
    return x[2:]


def airy_t(n, thickness, frequency):
    """Airy's transmission of a slab of index n in vacuum, time e^{-iwt}, t at the back face."""
    delta = 2 * math.pi * frequency * n * thickness
    r = (1 - n) / (1 + n)
    return (1 - r * r) * np.exp(1j * delta) / (1 - r * r * np.exp(2j * delta))


def lattice_t(n, thickness, cells, courant=0.5):
    """|t|^2 of the same slab on the 1D Yee lattice itself at f0 (cell units, c = 1): E nodes
    at integers, n^2 on the `thickness` nodes between the faces, and the leapfrog's
    (E[k+1] - 2E[k] + E[k-1]) + w~^2 eps[k] E[k] = 0 with w~ = sin(w dt/2)/(dt/2), solved by
    recurrence from a pure outgoing wave e^{i kappa k} behind the slab (2 sin(kappa/2) = w~ in
    vacuum). Both codes' |t|^2 up to the DFT's truncation: the error left is the lattice's."""
    dt = courant
    w = 2 * math.pi / cells
    wt = math.sin(w * dt / 2) / (dt / 2)
    kappa = 2 * math.asin(wt / 2)
    eps = np.ones(thickness + 4)
    eps[2 : 2 + thickness] = n * n  # nodes 2 .. thickness+1 inside; faces half a cell out
    e = np.zeros(thickness + 4, dtype=complex)
    e[-1], e[-2] = np.exp(1j * kappa * (thickness + 3)), np.exp(1j * kappa * (thickness + 2))
    for k in range(thickness + 2, 0, -1):
        e[k - 1] = (2 - wt * wt * eps[k]) * e[k] - e[k + 1]
    # e[0], e[1] in vacuum: a e^{i kappa k} + b e^{-i kappa k}.
    m = np.array([[1, 1], [np.exp(1j * kappa), np.exp(-1j * kappa)]])
    a, _ = np.linalg.solve(m, e[:2])
    return 1.0 / abs(a) ** 2


def meep_run(cells, eps, incident, averaging):
    """Transmitted [Ex, Ey] at f0 over the vacuum run's Ex, Meep on yee's cells."""
    thickness = round(SLAB_WAVELENGTHS * cells)
    source = 30
    front = source + cells // 2
    probe = front + thickness + cells // 2
    pml = cells  # one vacuum wavelength
    lo, hi = source - 10 - pml, probe + 10 + pml
    if (hi - lo) % 2:
        hi += 1
    mid = (lo + hi) // 2  # an integer: Meep's grid points (Ex, Ey along z) at integer pixels
    r = float(cells)

    def at(k):
        return (k - mid) / r

    f0 = 1.0
    delay = 2.0 / f0

    def ricker(t):
        a = math.pi * f0 * (t - delay)
        return (1.0 - 2.0 * a * a) * math.exp(-a * a)

    px = 1.0 / r
    sources = [
        mp.Source(
            mp.CustomSource(ricker, end_time=2 * delay),
            component=comp,
            center=mp.Vector3(0, 0, at(source)),
            size=mp.Vector3(px, px, 0),
            amplitude=amp,
        )
        for comp, amp in zip((mp.Ex, mp.Ey), incident)
        if amp != 0.0
    ]
    steps = int((hi - lo + 12.0 * math.sqrt(NE) * thickness) / 0.5 + 4.0 * cells)
    until = steps * 0.5 / r

    def run(geometry):
        sim = mp.Simulation(
            cell_size=mp.Vector3(px, px, (hi - lo) / r),
            resolution=r,
            boundary_layers=[mp.PML(pml / r, direction=mp.Z)],
            geometry=geometry,
            sources=sources,
            k_point=mp.Vector3(),
            Courant=0.5,
            eps_averaging=averaging,
        )
        point = mp.Vector3(0, 0, at(probe))
        acc = np.zeros(2, dtype=complex)

        def dft(sim):
            phase = np.exp(2j * math.pi * f0 * sim.meep_time())
            acc[0] += sim.get_field_point(mp.Ex, point) * phase
            acc[1] += sim.get_field_point(mp.Ey, point) * phase

        sim.run(dft, until=until)
        return acc.copy()

    vacuum = run([])
    material = mp.Medium(
        epsilon_diag=mp.Vector3(eps[0, 0], eps[1, 1], eps[2, 2]),
        epsilon_offdiag=mp.Vector3(eps[0, 1], eps[0, 2], eps[1, 2]),
    )
    slab = mp.Block(
        size=mp.Vector3(mp.inf, mp.inf, thickness / r),
        center=mp.Vector3(0, 0, at(front + 0.5 + thickness / 2)),
        material=material,
    )
    measured = run([slab])
    return measured / vacuum[0], thickness


def transmittances(case, t, c, s):
    """The two eigenpolarisations' |t|^2 from the transmitted [Ex, Ey] (test's decomposition)."""
    if case == "tilted":
        return np.abs(t) ** 2
    # x = c a - s b (a the optic axis): the parts along a and b are c t_e and -s t_o.
    return np.abs(np.array([(t[0] * c + t[1] * s) / c, (t[1] * c - t[0] * s) / -s])) ** 2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", choices=("tilted", "inplane", "both"), default="tilted")
    parser.add_argument("--no-averaging", action="store_true")
    parser.add_argument("--cells", type=int, nargs="*", default=[34, 68, 136])
    args = parser.parse_args()
    cases = ("tilted", "inplane") if args.case == "both" else (args.case,)
    c, s = math.cos(ANGLE), math.sin(ANGLE)
    for case in cases:
        axis, incident = (1, (1.0, 1.0)) if case == "tilted" else (2, (1.0, 0.0))
        eps = rotated_diagonal([NE, NO, NO], axis, ANGLE)
        if case == "tilted":
            indices = (1.0 / math.sqrt(np.linalg.inv(eps)[0, 0]), math.sqrt(eps[1, 1]))
        else:
            indices = (math.sqrt(NE), math.sqrt(NO))
        print(f"meep {mp.__version__}, {case} crystal (eigen-indices {indices[0]:.4f}, "
              f"{indices[1]:.4f}), eps_averaging {not args.no_averaging}")
        print("cells/l0  |t|^2 Meep (e, o)       |t|^2 Berreman (e, o)   |t|^2 lattice (e, o)"
              "    Meep error (e, o)      yee max    Airy-Berreman")
        errors = []
        for cells in args.cells:
            t, thickness = meep_run(cells, eps, incident, not args.no_averaging)
            ref = berreman(eps, thickness, 1.0 / cells, incident)
            m, b = transmittances(case, t, c, s), transmittances(case, ref, c, s)
            airy = np.abs([airy_t(n, thickness, 1.0 / cells) for n in indices]) ** 2
            lattice = np.array([lattice_t(n, thickness, cells) for n in indices])
            err = np.abs(m - b)
            errors.append(err.max())
            print(f"{cells:8d}  {m[0]:.7f} {m[1]:.7f}   {b[0]:.7f} {b[1]:.7f}   "
                  f"{lattice[0]:.7f} {lattice[1]:.7f}   {err[0]:.3e} {err[1]:.3e}  "
                  f"{YEE[case].get(cells, float('nan')):.3e}   {np.abs(airy - b).max():.0e}")
        orders = [math.log2(a / b) for a, b in zip(errors, errors[1:])]
        print("orders " + ", ".join(f"{o:.2f}" for o in orders))


if __name__ == "__main__":
    main()
