"""TM bands of the square lattice of dielectric rods (ε = 12, r = 0.2a) by MPB, the reference
of `yee bands` (apps/yee/tests/bands.rs records these numbers: `bands::square_rods`; docs/bands.md).

Run: /usr/bin/python3 bench/mpb_square_rods.py   (under a minute)
Needs Debian's MPB and what its Python module imports:
    apt-get install -y python3-meep python3-matplotlib python3-h5py

The structure of Joannopoulos et al., "Photonic Crystals" (2nd ed.), ch. 5, fig. 2 and MPB's
tutorial: the first TM gap lies between bands 1 and 2, ~0.28–0.42 c/a.
"""
import meep as mp
from meep import mpb

RESOLUTION = 32
NUM_BANDS = 8
CORNERS = {"G": mp.Vector3(), "X": mp.Vector3(0.5), "M": mp.Vector3(0.5, 0.5)}
K_POINTS = mp.interpolate(4, [CORNERS["G"], CORNERS["X"], CORNERS["M"], CORNERS["G"]])

ms = mpb.ModeSolver(
    num_bands=NUM_BANDS,
    k_points=K_POINTS,
    geometry=[mp.Cylinder(0.2, material=mp.Medium(epsilon=12))],
    geometry_lattice=mp.Lattice(size=mp.Vector3(1, 1)),
    resolution=RESOLUTION,
    tolerance=1e-10,
)
ms.run_tm()
print("# MPB TM bands, square lattice of eps=12 rods r=0.2a, resolution", RESOLUTION)
print("k_index,kx,ky," + ",".join(f"band{b + 1}" for b in range(NUM_BANDS)))
for i, (k, freqs) in enumerate(zip(K_POINTS, ms.all_freqs)):
    print(f"{i},{k.x:.6f},{k.y:.6f}," + ",".join(f"{f:.6f}" for f in freqs))
gaps = ms.gap_list
print("# gaps (percent, fmin, fmax):", [(round(g[0], 3), round(g[1], 6), round(g[2], 6)) for g in gaps])
