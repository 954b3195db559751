"""Bad input raises an exception naming what is wrong and where."""

import pytest

import yee


def slab(**changes):
    d = {
        "name": "bad",
        "grid": {"mode": "1d", "size": [100]},
        "sources": [{"component": "ez", "position": [50], "waveform": "gaussian", "frequency": 0.05, "width": 10, "delay": 40}],
        "run": {"steps": 10},
    }
    d.update(changes)
    return d


def test_an_unknown_component_names_its_key():
    d = slab(sources=[{"component": "ew", "position": [50], "waveform": "gaussian", "frequency": 0.05, "width": 10, "delay": 40}])
    with pytest.raises(yee.SceneError) as e:
        yee.Scene.from_dict(d)
    assert e.value.key == "sources[0].component"
    assert "sources[0].component" in str(e.value)
    assert e.value.line is None


def test_a_file_error_names_the_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\n[grid]\nmode = "1d"\nsize = [100]\n[run]\nsteps = "ten"\n')
    with pytest.raises(yee.SceneError) as e:
        yee.Scene.load(path)
    assert e.value.line == 6
    assert e.value.key.startswith("run")
    assert isinstance(e.value, ValueError)


def test_values_python_cannot_say_in_toml_are_refused():
    with pytest.raises(ValueError, match="grid.size"):
        yee.Scene.from_dict(slab(grid={"mode": "1d", "size": None}))


def test_bad_options_and_reads_are_refused(tmp_path):
    scene = yee.Scene.from_dict(slab())
    with pytest.raises(ValueError, match="backend"):
        yee.Simulation(scene, out=tmp_path, backend="gpu")
    sim = yee.Simulation(scene, out=tmp_path)
    with pytest.raises(ValueError, match="has not started"):
        sim.field("ez")
    sim.run(steps=5)
    with pytest.raises(ValueError, match="one of ex"):
        sim.field("e")
    with pytest.raises(ValueError, match="inside the grid"):
        sim.field("ez", lo=[90], hi=[120])
    with pytest.raises(ValueError, match="not both"):
        sim.run(steps=1, until=1.0)
