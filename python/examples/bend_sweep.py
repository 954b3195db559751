"""A dielectric waveguide (ε = 12, 10 cells wide, TMz) turned through 90° by a bend of radius
R, swept over R: the transmitted and reflected power against R, each normalised by a straight
guide's (examples/scenes/waveguide_bend.toml is the sharp corner; Meep's bend tutorial).

A tight bend radiates: the transmission rises towards 1 as the radius grows.

    python python/examples/bend_sweep.py [OUT]
"""

import sys

import numpy as np

import yee

WIDTH = 10
Y0 = 25  # the horizontal guide's centre line
XB = 40  # where the bend begins
F0, FMIN, FMAX = 0.015, 0.01, 0.02


def scene(radius, out, name, minus=None):
    """The guide turned by a bend of ``radius`` (None: a straight guide through the grid)."""
    r = radius or 0
    nx = XB + r + WIDTH // 2 + 40
    ny = Y0 + r + 60
    half = WIDTH / 2
    geometry = []
    if radius is None:
        geometry.append({"shape": "box", "material": "guide", "lo": [0, Y0 - half], "hi": [nx, Y0 + half]})
        trans = {"axis": "x", "position": nx - 25, "lo": [nx - 25, Y0 - 10], "hi": [nx - 25, Y0 + 10]}
    else:
        centre = [XB, Y0 + r]
        geometry += [
            {"shape": "cylinder", "material": "guide", "center": centre, "radius": r + half},
            {"shape": "cylinder", "material": "vacuum", "center": centre, "radius": max(r - half, 0.0)},
            # Only the quadrant below and right of the centre is the bend.
            {"shape": "box", "material": "vacuum", "lo": [0, 0], "hi": [XB, ny]},
            {"shape": "box", "material": "vacuum", "lo": [XB, Y0 + r], "hi": [nx, ny]},
            {"shape": "box", "material": "guide", "lo": [0, Y0 - half], "hi": [XB, Y0 + half]},
            {"shape": "box", "material": "guide", "lo": [XB + r - half, Y0 + r], "hi": [XB + r + half, ny]},
        ]
        x = XB + r
        trans = {"axis": "y", "position": ny - 25, "lo": [x - 10, ny - 25], "hi": [x + 10, ny - 25]}
    refl = {"name": "refl", "axis": "x", "position": 15, "lo": [15, Y0 - 10], "hi": [15, Y0 + 10]}
    band = {"fmin": FMIN, "fmax": FMAX, "count": 5}
    if minus:
        refl["minus"] = minus
    d = {
        "name": name,
        "grid": {"mode": "tmz", "size": [nx, ny], "courant": 0.5},
        "boundaries": {"all": "cpml", "cpml": {"thickness": 10}},
        "materials": {"guide": {"eps": 12.0}},
        "geometry": geometry,
        "sources": [
            {"component": "ez", "lo": [10, Y0 - half], "hi": [10, Y0 + half], "waveform": "gaussian",
             "frequency": F0, "width": 100, "delay": 500}
        ],
        "flux": [dict(refl, **band), dict(trans, name="trans", **band)],
        "run": {"steps": 6000},
    }
    return yee.Scene.from_dict(d)


def main(out="out/python_bend", radii=(4, 12, 24)):
    """``(radii, T, R)``: the band-averaged transmission and reflection of each bend."""
    straight = yee.Simulation(scene(None, out, "straight"), out=f"{out}/straight")
    straight.run()
    incident = straight.fluxes()
    minus = f"{out}/straight/flux_refl_dft.npy"
    ts, rs = [], []
    for radius in radii:
        sim = yee.Simulation(scene(radius, out, f"bend_{radius}", minus), out=f"{out}/bend_{radius}")
        sim.run()
        fluxes = sim.fluxes()
        ts.append(np.mean(fluxes["trans"]["flux"] / incident["trans"]["flux"]))
        rs.append(np.mean(-fluxes["refl"]["flux"] / incident["refl"]["flux"]))
    return np.array(radii), np.array(ts), np.array(rs)


if __name__ == "__main__":
    for radius, t, r in zip(*main(*sys.argv[1:])):
        print(f"R = {radius:3d} cells: T = {t:.3f}, R = {r:.4f}, loss = {1 - t - r:.3f}")
