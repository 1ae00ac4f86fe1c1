"""The frontier's words are its rule: converged is the equivalence test of the last step and nothing
else the page claims; the count of differences marked ★ said on the page equals the marks; the
differences stated for strong play come with their sizes and intervals at the two rungs that stand for
strong play, and the order those rungs come from."""
import pandas as pd

from analysis import findings, report
from analysis import frontier as F

RUNGS = ["expert", "search"]  # the top two rungs of the ladder


def _step(verdict, difference):
    return {"verdict": verdict, "difference": difference}


def test_a_last_step_inside_the_threshold_is_converged_whatever_the_step_before():
    """The rule tests the last step only; a last step larger than the one before is converged when the
    equivalence test puts it inside the threshold, and the page does not claim the steps shrink."""
    status, reason = F.convergence_status(_step(findings.EQUIVALENT, 0.09), _step(findings.EQUIVALENT, 0.009))
    assert status == F.CONVERGED and "equivalence test" in reason
    assert F.convergence_status(_step(findings.NOT_ESTABLISHED, 0.09), _step(findings.EQUIVALENT, 0.5))[0] == \
        findings.NOT_ESTABLISHED
    assert F.convergence_status(_step(findings.HIGHER, 0.9))[0] == F.NOT_CONVERGED
    for words in (F.CONVERGENCE_NOTE, F.__doc__):
        assert "smaller than the step before" not in words
        assert "not tested" in words or "not used" in words


def _strong():
    rows = []
    for profile, metric, mark in (("a", "hands_per_game", findings.HIGHER), ("b", "hands_per_game", findings.LOWER),
                                  ("c", "hands_per_game", findings.EQUIVALENT), ("d", "hands_per_game", "")):
        row = {"profile_b": profile, "metric": metric, "kind": "mean",
               "strong_play": f"{mark} {findings.STRONG_PLAY}" if mark else "", "strong_rungs": " and ".join(RUNGS),
               "order": F.MEASURED, "lower": RUNGS[0], "upper": RUNGS[1]}
        for k, side in enumerate(("lower", "upper")):
            row.update({f"difference_{side}": 3.0 + k, f"ci_low_{side}": 2.0 + k, f"ci_high_{side}": 4.0 + k,
                        f"verdict_{side}": mark or findings.NOT_ESTABLISHED})
        rows.append(row)
    return pd.DataFrame(rows)


def test_the_number_said_marked_equals_the_marks():
    strong = _strong()
    # the report's differences: a and c change with the table composition (★ where they hold), b does not
    judged = pd.DataFrame({"profile_b": ["a", "b", "c", "d"], "metric": "hands_per_game",
                           "robustness": [findings.DEPENDS + " x", "same verdict", findings.VARIES[-1] + " y",
                                          findings.DEPENDS + " z"]})
    judged = judged.merge(strong[["profile_b", "metric", "strong_play"]], on=["profile_b", "metric"])
    marks = sum(report._strength_note(r) == " ★" for r in judged.itertuples(index=False))
    text = F.strong_text(strong, judged)
    assert "3 hold at the two rungs that stand for strong play (expert and search)" in text
    assert f"{marks} of them change with the table composition" in text and marks == 2
    assert "marked ★" in F.strong_text(strong) and " of them change" not in F.strong_text(strong)


def test_strong_play_is_shown_with_the_top_rungs_sizes_and_intervals():
    table = F.strong_table(_strong())
    assert list(table["profile"]) == ["a", "b", "c"]  # d holds at neither
    assert list(table.columns) == ["profile", "metric", "verdict at both", "rungs (order)", "at the lower rung",
                                   "at the upper rung"]
    assert table.loc[0, "verdict at both"] == findings.HIGHER
    assert table.loc[0, "rungs (order)"] == "expert < search (measured at the game)"
    assert table.loc[0, "at the lower rung"] == findings.fmt_difference("hands_per_game", 3.0, 2.0, 4.0, "mean")
    assert "95% CI" in table.loc[0, "at the upper rung"] and "+4" in table.loc[0, "at the upper rung"]
