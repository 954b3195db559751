"""A scene run from Python writes what `yee run` writes, and reads back the same arrays."""

import subprocess
from pathlib import Path

import numpy as np

import yee
from conftest import scene_file


def files(folder):
    """The numeric outputs of a run folder: name -> bytes."""
    kinds = (".npy", ".csv", ".vti", ".pvd")
    return {p.name: p.read_bytes() for p in Path(folder).iterdir() if p.suffix in kinds}


def test_python_and_the_command_write_the_same_files(out, yee_binary):
    scene = scene_file("dipole2d")
    subprocess.run(
        [yee_binary, "run", str(scene), "--quiet", "--steps", "60", "--out", str(out / "cli")],
        check=True,
    )
    sim = yee.Simulation(yee.Scene.load(scene).with_steps(60), out=out / "py")
    assert sim.run() is True
    cli, py = files(out / "cli"), files(out / "py")
    assert cli.keys() == py.keys() and len(cli) > 0
    for name in cli:
        assert cli[name] == py[name], name
    # The field read back is the snapshot `yee run` wrote at the last step, bit for bit.
    ez = sim.field("ez")
    assert ez.shape == tuple(sim.report["grid"][:2])
    written = np.load(out / "cli" / "ez_000060.npy")
    assert np.array_equal(ez, written.reshape(ez.shape, order="F")) or np.array_equal(ez, written)


def test_a_paused_field_is_the_snapshot_of_that_step(out):
    scene = yee.Scene.load(scene_file("dipole2d")).with_steps(60)
    whole = yee.Simulation(scene, out=out / "whole")
    whole.run(steps=30)
    assert whole.step == 30 and not whole.finished
    at_30 = whole.field("ez")
    box = whole.field("ez", lo=[10, 20], hi=[40, 25])
    assert box.shape == (30, 5)
    assert np.array_equal(box, at_30[10:40, 20:25])
    seen = []
    whole.run(every=10, callback=lambda s: seen.append((s.step, s.field("ez")[50, 50])))
    assert [s for s, _ in seen] == [40, 50, 60]
    assert whole.finished
    again = yee.Simulation(scene, out=out / "again")
    again.run(until=30 * scene.dt)
    assert again.step == 30
    assert np.array_equal(again.field("ez"), at_30)


def test_dft_outputs_come_back_as_arrays(out):
    scene = yee.Scene.from_dict({
        "name": "dft",
        "grid": {"mode": "tmz", "size": [60, 40]},
        "boundaries": {"all": "cpml", "cpml": {"thickness": 8}},
        "sources": [{"component": "ez", "position": [20, 20], "waveform": "ricker", "frequency": 0.05}],
        "dft": [{"name": "box", "components": ["ez", "hx"], "lo": [30, 10], "hi": [40, 30],
                 "fmin": 0.03, "fmax": 0.07, "count": 3}],
        "run": {"steps": 200},
    })
    sim = yee.Simulation(scene, out=out)
    sim.run()
    box = sim.dft("box")
    assert box.shape == (3, 2, 20, 10) and box.dtype == np.complex128
    assert np.all(np.isfinite(box)) and np.abs(box).max() > 0
    assert sim.report["dfts"][0]["frequencies"] == [0.03, 0.05, 0.07]


def test_time_blocking_writes_the_one_step_files(out):
    """`time_block` tiles the steps (run.json says so) and writes the one-step run's files byte
    for byte; `cache_bytes` sizes the tiles, or "measure" measures the cache (the probe's
    rates recorded), and is recorded; bad values are refused by name."""
    scene = yee.Scene.load(scene_file("dipole2d")).with_steps(60)
    yee.Simulation(scene, out=out / "off").run()
    for name, block, cache in [("k4", 4, None), ("auto", "auto", "16M"), ("auto_int", "auto", 1 << 20),
                               ("measured", "auto", "measure")]:
        sim = yee.Simulation(scene, out=out / name, time_block=block, cache_bytes=cache)
        assert sim.run() is True
        tb = sim.report["time_block"]
        assert tb["ran"] == "wavefront" and tb["requested"] == str(block), tb
        if cache == "measure":
            probe = tb["cache_probe"]
            assert len(probe["rates"]) >= 3, probe
            assert (tb["cache_from"] == "measured") == (probe["knee_bytes"] is not None), tb
        elif cache is not None:
            assert tb["cache_from"] == "--cache-bytes", tb
        off, blocked = files(out / "off"), files(out / name)
        assert off.keys() == blocked.keys() and len(off) > 0
        for f in off:
            assert off[f] == blocked[f], (name, f)
    for kwargs, named in [({"time_block": "0"}, "time_block"), ({"time_block": "fast"}, "time_block"),
                          ({"cache_bytes": 0}, "cache_bytes"), ({"cache_bytes": "12X"}, "cache_bytes")]:
        try:
            yee.Simulation(scene, out=out / "refused", **kwargs)
        except ValueError as e:
            assert named in str(e), e
        else:
            raise AssertionError(f"{kwargs} was taken")
