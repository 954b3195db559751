"""The package under test is the installed one (``pip install ./python``); the examples are
imported from python/examples."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "examples"))

try:
    import yee  # noqa: F401
except ImportError as e:  # pragma: no cover - a setup error, said plainly
    raise SystemExit(f"the yee package is not installed ({e}): run `pip install ./python` first")


@pytest.fixture
def out(tmp_path):
    """A fresh output folder."""
    return tmp_path


@pytest.fixture(scope="session")
def yee_binary():
    """The `yee` command of this checkout: $YEE_BIN, else the newest target/*/yee, else built."""
    given = os.environ.get("YEE_BIN")
    if given:
        return given
    built = [p for p in (ROOT / "target" / "release" / "yee", ROOT / "target" / "debug" / "yee") if p.exists()]
    if not built:
        subprocess.run(["cargo", "build", "-p", "yee"], cwd=ROOT, check=True)
        built = [ROOT / "target" / "debug" / "yee"]
    return str(max(built, key=lambda p: p.stat().st_mtime))


def scene_file(name):
    """The example scene ``name``."""
    return ROOT / "examples" / "scenes" / f"{name}.toml"


def copy_scene(name, folder):
    """The example scene copied into ``folder`` (its relative paths then point inside it)."""
    target = Path(folder) / f"{name}.toml"
    shutil.copy(scene_file(name), target)
    return target
