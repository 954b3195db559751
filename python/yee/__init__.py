"""yee: parallel FDTD electromagnetics, from Python.

A scene (the same keys as a scene file, docs/scene.md) is loaded or written as a dict; a
Simulation runs it — to the end, or step by step — writing what the scene asks for into its
output folder, and hands back fields, probe series and spectra as numpy arrays::

    import yee
    scene = yee.Scene.load("examples/scenes/slab1d.toml")
    sim = yee.Simulation(scene, out="out/slab1d")
    sim.run(steps=600)                # pause after step 600
    ez = sim.field("ez")              # numpy array ez[x]
    sim.run()                         # on to the scene's last step
    t, v = sim.probe("after")         # the probe's series
    print(sim.report["status"])       # run.json as a dict

Ctrl-C stops a run with KeyboardInterrupt at a step every rank agrees on; the fields can still
be read and ``run()`` goes on from the checkpoint it wrote. ``help(yee.Simulation)`` lists the
rest.
"""

from ._yee import RunError, Scene, SceneError, Simulation

__all__ = ["Scene", "Simulation", "SceneError", "RunError", "load", "from_dict"]


def load(path):
    """The scene in the TOML file ``path`` (``Scene.load``)."""
    return Scene.load(path)


def from_dict(scene, path=None):
    """The scene a dict describes, with the keys of a scene file (``Scene.from_dict``)."""
    return Scene.from_dict(scene, path)
