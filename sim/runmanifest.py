"""A run's manifest: the one written from a plan (``new_manifest``, rewritten after every finished
shard), and what an existing run's manifest keeps for a resume (``config_differences``: the settings
that forbid it; ``intact_shards``: the shards not to play again).

The file itself, its atomic write and the integrity check of a shard's files belong to
``sim.runformat``.
"""
from __future__ import annotations

import datetime as _dt
import json
import sys
from importlib import metadata

from . import runformat, schema, storage
from .runformat import RUN_FORMAT
from .runplan import Plan


def package_versions() -> dict:
    out = {}
    for pkg in ("numpy", "numba", "ray", "pyarrow", "pandas", "kalooki-lab"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    out["python"] = sys.version.split()[0]
    return out


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def manifest_entry(summary: dict) -> dict:
    keep = ("profile", "index", "first_game", "n_games", "files", "hands", "seconds")
    return {k: summary[k] for k in keep if k in summary}


def new_manifest(plan: Plan, command: str, created: str | None = None) -> dict:
    c = plan.config
    return {
        "format": RUN_FORMAT, "schema_version": schema.SCHEMA_VERSION, "engine_version": schema.ENGINE_VERSION,
        "run_id": plan.run_id, "created": created or _now(), "updated": _now(), "command": command,
        "seed": c.seed, "paired": c.paired, "duplicate": c.duplicate, "config": c.to_json(),
        "package_versions": package_versions(),
        "profiles": {n: {"rules_hash": pp.profile.rules_hash(), "params": pp.profile.params(), "games": c.games,
                         "n_players": pp.n_players, "bots": list(pp.bots), "shards_planned": len(pp.shards),
                         runformat.GAMES_PER_DEAL: pp.n_players if c.duplicate else 1,
                         "tables": [t.to_json() for t in pp.tables],
                         **({"source": pp.source} if pp.source else {})}
                     for n, pp in plan.profiles.items()},
        "shards": [], "complete": False,
    }


def write_manifest(loc: runformat.RunLocation, manifest: dict) -> None:
    manifest["updated"] = _now()
    runformat.write_manifest(loc, manifest)


def _identity_of_manifest(m: dict) -> dict:
    """The comparable settings of an existing run (flattened so a difference names its key)."""
    cfg = m.get("config", {})
    out = {"engine_version": m.get("engine_version"), "schema_version": m.get("schema_version"),
           "profiles": sorted(m.get("profiles", {})), "games": cfg.get("games"), "seed": cfg.get("seed"),
           "events": cfg.get("events"), "shard_games": cfg.get("shard_games"), "bot_params": cfg.get("bot_params"),
           "paired": bool(cfg.get("paired"))}
    if "duplicate" in m:  # a run written before the design was recorded is not asked about it
        out["duplicate"] = bool(m["duplicate"])
    for name, e in m.get("profiles", {}).items():
        out[f"players ({name})"] = e.get("n_players")
        out[f"bots ({name})"] = list(e.get("bots") or [])
        out[f"tables ({name})"] = e.get("tables")
        for k, v in (e.get("params") or {}).items():
            out[(name, k)] = v
    return out


def _identity_of_plan(plan: Plan) -> dict:
    return _identity_of_manifest(new_manifest(plan, ""))


def config_differences(old: dict, plan: Plan) -> list[str]:
    """What differs between the run at --out (``old``) and the plan, one line per setting; a profile
    whose rules differ is one line naming its rules hashes and the parameters that differ."""
    a, b = _identity_of_manifest(old), _identity_of_plan(plan)
    if "duplicate" not in a:
        b.pop("duplicate", None)
    plain = {k: v for k, v in a.items() if not isinstance(k, tuple)}, {k: v for k, v in b.items() if not isinstance(k, tuple)}
    diffs, rules = storage.differences(*plain), {}
    for key in [k for k in b if isinstance(k, tuple)] + [k for k in a if isinstance(k, tuple) and k not in b]:
        # a rule of a profile in both runs (the profiles line names the others)
        if a.get(key) != b.get(key) and key[0] in old.get("profiles", {}) and key[0] in plan.profiles:
            rules.setdefault(key[0], []).append(f"{key[1]} {json.dumps(a.get(key))} there, {json.dumps(b.get(key))} now")
    for name, changes in rules.items():
        hashes = [m.get("profiles", {}).get(name, {}).get("rules_hash") for m in (old, new_manifest(plan, ""))]
        diffs.append(f"profile {name}'s rules (rules_hash {hashes[0]} there, {hashes[1]} now): "
                     + ", ".join(changes[:storage.DIFFERENCES_SHOWN])
                     + (f" and {len(changes) - storage.DIFFERENCES_SHOWN} more" if len(changes) > storage.DIFFERENCES_SHOWN
                        else ""))
    return diffs


def intact_shards(loc: runformat.RunLocation, old: dict | None, plan: Plan) -> list[dict]:
    """The old manifest's shard entries that are planned and whose files are intact (one per shard)."""
    if not old:
        return []
    planned = {(n, i): (first, k) for n, pp in plan.profiles.items() for i, first, k in pp.shards}
    kept, seen = [], set()
    for e in old["shards"]:
        try:
            key = (e["profile"], e["index"])
            ok = (key not in seen and planned.get(key) == (e.get("first_game"), e.get("n_games"))
                  and runformat.shard_is_intact(loc, e, plan.tables))
        except (KeyError, TypeError):
            ok = False
        if ok:
            kept.append(e)
            seen.add(key)
    return kept
