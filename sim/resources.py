"""Where the shipped configuration files are found: the profiles (``profiles/*.toml``), the bots'
parameters (``bots.toml``) and the run configs (``runs/*.toml``).

The source of truth is the top-level ``configs/`` folder; pyproject.toml maps it into the package
as ``sim.configs`` (package data, nothing copied), so an installed wheel finds the same files
through ``importlib.resources``.  A source tree imported without installing falls back to the folder.
"""
from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

PACKAGE = "sim.configs"


def config_root() -> Traversable:
    try:
        return resources.files(PACKAGE)
    except ModuleNotFoundError:
        return Path(__file__).resolve().parent.parent / "configs"


def config_file(*parts: str) -> Traversable:
    """A shipped file, e.g. ``config_file("profiles", "kalooki40.toml")`` (it may not exist)."""
    path = config_root()
    for part in parts:  # one part at a time: a namespace package's MultiplexedPath takes one
        path = path.joinpath(part)
    return path


def names(folder: str) -> list[str]:
    """The stems of the ``*.toml`` files shipped in ``folder`` (``profiles`` or ``runs``), sorted."""
    d = config_root().joinpath(folder)
    return sorted(f.name[:-len(".toml")] for f in d.iterdir() if f.name.endswith(".toml")) if d.is_dir() else []
