"""The transcript in docs/python.md is true: it runs as a doctest."""

import doctest
import os

from conftest import ROOT


def test_the_python_guide_transcript_runs(tmp_path, monkeypatch):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(str(ROOT / "docs" / "python.md"), module_relative=False)
    assert result.attempted >= 8 and result.failed == 0, result
    assert os.path.isfile(tmp_path / "out" / "slab1d" / "run.json")
