"""`kalooki sweep`: a grid of runs through the runner, metrics against the parameter, a report."""
from sim.cli import main


def test_sweep_runs_the_grid_and_reports(tmp_path, capsys):
    runs, out = tmp_path / "runs", tmp_path / "rep"
    rc = main(["sweep", "--profile", "kalooki40", "--param", "opening_min=30,60", "--games", "6", "--seed", "2",
               "--local", "--runs", str(runs), "--out", str(out)])
    assert rc == 0
    assert (runs / "opening_min=30" / "manifest.json").exists() and (runs / "opening_min=60" / "manifest.json").exists()
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and "opening_min" in html
    printed = capsys.readouterr().out
    table = [line.split() for line in printed.splitlines() if line[:2] in ("30", "60")]
    cols = [line.split() for line in printed.splitlines() if line.startswith("metric")][0][1:]
    p = {row[0]: float(row[1 + cols.index("p_can_open_at_deal")]) for row in table}
    assert p["30"] > p["60"]  # a higher opening minimum is harder to reach at the deal


def test_sweep_refuses_bad_grids(tmp_path, capsys):
    for param, msg in [("nonsense=1,2", "unknown parameter"), ("ace_low=1,2", "numeric"),
                       ("opening_min=30,x", "not an integer"), ("opening_min=-5,40", "out of range")]:
        rc = main(["sweep", "--param", param, "--games", "2", "--local", "--runs", str(tmp_path / "r"),
                   "--out", str(tmp_path / "o")])
        assert rc == 2 and msg in capsys.readouterr().err
        assert not (tmp_path / "r").exists()


def test_sweep_takes_a_table_mix_and_common_deals(tmp_path, capsys):
    import json

    import pyarrow.dataset as ds
    runs, out = tmp_path / "runs", tmp_path / "rep"
    rc = main(["sweep", "--profile", "kalooki40", "--param", "opening_min=30,60", "--games", "6", "--seed", "3",
               "--tables", "a=greedy,greedy,greedy,greedy:1; b=greedy,greedy,greedy,patient:1", "--paired",
               "--local", "--runs", str(runs), "--out", str(out)])
    assert rc == 0, capsys.readouterr().err
    tables = {}
    for v in (30, 60):
        m = json.loads((runs / f"opening_min={v}" / "manifest.json").read_text())
        assert m["config"]["paired"] is True and [t["name"] for t in m["config"]["tables"]] == ["a", "b"]
        g = ds.dataset(runs / f"opening_min={v}" / "games", format="parquet").to_table().to_pandas()
        tables[v] = g.groupby("game_id")["table"].first()
    assert tables[30].equals(tables[60])  # paired: game g draws the same composition at every grid value
    assert "tables a = greedy,greedy,greedy,greedy (weight 1)" in (out / "report.md").read_text()


def test_sweep_refuses_common_deals_over_a_pack_parameter(tmp_path, capsys):
    rc = main(["sweep", "--profile", "kalooki40", "--param", "jokers=2,4", "--games", "2", "--paired", "--local",
               "--runs", str(tmp_path / "r"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2 and "cannot be dealt the same cards" in err and "pack: 106 cards" in err, err
    assert not (tmp_path / "r").exists()
