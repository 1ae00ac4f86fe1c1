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
