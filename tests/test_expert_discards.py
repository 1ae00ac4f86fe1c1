"""The expert's discard memory: what the next player picked up raises a card's feeding risk, what that
player discarded lowers it again, and cards extending the table for them are risky."""
import numpy as np

from sim.bots import make_bot
from sim.cards import JOKER, parse_card as C

from test_table_play import R, opened_state


def test_feed_risk_remembers_the_next_players_pickups_and_discards():
    st = opened_state("2C 5D 9C", [R("4H 5H 6H")])
    bot = make_bot("expert", np.random.default_rng(0))
    base = bot._feed_risks(st, 0, st.table)
    st.pickups[1] = [C("7S")]
    picked = bot._feed_risks(st, 0, st.table)
    assert picked[C("7D")] == base[C("7D")] + 1  # same rank
    assert picked[C("8S")] == base[C("8S")] + 1  # same suit, within two ranks
    assert picked[C("7S")] == base[C("7S")] + 2  # both
    st.discards_by[1] = [C("7D"), C("KC")]
    remembered = bot._feed_risks(st, 0, st.table)
    assert remembered[C("7D")] == picked[C("7D")] - 1  # they threw a 7D away
    assert remembered[C("KC")] == picked[C("KC")] == 0  # never below nothing
    assert remembered[C("3H")] == 2 and remembered[C("7H")] == 3  # they have opened: these extend 4H-5H-6H (7H is a 7 too)
    assert remembered[JOKER] == 10
