"""The discard measures of ``bench/discards.py`` on constructed hands: a pair or two-card run broken
while an isolated card of equal or higher penalty was loose, and a taken discard left loose."""
import numpy as np

from bench.discards import measure, partial_kind, turn_verdict
from sim import profiles
from sim.cards import parse_card as C
from sim.cards import parse_cards, to_counts

K40 = profiles.load("kalooki40")
S40 = profiles.load("scala40")  # aces low too


def verdict(hand, discard, taken="", held_before=0, profile=K40):
    return turn_verdict(profile, to_counts(parse_cards(hand.split())), C(discard), C(taken) if taken else -1, held_before)


def test_partial_kinds_follow_ranks_suits_and_the_ace():
    assert partial_kind(C("KH"), C("KC"), False) == "pair"
    assert partial_kind(C("KH"), C("KH"), False) is None  # two copies of one card make no group
    assert partial_kind(C("5H"), C("6H"), False) == "run"
    assert partial_kind(C("5H"), C("7H"), False) == "gap"
    assert partial_kind(C("5H"), C("8H"), False) is None
    assert partial_kind(C("5H"), C("6C"), False) is None
    assert partial_kind(C("KS"), C("AS"), False) == "run"  # Q-K-A everywhere
    assert partial_kind(C("AS"), C("2S"), False) is None and partial_kind(C("AS"), C("2S"), True) == "run"
    assert partial_kind(C("AS"), C("3S"), True) == "gap"
    assert partial_kind(C("JK"), C("5H"), True) is None


def test_breaking_a_pair_counts_only_while_an_isolated_card_as_costly_is_loose():
    melded = "4S 5S 6S 9D 9C 9H "
    assert verdict(melded + "KH KC QD", "KC") == (False, False, True, True)  # the seed-5 turn 7
    assert verdict(melded + "KH KC QD", "QD") == (False, False, True, False)  # the isolated card goes
    assert verdict(melded + "KH KC 8D", "KC") == (False, False, True, False)  # only a cheaper card was isolated
    assert verdict(melded + "KH KC AD", "KC").broke_partial  # a dearer one was
    # QD gaps JD...: two one-gap runs make no card isolated, and a one-gap run is not what was broken
    assert not verdict(melded + "KH KC QD TD", "KC").broke_partial
    assert not verdict(melded + "TH QH JD", "QH").broke_partial  # a one-gap run broken is not counted
    assert verdict(melded + "5H 6H TC", "6H").broke_partial  # a two-card run broken, TC isolated
    assert not verdict(melded + "5H 6H TC", "9D").loose_discard  # a melded card thrown is not loose
    # the card taken this turn may not be discarded: it is no alternative
    assert not verdict(melded + "KH KC QD", "KC", taken="QD").broke_partial
    assert not verdict(melded + "AS 2S KD", "2S", profile=K40).broke_partial  # A-2 runs nowhere here: no pair
    assert verdict("4H 5H 6H AS 2S KD", "2S", profile=S40).broke_partial  # ... but does in scala40


def test_a_taken_discard_is_loose_when_it_ends_the_turn_outside_every_meld_in_hand():
    # 7D taken, AH thrown: 7D stays loose beside a full meld
    assert verdict("4S 5S 6S 7D AH", "AH", taken="7D") == (True, True, True, False)
    # 7S taken and run onto 4S-5S-6S in hand: not loose
    assert not verdict("4S 5S 6S 7S AH", "AH", taken="7S").taken_loose
    # held 7D already (loose) and took the second: both stay, one is loose
    assert verdict("4S 5S 6S 7D 7D AH", "AH", taken="7D", held_before=1).taken_loose
    # held a loose 7D, took another that was laid off (one copy is left, loose): the taken card was used
    assert not verdict("4S 5S 6S 7D AH", "AH", taken="7D", held_before=1).taken_loose
    # went out with it: nothing is left
    assert not verdict("QC", "QC", taken="4H").taken_loose


def test_the_measure_plays_whole_seeded_hands():
    a = measure("expert", "kalooki40", 3, seed=4)
    assert a == measure("expert", "kalooki40", 3, seed=4)
    assert a["turns"] > 30 and 0 <= a["taken_loose"] <= a["taken"] and 0 <= a["broke"] <= a["loose"] <= a["turns"]
    assert a["broke_unopened"] <= a["broke"] and a["loose_unopened"] <= a["loose"]
