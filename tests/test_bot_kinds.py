"""The table of bot kinds (sim.bots.kinds) and docs/DESIGN.md's recipe for a compiled bot: one module (its
class, deciding through the compiled decisions) and one row.  A trivial bot added that way here, the
cautious bot (the patient's draw, the greedy play), is seated by name, plays in the compiled hand loop,
and plays there exactly the hands the Python engine plays with it turn by turn."""
import numpy as np
import pytest

from sim import profiles
from sim.bots import BOTS, compiled_hand_loop, kinds, make_bot, tunables
from sim.bots import greedy_core as FG
from sim.bots import hand_loop as HL
from sim.bots.kinds import K_GREEDY, K_PATIENT, Kind
from sim.bots.patient import PatientBot
from sim.engine import HandState
from sim.engine import loop as LOOP


class CautiousBot(PatientBot):
    """Cautious: takes the discard only when the patient bot would, and plays as greedy does."""

    name = "cautious"
    hand_loop = "sim.bots.hand_loop"
    kind = K_PATIENT  # GreedyBot.draw asks the compiled draw of this kind

    def play(self, state, me):
        return FG.decide_play(state, me, K_GREEDY, FG.bot_params(self))


CAUTIOUS = Kind("cautious", 6, f"{__name__}:CautiousBot", "sim.bots.expert_core:bot_params", draw=K_PATIENT,
                play=K_GREEDY)


@pytest.fixture
def cautious():
    kinds.add(CAUTIOUS)
    try:
        yield CAUTIOUS
    finally:
        kinds.remove("cautious")


def test_one_numbering_and_one_row_per_bot():
    rows = list(kinds.KINDS.values())
    assert sorted(k.number for k in rows) == list(range(len(rows)))
    assert list(BOTS) == [k.name for k in rows]
    for k in rows:
        assert BOTS[k.name].name == k.name and BOTS[k.name].hand_loop == "sim.bots.hand_loop"
        assert kinds.table()[k.number].tolist() == [k.draw, k.play, int(k.asks)]
    assert kinds.ROLLOUT_KINDS == {"greedy": kinds.K_GREEDY, "expert": kinds.K_EXPERT, "lookahead": kinds.K_LOOKAHEAD}


def test_every_bots_own_defaults_are_its_shipped_settings():
    # a bot built without configs/bots.toml (its class alone) plays as the shipped one: each value of the
    # file's table is its class's default, so no reader of a class is told a setting that is not shipped
    import tomllib

    from sim.bots import BOT_CONFIG
    shipped = tomllib.loads(BOT_CONFIG.read_text())
    assert {"expert", "lookahead", "search"} <= set(shipped)
    for name, table in shipped.items():
        own = tunables(name)
        differ = {k: (v, own.get(k)) for k, v in table.items() if own.get(k) != v}
        assert not differ, (name, differ)


def test_a_row_is_checked_and_the_built_in_rows_stay():
    with pytest.raises(ValueError, match="taken"):
        kinds.add(CAUTIOUS._replace(number=kinds.K_EXPERT))
    with pytest.raises(ValueError, match="draw and play"):
        kinds.add(CAUTIOUS._replace(draw=kinds.K_SEARCH))
    with pytest.raises(ValueError, match="built in"):
        kinds.remove("greedy")
    assert "cautious" not in kinds.KINDS


def _snapshot(st):
    r = st.result
    return (st.hands.tolist(), [(m.kind, m.cards, m.reps, m.low) for m in st.table], list(st.stock),
            list(st.discard), list(st.opened), list(st.turns_taken), [dict(d) for d in st.stats], st.turn_no,
            st.reshuffles, (r.winner, r.win_type, r.void, r.stalled, r.penalties))


def _play(prof, names, seed, compiled: bool):
    st = HandState(prof, len(names), seed % len(names), np.random.default_rng(seed))
    bots = [make_bot(b, np.random.default_rng([seed, i])) for i, b in enumerate(names)]
    saved = LOOP.COMPILED
    LOOP.COMPILED = compiled
    try:
        LOOP.play_hand(st, bots, list(range(len(names))))
    finally:
        LOOP.COMPILED = saved
    return _snapshot(st)


def test_a_bot_added_by_one_module_and_one_row_plays_compiled_as_on_the_python_engine(cautious, monkeypatch):
    played = []
    compiled_play = HL.play_hand_fast

    def counted(state, *table):
        result = compiled_play(state, *table)
        played.append(result is not None)
        return result
    monkeypatch.setattr(HL, "play_hand_fast", counted)
    assert "cautious" in BOTS and BOTS["cautious"] is CautiousBot
    assert tunables("cautious") == tunables("patient")
    names = ["cautious", "greedy", "cautious", "patient"]
    loop = compiled_hand_loop([make_bot(b, np.random.default_rng(0)) for b in names])
    assert loop is not None and loop.kinds.tolist() == [6, 0, 6, 1]
    assert kinds.table()[6].tolist() == [K_PATIENT, K_GREEDY, 0]
    prof = profiles.load("kalooki40")
    for seed in range(12):
        assert _play(prof, names, seed, compiled=True) == _play(prof, names, seed, compiled=False), f"hand {seed}"
    # a hand where the cautious seat plays otherwise than a patient one would (its row's play is asked)
    patient = ["patient"] + names[1:]
    seed = next((s for s in range(12, 1000)
                 if _play(prof, names, s, compiled=True) != _play(prof, patient, s, compiled=True)), None)
    assert seed is not None, "the cautious seat played as a patient one in every hand"
    assert _play(prof, names, seed, compiled=True) == _play(prof, names, seed, compiled=False), f"hand {seed}"
    assert played and all(played), "a hand of the compiled path was handed back to the Python engine"
