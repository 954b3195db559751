#!/usr/bin/env python3
"""Meep's bent-waveguide tutorial ("Transmittance Spectrum of a Waveguide Bend") in Meep and in
yee at the same resolution: R(f) and T(f) of the 90° bend, each normalised by its own straight
waveguide run, and the largest differences. yee runs the example scenes
examples/scenes/waveguide_bend_incident.toml and waveguide_bend.toml (in um) at the resolution
(cells per um; the examples say 10).
    cargo build --release -p yee && /usr/bin/python3 bench/meep_bend.py [--resolution 10] [--no-averaging]
--no-averaging turns Meep's subpixel smoothing off (yee's interfaces take the mean of both
materials on the nodes they cut; it has no smoothing yet).
--meep-only prints Meep's T(f) alone, as the Rust table that apps/yee/tests/bend_vs_meep.rs
holds (the numbers recorded there were made with
    /usr/bin/python3 bench/meep_bend.py --meep-only --resolution 10   (and 20), Meep 1.25.0).
"""
import argparse
import json
import os
import subprocess
import tempfile

import meep as mp

mp.verbosity(0)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def meep_spectra(resolution, averaging):
    """The tutorial's two runs, as written there: R and T over the straight run's T flux."""
    sx, sy, dpml, pad, w = 16, 32, 1.0, 4, 1
    cell = mp.Vector3(sx, sy, 0)
    wvg_xcen, wvg_ycen = 0.5 * (sx - w - 2 * pad), -0.5 * (sy - w - 2 * pad)
    fcen, df, nfreq = 0.15, 0.1, 100
    sources = [mp.Source(mp.GaussianSource(fcen, fwidth=df), component=mp.Ez,
                         center=mp.Vector3(-0.5 * sx + dpml, wvg_ycen), size=mp.Vector3(0, w))]
    refl_fr = mp.FluxRegion(center=mp.Vector3(-0.5 * sx + dpml + 0.5, wvg_ycen), size=mp.Vector3(0, 2 * w))

    def simulation(geometry):
        return mp.Simulation(cell_size=cell, boundary_layers=[mp.PML(dpml)], geometry=geometry,
                             sources=sources, resolution=resolution, eps_averaging=averaging)

    glass = mp.Medium(epsilon=12)
    sim = simulation([mp.Block(size=mp.Vector3(mp.inf, w, mp.inf), center=mp.Vector3(0, wvg_ycen), material=glass)])
    refl = sim.add_flux(fcen, df, nfreq, refl_fr)
    tran = sim.add_flux(fcen, df, nfreq, mp.FluxRegion(center=mp.Vector3(0.5 * sx - dpml, wvg_ycen), size=mp.Vector3(0, 2 * w)))
    sim.run(until_after_sources=mp.stop_when_fields_decayed(50, mp.Ez, mp.Vector3(0.5 * sx - dpml - 0.5, wvg_ycen), 1e-3))
    straight_refl = sim.get_flux_data(refl)
    straight_tran = mp.get_fluxes(tran)
    sim.reset_meep()
    sim = simulation([
        mp.Block(mp.Vector3(sx - pad, w, mp.inf), center=mp.Vector3(-0.5 * pad, wvg_ycen), material=glass),
        mp.Block(mp.Vector3(w, sy - pad, mp.inf), center=mp.Vector3(wvg_xcen, 0.5 * pad), material=glass),
    ])
    refl = sim.add_flux(fcen, df, nfreq, refl_fr)
    tran_fr = mp.FluxRegion(center=mp.Vector3(wvg_xcen, 0.5 * sy - dpml - 0.5), size=mp.Vector3(2 * w, 0))
    tran = sim.add_flux(fcen, df, nfreq, tran_fr)
    sim.load_minus_flux_data(refl, straight_refl)
    sim.run(until_after_sources=mp.stop_when_fields_decayed(50, mp.Ez, mp.Vector3(wvg_xcen, 0.5 * sy - dpml - 0.5), 1e-3))
    r = [-a / b for a, b in zip(mp.get_fluxes(refl), straight_tran)]
    t = [a / b for a, b in zip(mp.get_fluxes(tran), straight_tran)]
    return mp.get_flux_freqs(refl), r, t


def yee_spectra(resolution, yee):
    with tempfile.TemporaryDirectory() as tmp:
        spectra = {}
        for name in ["waveguide_bend_incident", "waveguide_bend"]:
            text = open(os.path.join(ROOT, "examples/scenes", name + ".toml")).read()
            text = text.replace("../../out/waveguide_bend_incident/", os.path.join(tmp, "incident") + "/")
            scene = os.path.join(tmp, name + ".toml")
            # The examples are in um at resolution 10: one number sets the resolution.
            open(scene, "w").write(text.replace("\nresolution = 10\n", f"\nresolution = {resolution}\n"))
            out = os.path.join(tmp, "incident" if name.endswith("incident") else "bend")
            subprocess.run([yee, "run", scene, "--quiet", "--out", out], check=True)
            report = json.load(open(os.path.join(out, "run.json")))
            spectra[name] = {f["name"]: f for f in report["fluxes"]}
    incident = spectra["waveguide_bend_incident"]["trans"]["flux"]
    bend = spectra["waveguide_bend"]
    f = bend["trans"]["frequencies"]  # c/um, the scene's units
    r = [-a / b for a, b in zip(bend["refl"]["flux"], incident)]
    t = [a / b for a, b in zip(bend["trans"]["flux"], incident)]
    return f, r, t


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--resolution", type=int, default=10)
    p.add_argument("--no-averaging", action="store_true")
    p.add_argument("--yee", default=os.path.join(ROOT, "target/release/yee"))
    p.add_argument("--meep-only", action="store_true")
    a = p.parse_args()
    fm, rm, tm = meep_spectra(a.resolution, not a.no_averaging)
    if a.meep_only:
        print(f"// Meep {mp.__version__}, resolution {a.resolution}, f = {fm[0]:.4f} … {fm[-1]:.4f} c/um")
        print(f"const MEEP_T_{a.resolution}: [f64; {len(tm)}] = [")
        for i in range(0, len(tm), 6):
            print("    " + " ".join(f"{x:.6f}," for x in tm[i:i + 6]))
        print("];")
        return
    fy, ry, ty = yee_spectra(a.resolution, a.yee)
    print(f"resolution {a.resolution}, Meep subpixel averaging {'off' if a.no_averaging else 'on'}")
    print("f (c/um)   R meep  R yee   T meep  T yee")
    for i in range(0, len(fm), 11):
        print(f"{fm[i]:.4f}    {rm[i]:.4f}  {ry[i]:.4f}  {tm[i]:.4f}  {ty[i]:.4f}")
    print(f"max |R_yee − R_meep| = {max(abs(x - y) for x, y in zip(ry, rm)):.4f}, "
          f"max |T_yee − T_meep| = {max(abs(x - y) for x, y in zip(ty, tm)):.4f}")


if __name__ == "__main__":
    main()
