"""Bad input to every command (simulate's run-config table is in test_runner.py): exit status 2, a
message naming the problem and what is allowed, and nothing written."""
import json
import shutil

import pytest

from analysis.summaries import write_shard_summary
from sim import profiles, runconfig, runner
from sim.cli import main
from sim.errors import UserError


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    dirs = []
    for name in ("a", "b"):
        out = base / name
        cfg = runconfig.make_config(None, None, profiles=["kalooki40"], games=2, seed=3, out=str(out), shard_games=2)
        runner.run_local(cfg, summarise=write_shard_summary, progress=False, log=lambda m: None)
        dirs.append(out)
    return dirs


def _edit_manifest(src, dst, **changes):
    shutil.copytree(src, dst)
    m = json.loads((dst / "manifest.json").read_text())
    m.update(changes)
    (dst / "manifest.json").write_text(json.dumps(m))
    return dst


CASES = [
    ("meld: rank 1", ["meld", "1H", "2H", "3H"], "bad card '1H'"),
    ("meld: not a card", ["meld", "ZZ", "2H", "3H"], "bad card 'ZZ'"),
    ("meld: third copy", ["meld", "7H", "7H", "7H"], "7H appears 3 times"),
    ("meld: fifth joker (4-joker profile)", ["meld", "--profile", "kalooki51", "JK", "JK", "JK", "JK", "JK", "2H"],
     "only 4"),
    ("meld: third joker (2-joker profile)", ["meld", "JK", "JK", "JK", "2H"], "only 2"),
    ("meld: unknown profile", ["meld", "--profile", "kalooki99", "2H", "3H", "4H"], "unknown profile 'kalooki99'"),
    ("meld: bad --set", ["meld", "--set", "ace_low=maybe", "2H", "3H", "4H"], "must be true or false"),
    ("profiles show unknown", ["profiles", "show", "nope"], "unknown profile 'nope'; available:"),
    ("deals: negative n", ["deals", "--n", "-5", "--seed", "1"], "-5"),
    ("deals: 7 players", ["deals", "--n", "10", "--seed", "1", "--players", "7"], "7 players is not allowed; allowed: 3-6"),
    ("play: unknown bot", ["play", "--bots", "greedy,wizard,greedy,greedy"], "unknown bot 'wizard'"),
    ("play: a named setting", ["play", "--bots", "expert.t,greedy,greedy,greedy"],
     "expert.t is a named setting of expert: it plays by a [expert.t] table, which this command does not take"),
    ("sweep: a named setting without a run config", ["sweep", "--param", "opening_min=30,40", "--games", "1",
                                                     "--bots", "expert.t,greedy,greedy,greedy", "--runs", "{out}"],
     "expert.t is a named setting of expert: it plays by a [bot_params.expert.t] table, which only a run config "
     "gives"),
    ("play: 7 bots", ["play", "--bots", ",".join(["greedy"] * 7)], "7 players is not allowed"),
    ("tournament: 1 player", ["tournament", "--bots", "greedy", "--games", "1"], "1 players is not allowed"),
    ("tournament: zero games", ["tournament", "--bots", "greedy,greedy,greedy", "--games", "0"],
     "argument --games: 0 is not allowed; allowed: 1 or more"),
    ("tournament: zero workers", ["tournament", "--bots", "greedy,greedy,greedy", "--games", "3", "--workers", "0"],
     "argument --workers: 0 is not allowed; allowed: 1 or more"),
    ("tournament: negative workers", ["tournament", "--bots", "greedy,greedy,greedy", "--games", "3",
                                      "--workers", "-2"], "argument --workers: -2 is not allowed"),
    ("sweep: zero games", ["sweep", "--param", "opening_min=30,40", "--games", "0", "--runs", "{out}"],
     "argument --games: 0 is not allowed; allowed: 1 or more"),
    ("sweep: zero workers", ["sweep", "--param", "opening_min=30,40", "--games", "1", "--workers", "0",
                             "--runs", "{out}"], "argument --workers: 0 is not allowed"),
    ("sweep: zero shard size", ["sweep", "--param", "opening_min=30,40", "--games", "1", "--shard-games", "0",
                                "--runs", "{out}"], "argument --shard-games: 0 is not allowed"),
    ("sweep: empty --tables", ["sweep", "--param", "opening_min=30,40", "--games", "1", "--tables", "",
                               "--runs", "{out}"], "--tables '' names no table composition; write one or more "
                                                   "[NAME=]BOTS[:WEIGHT] separated by ';'"),
    ("profile file: malformed TOML", ["profiles", "show", "{bad_toml}"], "malformed TOML"),
    ("profile file: unknown key", ["profiles", "show", "{unknown_key}"], "unknown key 'colour'"),
    ("profile file: missing key", ["profiles", "show", "{missing_key}"], "missing key"),
    ("report: empty directory", ["report", "{empty}", "--out", "{out}"], "{empty}"),
    ("report: not a run", ["report", "{not_a_run}", "--out", "{out}"], "manifest"),
    ("compare: different engine versions", ["compare", "{run_a}", "{run_engine}", "--out", "{out}"], "engine"),
    ("compare: different schemas", ["compare", "{run_a}", "{run_schema}", "--out", "{out}"], "schema"),
    ("tournament: unknown bot parameter", ["tournament", "--bots", "expert,greedy,greedy", "--games", "1",
                                           "--bot-params", "{bot_params}"], "has no parameter 'feed'"),
    ("sweep: unknown parameter", ["sweep", "--param", "colour=1,2", "--games", "1", "--runs", "{out}"],
     "unknown parameter 'colour'"),
    ("sweep: misspelt parameter", ["sweep", "--param", "opening_mi=30,40", "--games", "1", "--runs", "{out}"],
     "--param: unknown parameter 'opening_mi'; did you mean 'opening_min'?"),
    ("sweep: value out of range", ["sweep", "--param", "opening_min=30,1000", "--games", "1", "--runs", "{out}"],
     "--param for profile 'kalooki40': key 'opening_min' = 1000 is out of range; allowed: 0..400"),
    ("play: negative seed", ["play", "--seed", "-1"], "argument --seed: -1 is out of range; allowed: 0.."),
    ("play: seed not an integer", ["play", "--seed", "2.5"], "argument --seed: '2.5' is not an integer"),
    ("tournament: negative seed", ["tournament", "--bots", "greedy,greedy,greedy", "--games", "1", "--seed", "-3"],
     "argument --seed: -3 is out of range"),
    ("deals: negative seed", ["deals", "--n", "10", "--seed", "-1"], "argument --seed: -1 is out of range"),
    ("simulate: negative seed", ["simulate", "--profile", "kalooki40", "--games", "1", "--seed", "-1",
                                 "--out", "{out}"], "argument --seed: -1 is out of range"),
    ("sweep: negative seed", ["sweep", "--param", "opening_min=30,40", "--games", "1", "--seed", "-1",
                              "--runs", "{out}"], "argument --seed: -1 is out of range"),
    ("play: misspelt --set key", ["play", "--set", "jokerz=4"], "unknown key 'jokerz'; did you mean 'jokers'?"),
    ("meld: --set key nothing like a parameter", ["meld", "--set", "zzz=1", "2H", "3H", "4H"],
     "unknown key 'zzz'; `kalooki profiles show kalooki40` lists every parameter"),
    ("profile file: misspelt key", ["profiles", "show", "{misspelt_key}"], "unknown key 'opening_mn'; did you mean"),
    ("profiles diff: one name", ["profiles", "diff", "kalooki40"], "takes two profile names, got 1"),
    ("profiles diff: unknown profile", ["profiles", "diff", "kalooki40", "nope"], "unknown profile 'nope'"),
]


@pytest.mark.parametrize("label,argv,message", CASES, ids=[c[0] for c in CASES])
def test_bad_input(label, argv, message, tmp_path, capsys, two_runs):
    kalooki40 = (profiles.PROFILE_DIR / "kalooki40.toml").read_text()
    (tmp_path / "bad.toml").write_text("jokers = [2\n")
    (tmp_path / "colour.toml").write_text(kalooki40 + "colour = \"red\"\n")
    (tmp_path / "misspelt.toml").write_text(kalooki40.replace("opening_min", "opening_mn"))
    (tmp_path / "missing.toml").write_text("\n".join(l for l in kalooki40.splitlines() if not l.startswith("jokers")))
    (tmp_path / "bp.toml").write_text("[expert]\nfeed = 1\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "notrun").mkdir()
    (tmp_path / "notrun" / "hands.csv").write_text("x\n")
    names = dict(bad_toml=tmp_path / "bad.toml", unknown_key=tmp_path / "colour.toml",
                 missing_key=tmp_path / "missing.toml", misspelt_key=tmp_path / "misspelt.toml", empty=tmp_path / "empty", not_a_run=tmp_path / "notrun",
                 out=tmp_path / "out", run_a=two_runs[0], bot_params=tmp_path / "bp.toml")
    if "{run_engine}" in argv:
        names["run_engine"] = _edit_manifest(two_runs[1], tmp_path / "eng", engine_version="0.0.1")
    if "{run_schema}" in argv:
        names["run_schema"] = _edit_manifest(two_runs[1], tmp_path / "sch", schema_version=99)
    argv = [a.format(**names) for a in argv]
    message = message.format(**names)
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, (label, err)
    assert message in err, err
    assert not (tmp_path / "out").exists(), "something was written"


def test_a_run_config_seats_a_named_setting_only_with_its_table(tmp_path):
    """A run's named setting (``expert.t``) plays by its [bot_params.expert.t] table; without one the config
    is refused, naming the table to write."""
    def config(extra: str):
        path = tmp_path / "run.toml"
        path.write_text('profiles = ["kalooki40"]\ngames = 4\nseed = 1\n'
                        'tables = [{ bots = "expert.t,greedy,greedy,greedy" }]\n' + extra)
        return runconfig.make_config(runconfig.read_run_config(path), path, out=str(tmp_path / "out"))
    cfg = config("[bot_params.expert]\nfeed_weight = 0\n[bot_params.expert.t]\ndraw_gain = 30\n")
    assert cfg.bot_params == {"expert": {"feed_weight": 0, "t": {"draw_gain": 30}}}
    with pytest.raises(UserError, match=r"expert.t is a named setting of expert: it plays by a "
                                        r"\[bot_params.expert.t\] table, which the run config lacks"):
        config("[bot_params.expert]\nfeed_weight = 0\n")
    with pytest.raises(UserError, match="bot 'expert' has no parameter 'feed'"):
        config("[bot_params.expert.t]\nfeed = 0\n")
    # a table of game values is one profile's: a run config (of any profiles) does not take one
    for extra in ('[bot_params.expert]\ngame_values = "t.npz"\n[bot_params.expert.t]\n',
                  '[bot_params.expert.t]\ngame_values = "t.npz"\n'):
        with pytest.raises(UserError, match=r"game_values: a table of game values holds for one profile's rules, "
                                            r"so a run config does not take it; `kalooki tournament"):
            config(extra)
