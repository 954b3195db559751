"""The Python examples run and give the physics the Rust tests assert."""

import numpy as np


def test_slab_matches_airy_and_conserves_energy(out):
    import slab_spectrum

    f, r, t, airy_r, airy_t = slab_spectrum.main(str(out))
    assert len(f) == 61
    # The bounds of tests/tests/flux.rs.
    assert np.max(np.abs(r + t - 1)) <= 1e-3
    assert np.max(np.abs(r - airy_r)) <= 0.005
    assert np.max(np.abs(t - airy_t)) <= 0.005


def test_sphere_scatters_as_mie_predicts(out):
    import mie_sphere

    x, sigma, mie = mie_sphere.main(str(out))
    # The bound of tests/tests/mie.rs.
    assert np.max(np.abs(sigma / mie - 1)) <= 0.03


def test_bend_transmits_more_as_its_radius_grows(out):
    import bend_sweep

    radii, t, r = bend_sweep.main(str(out))
    assert np.all(np.diff(t) > 0), f"T against R: {list(zip(radii, t))}"
    assert np.all((t > 0) & (t < 1.02)) and np.all((r > -0.01) & (r < 1))


def test_optimiser_finds_the_quarter_wave_coating(out):
    import coating_optimisation as c

    d, n, r, bare, runs = c.main(str(out))
    n_s = np.sqrt(c.SUBSTRATE)
    assert abs(bare - ((n_s - 1) / (n_s + 1)) ** 2) < 0.01  # the bare substrate: Fresnel, 1/9
    assert r < 0.01 * bare
    assert abs(n - np.sqrt(n_s)) < 0.05
