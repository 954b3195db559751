#!/usr/bin/env python3
"""Meep's ring-resonator tutorial ("Modes of a Ring Resonator", python/examples/ring.py) as
written there, printing Harminv's modes: a 2D ring of index 3.4, inner radius 1, width 1, 4 of
padding and PML 2, resolution 10 (pixels per unit), an Ez Gaussian source (fcen 0.15, df 0.1)
at (r + 0.1, 0), Harminv on Ez at the same point in [fcen - df/2, fcen + df/2] from the end of
the source to 300 after it. yee's examples/scenes/ring_resonator.toml is the same structure in
cells (1 unit = RESOLUTION cells, Meep's frequencies / RESOLUTION, its times x RESOLUTION); the
test `resonances::ring_resonator_matches_meep` holds this script's output.
    /usr/bin/python3 bench/meep_ring.py [--resolution 10] [--no-averaging] [--courant 0.5]
        [--until-after-sources 300]
The test's numbers are those of --until-after-sources 1000. Needs Debian's Meep and what its
Python module imports: apt-get install -y python3-meep python3-matplotlib
"""
import argparse

import meep as mp

mp.verbosity(0)


def ring_modes(resolution, averaging, courant, until=300):
    n, w, r, pad, dpml = 3.4, 1, 1, 4, 2
    sxy = 2 * (r + w + pad + dpml)
    geometry = [mp.Cylinder(radius=r + w, material=mp.Medium(index=n)), mp.Cylinder(radius=r)]
    fcen, df = 0.15, 0.1
    sources = [mp.Source(mp.GaussianSource(fcen, fwidth=df), mp.Ez, mp.Vector3(r + 0.1))]
    sim = mp.Simulation(cell_size=mp.Vector3(sxy, sxy), geometry=geometry, sources=sources,
                        resolution=resolution, symmetries=[mp.Mirror(mp.Y)],
                        boundary_layers=[mp.PML(dpml)], eps_averaging=averaging,
                        Courant=courant)
    h = mp.Harminv(mp.Ez, mp.Vector3(r + 0.1), fcen, df)
    sim.run(mp.after_sources(h), until_after_sources=until)
    return sim, h.modes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resolution", type=int, default=10)
    parser.add_argument("--no-averaging", action="store_true")
    parser.add_argument("--courant", type=float, default=0.5)
    parser.add_argument("--until-after-sources", type=float, default=300)
    args = parser.parse_args()
    sim, modes = ring_modes(args.resolution, not args.no_averaging, args.courant,
                            args.until_after_sources)
    print(f"# resolution {args.resolution}, eps_averaging {not args.no_averaging}, "
          f"Courant {args.courant}, meep {mp.__version__}, ended at t = {sim.meep_time()}")
    print("frequency,Q,decay,amplitude,error")
    for m in modes:
        print(f"{m.freq:.10f},{m.Q:.6f},{m.decay:.10e},{abs(m.amp):.6e},{m.err:.3e}")


if __name__ == "__main__":
    main()
