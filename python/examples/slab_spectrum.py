"""A dielectric slab's reflectance and transmittance against the Airy formula.

The scene of examples/scenes/slab_spectrum.toml built as a dict: an empty run gives the
incident spectra and the incident fields to subtract at the reflection plane (the ``minus``
file, Meep's ``load_minus_flux_data``), then the run with the slab gives R and T. The Airy
formula is taken at the wavenumber a plane wave has on the 1D Yee grid,
sin(k/2) = (n/S) sin(ωS/2) (Taflove & Hagness, 3rd ed., eq. 4.12).

    python python/examples/slab_spectrum.py [OUT]
"""

import sys

import numpy as np

import yee

EPS = 4.0
THICKNESS = 40.0
COURANT = 0.5


def scene(slab, out, name):
    """The slab scene (``slab`` False: the empty run) writing into ``out``."""
    d = {
        "name": name,
        "grid": {"mode": "1d", "size": [500], "courant": COURANT},
        "boundaries": {"all": "cpml", "cpml": {"thickness": 20}},
        "plane_waves": [
            {
                "lo": [40],
                "hi": [460],
                "direction": "+x",
                "polarization": [0, 0, 1],
                "waveform": "gaussian",
                "frequency": 0.0125,
                "width": 50,
                "delay": 250,
            }
        ],
        "flux": [
            {"name": "refl", "axis": "x", "position": 120, "fmin": 0.005, "fmax": 0.02, "count": 61},
            {"name": "trans", "axis": "x", "position": 380, "fmin": 0.005, "fmax": 0.02, "count": 61},
        ],
        "run": {"steps": 4800},
    }
    if slab:
        d["materials"] = {"glass": {"eps": EPS}}
        d["geometry"] = [{"shape": "box", "material": "glass", "lo": [220], "hi": [220 + THICKNESS]}]
        d["flux"][0]["minus"] = f"{out}/incident/flux_refl_dft.npy"
    return yee.Scene.from_dict(d)


def airy(frequencies, eps=EPS, thickness=THICKNESS, courant=COURANT):
    """R and T of the slab at the grid's wavenumber (Born & Wolf §1.6.4)."""
    n = np.sqrt(eps)
    k = 2 * np.arcsin((n / courant) * np.sin(np.pi * frequencies * courant))
    f = k / (2 * np.pi * n)
    rho = (1 - n) / (1 + n)
    beta = 2 * np.pi * n * f * thickness
    e2 = np.exp(2j * beta)
    r = rho * (1 - e2) / (1 - rho**2 * e2)
    t = (1 - rho**2) * np.exp(1j * beta) / (1 - rho**2 * e2)
    return np.abs(r) ** 2, np.abs(t) ** 2


def main(out="out/python_slab"):
    """R, T and the Airy R, T over the band: ``(frequencies, R, T, airy_R, airy_T)``."""
    empty = yee.Simulation(scene(False, out, "incident"), out=f"{out}/incident")
    empty.run()
    incident = empty.fluxes()
    sim = yee.Simulation(scene(True, out, "slab"), out=f"{out}/slab")
    sim.run()
    fluxes = sim.fluxes()
    f = fluxes["trans"]["frequencies"]
    r = -fluxes["refl"]["flux"] / incident["refl"]["flux"]
    t = fluxes["trans"]["flux"] / incident["trans"]["flux"]
    airy_r, airy_t = airy(f)
    return f, r, t, airy_r, airy_t


if __name__ == "__main__":
    f, r, t, ar, at = main(*sys.argv[1:])
    for row in zip(f, r, t, ar, at):
        print("f = {:.5f}: R = {:.4f} (Airy {:.4f}), T = {:.4f} (Airy {:.4f})".format(*row))
    print(f"max |R + T - 1| = {np.max(np.abs(r + t - 1)):.2e}")
