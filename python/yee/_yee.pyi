"""Type stubs of the extension module yee._yee (python/src)."""

from os import PathLike
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

_Path = Union[str, PathLike]

class SceneError(ValueError):
    """A scene that cannot be read or run."""

    key: str
    """The key, like ``sources[1].component`` (empty at the top level)."""
    line: Optional[int]
    """The line in the file (None for dicts and for checks after parsing)."""
    file: str
    """The file (``<dict>`` for a dict)."""

class RunError(RuntimeError):
    """A run that diverged (naming the step, component and cell) or failed."""

class Scene:
    """A validated scene: grid, materials, sources, probes, monitors and outputs."""

    @staticmethod
    def load(path: _Path) -> Scene:
        """Loads the scene file ``path`` (TOML, as ``yee run`` reads it)."""
    @staticmethod
    def from_toml(text: str, path: Optional[_Path] = None) -> Scene:
        """The scene written in ``text``; ``path`` names it and anchors relative file keys."""
    @staticmethod
    def from_dict(scene: Mapping[str, Any], path: Optional[_Path] = None) -> Scene:
        """The scene a dict with the keys of a scene file describes."""
    @property
    def name(self) -> str: ...
    @property
    def steps(self) -> int: ...
    @property
    def grid(self) -> Tuple[int, int, int]: ...
    @property
    def dims(self) -> int: ...
    @property
    def dt(self) -> float:
        """The time step in scene units."""
    @property
    def value_type(self) -> str:
        """"f32", "f64", "c32" or "c64"."""
    @property
    def probe_names(self) -> List[str]: ...
    def with_steps(self, steps: int) -> Scene:
        """The same scene run for ``steps`` steps."""

class Simulation:
    """A scene's simulation, writing what the scene asks for into ``out``."""

    def __init__(
        self,
        scene: Scene,
        out: Optional[_Path] = None,
        backend: Optional[str] = None,
        ranks: int = 1,
        comm: str = "shm",
        checkpoint_every: Optional[int] = None,
        fresh: bool = False,
        time_block: Optional[Union[str, int]] = None,
        cache_bytes: Optional[Union[str, int]] = None,
    ) -> None: ...
    def run(
        self,
        steps: Optional[int] = None,
        until: Optional[float] = None,
        every: Optional[int] = None,
        callback: Optional[Callable[[Simulation], Any]] = None,
        progress: Optional[bool] = None,
    ) -> bool:
        """Runs to the end, or ``steps`` more, or until the scene time ``until``; True at the end."""
    def field(
        self,
        component: str,
        lo: Optional[Sequence[int]] = None,
        hi: Optional[Sequence[int]] = None,
    ) -> np.ndarray:
        """A component where the run is paused or ended, as ``a[x, y, z]``."""
    def probe(self, name: str) -> Tuple[np.ndarray, np.ndarray]:
        """``(times, values)`` of a probe, after the end (or a stop)."""
    def fluxes(self) -> Dict[str, Dict[str, Optional[np.ndarray]]]:
        """Each flux region's frequencies, flux and cross-section, after the end."""
    def dft(self, name: str) -> np.ndarray:
        """The ``[[dft]]`` output ``name`` (the .npy the run wrote), after the end."""
    @property
    def report(self) -> Optional[Dict[str, Any]]:
        """run.json as a dict, once the run has ended."""
    @property
    def step(self) -> int: ...
    @property
    def time(self) -> float: ...
    @property
    def finished(self) -> bool: ...
    @property
    def out(self) -> str: ...
    @property
    def checkpoint_dir(self) -> str: ...
