"""The committed type stubs (python/concord/*.pyi) are what nanobind's stubgen makes of the extension
now: regenerate them with python/gen_stubs.sh after changing a binding."""
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("nanobind.stubgen")
PKG = pathlib.Path(__file__).resolve().parents[1] / "concord"


def test_stubs_are_current(tmp_path):
    subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "concord._concord", "-r", "-O",
                    str(tmp_path)], check=True)
    for made, kept in (("__init__.pyi", "_concord.pyi"), ("linalg.pyi", "linalg.pyi"), ("nn.pyi", "nn.pyi")):
        assert (tmp_path / "_concord" / made).read_text() == (PKG / kept).read_text(), (
            kept + " is out of date: run python/gen_stubs.sh <python>")
