"""A dielectric sphere's scattering cross-section against Mie theory (miepython).

examples/scenes/sphere_scattering.toml: a sphere of ε = 2 and radius 8 cells in the total-field
box of a plane wave, a closed flux box around it in the scattered-field region. With a plane
wave in the scene, yee divides the scattered power by the incident intensity: the flux
region's ``cross_section`` (cells²). The sphere is staircased; tests/tests/mie.rs finds its
volume-equivalent radius, 7.949 cells (2104 cells of the grid's E nodes against 4πR³/3), and
bounds the miss of Mie at that radius by 3 %.

    python python/examples/mie_sphere.py [OUT]
"""

import sys
from pathlib import Path

import numpy as np

import yee

#: The volume-equivalent radius of the staircased sphere (tests/tests/mie.rs).
EQUIVALENT_RADIUS = 7.949
EPS = 2.0
SCENE = Path(__file__).resolve().parents[2] / "examples" / "scenes" / "sphere_scattering.toml"


def main(out="out/python_mie"):
    """``(size parameters, σ_sca from yee, σ_sca from Mie)`` over the run's band."""
    import miepython

    sim = yee.Simulation(yee.Scene.load(SCENE), out=out)
    sim.run()
    flux = sim.fluxes()["scattered"]
    f = flux["frequencies"]
    sigma = flux["cross_section"]
    x = 2 * np.pi * EQUIVALENT_RADIUS * f
    m = np.sqrt(EPS)
    qext, qsca, qback, g = miepython.mie(m, x)
    mie = qsca * np.pi * EQUIVALENT_RADIUS**2
    return x, sigma, mie


if __name__ == "__main__":
    x, sigma, mie = main(*sys.argv[1:])
    for row in zip(x, sigma, mie):
        print("x = {:.3f}: yee {:8.3f}, Mie {:8.3f} ({:+.2f} %)".format(*row, 100 * (row[1] / row[2] - 1)))
