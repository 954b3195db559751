"""An anti-reflection coating found by scipy: the thickness and index of one layer on a
substrate (n = 2) that minimise the reflectance at one frequency, each evaluation a yee run.

The optimum is the quarter-wave coating, n_c = sqrt(n_s) and d = λ/(4 n_c), where R vanishes;
the optimiser starts away from it and finds it from the runs alone.

    python python/examples/coating_optimisation.py [OUT]
"""

import sys

import numpy as np

import yee

SUBSTRATE = 4.0  # ε of the substrate, n_s = 2
FREQUENCY = 0.02  # cells⁻¹: 50 cells per wavelength in vacuum
COURANT = 0.5
SURFACE = 300  # where the substrate (and the coating's far side) begins


def scene(thickness, index, out, name, minus):
    """The substrate with a coating of ``thickness`` cells and ``index`` (none: the empty run)."""
    d = {
        "name": name,
        "grid": {"mode": "1d", "size": [600], "courant": COURANT},
        "boundaries": {"all": "cpml", "cpml": {"thickness": 20}},
        "sources": [
            {"component": "ez", "position": [60], "waveform": "gaussian", "frequency": FREQUENCY,
             "width": 100, "delay": 400}
        ],
        "flux": [{"name": "refl", "axis": "x", "position": 100, "fmin": FREQUENCY, "fmax": FREQUENCY, "count": 1}],
        "run": {"steps": 3000},
    }
    if thickness is not None:
        d["materials"] = {"substrate": {"eps": SUBSTRATE}, "coating": {"eps": index**2}}
        d["geometry"] = [
            {"shape": "box", "material": "substrate", "lo": [SURFACE], "hi": [600]},
            {"shape": "box", "material": "coating", "lo": [SURFACE - thickness], "hi": [SURFACE]},
        ]
        d["flux"][0]["minus"] = minus
    return yee.Scene.from_dict(d)


def main(out="out/python_coating"):
    """``(best thickness, best index, best R, R of the bare substrate, evaluations)``."""
    from scipy.optimize import minimize

    empty = yee.Simulation(scene(None, None, out, "incident", None), out=f"{out}/incident")
    empty.run()
    incident = empty.fluxes()["refl"]["flux"][0]
    minus = f"{out}/incident/flux_refl_dft.npy"
    runs = []

    def reflectance(p):
        thickness, index = p
        if not (1.0 <= thickness <= 40.0 and 1.0 <= index <= 2.5):
            return 1.0
        sim = yee.Simulation(scene(thickness, index, out, "coated", minus), out=f"{out}/coated")
        sim.run()
        r = -sim.fluxes()["refl"]["flux"][0] / incident
        runs.append((thickness, index, r))
        return r

    bare = reflectance([1.0, 1.0])  # a coating of vacuum: the bare substrate
    # The thickness lands on whole cells (R is flat between them): a simplex a few cells wide
    # steps over the flats.
    start = [[6.0, 1.8], [12.0, 1.8], [6.0, 1.3]]
    best = minimize(reflectance, x0=start[0], method="Nelder-Mead",
                    options={"initial_simplex": start, "xatol": 0.05, "fatol": 1e-7, "maxfev": 80})
    return best.x[0], best.x[1], best.fun, bare, len(runs)


if __name__ == "__main__":
    d, n, r, bare, count = main(*sys.argv[1:])
    n_c = np.sqrt(np.sqrt(SUBSTRATE))
    print(f"best coating: d = {d:.2f} cells, n = {n:.3f}, R = {r:.2e} (bare substrate R = {bare:.4f}) "
          f"after {count} runs; quarter-wave: n = {n_c:.3f}, d = {1 / FREQUENCY / (4 * n_c):.2f}")
