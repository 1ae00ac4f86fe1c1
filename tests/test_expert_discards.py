"""The expert's discards and draws on set-up hands: what the next player picked up raises a card's
feeding risk, what that player discarded lowers it again, and cards extending the table for them are
risky; an isolated card goes before a pair or near-run of the same value, and of two partial melds
the one with fewer live cards to complete it is broken first; a free discard is taken only when it
beats the stock draw's expectation."""
import numpy as np
import pytest

from sim import profiles
from sim.bots import make_bot
from sim.cards import JOKER, card_str, parse_card as C
from sim.engine import DRAW_DISCARD, DRAW_STOCK, HandState

from test_table_play import R, opened_state

K40 = profiles.load("kalooki40")
MELDED = "4S 5S 6S 9D 9C 9H "  # a run and a group: every other card of these hands is loose


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


def to_play(hand, discard="2D", opened=False):
    """Seat 0 holding ``hand`` after a stock draw, to choose its discard."""
    cards = hand.split()
    st = HandState.scripted(K40, [" ".join(cards[:-1]), "2C 3C 4C 5C 6C"], stock=cards[-1], discard=discard,
                            current=0, opened=[opened, opened])
    st.apply_draw(DRAW_STOCK)
    return st


def discard_of(name, st):
    bot = make_bot(name, np.random.default_rng(0))
    return card_str(bot._choose_discard(st, 0, st.hands[0].copy(), -1, st.table))


@pytest.mark.parametrize("name", ["expert", "lookahead"])
def test_an_isolated_card_goes_before_a_pair_or_near_run_of_its_value(name):
    assert discard_of(name, to_play(MELDED + "KH KC QD")) == "QD"  # not a king of the pair
    assert discard_of(name, to_play(MELDED + "TH QH KS")) == "KS"  # not a card of the one-gap run
    assert discard_of(name, to_play(MELDED + "JH QH KC", opened=True)) == "KC"  # nor of the two-card run


def test_the_partial_meld_with_fewer_live_cards_to_complete_it_is_broken_first():
    # two pairs of ten-point cards: the one whose missing suits lie in the discard pile goes
    assert discard_of("expert", to_play(MELDED + "KH KC QH QC", discard="KD KS"))[0] == "K"
    assert discard_of("expert", to_play(MELDED + "KH KC QH QC", discard="QD QS"))[0] == "Q"


def to_draw(hand, discard):
    """Seat 0, opened, holding ``hand`` and about to draw, ``discard`` the pile (its last card on top)."""
    return HandState.scripted(K40, [hand, "2C 3C 4C 5C 6C"], stock="KD 8C", discard=discard, current=0,
                              opened=[True, True])


@pytest.mark.parametrize("name", ["expert", "lookahead"])
def test_a_free_discard_is_taken_only_when_it_beats_the_stock_draw(name):
    bot = make_bot(name, np.random.default_rng(0))
    # 7D melds with nothing: swapping AH for it lowers the deadwood by 4, as a stock draw is expected to
    assert bot.draw(to_draw(MELDED + "AH 2C", "3D 7D"), 0) == DRAW_STOCK
    # 7S extends 4S-5S-6S: the ace goes and only the 2 is left
    assert bot.draw(to_draw(MELDED + "AH 2C", "3D 7S"), 0) == DRAW_DISCARD


@pytest.mark.parametrize("name", ["expert", "lookahead"])
def test_a_discard_is_not_taken_to_throw_a_card_it_means_to_keep(name):
    bot = make_bot(name, np.random.default_rng(0))
    # taking 2C and throwing a king would save 8 points, but the discard choice keeps the pair of kings
    # (four unseen cards complete it) and would throw 3D: 2C would only replace it
    assert bot.draw(to_draw(MELDED + "KH KC 3D", "8H 2C"), 0) == DRAW_STOCK
