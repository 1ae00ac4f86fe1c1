"""The rules of melds and table operations, compiled, over meld rows (sim.engine).

A meld is a row of int64 words (the meld search's row format): kind, low, n, the n physical cards from
word 3 (``JOKER`` for a joker), the n declared cards from word 17 (-1 only in an all-joker group),
-1 elsewhere.  Each function applies one rule of docs/RULES.md to rows and answers with a code
(``OK`` or the rule broken); it changes nothing but its output rows.  ``sim.melds.check`` and the
engine's turn (``sim.engine.turn.apply_turn``) call these, and ``sim.engine.table`` turns a code
into the ``IllegalTurn`` or reason text the player reads, so each rule is written once, here, for
the Python engine and for compiled hand loops alike.

The last word of a row, ``HOLD``, carries what a group's past in the turn obliges (H_*): the table
operations set it on the rows they leave, and the turn clears it on every row it leaves on the table,
so between turns it is -1 as in the meld search's rows.  A four-card group with a joker is closed; a
card taken from it leaves a three-card group that keeps its jokers for the rest of the turn
(``H_HELD``), as does a two-joker group that has given up one joker, unless the player closed it by a
lay-off that turn (``H_LAID``).  Otherwise a card taken off a closed group and given back as a
missing suit would free its joker for one card, which the direct swap refuses (docs/RULES.md 11).

A profile reaches compiled code once, as a ``CompiledProfile`` (``compiled(profile)``, made once per
profile and read by the engine, the meld search and the bots alike): ``rules``, the int64 rules vector
(R_* words: the rules the meld and table operations and the turn read, then the words of scoring the
bots read), and ``params``, the int32 parameter vector (P_* header words: the meld values and the meld
search's parameters, then the meld search's table), passed to the functions here as ``prm``.  What a
meld counts is ``slot_value``, written once over the meld values: ``meld_value``, a lay-off's points,
the turn's opening count and ``sim.melds.value`` all add it up.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..cards import JOKER, N_RANKS, hand_values, rank_value
from ..jit import cache as numba_cache  # noqa: F401  (numba's cache, safe between processes)

RUN, GROUP = 0, 1  # sim.melds
LOW, HIGH = 0, 1  # sim.engine.actions
ACE = 12
ACE_LOW_EXT, ACE_HIGH_EXT = 0, 13
ROW_W = 32  # kind, low, n, 14 cards, 14 declared cards, HOLD (sim.meldsearch.OUT_W)
CARDS, REPS = 3, 17
MAX_SLOTS = 14
HOLD = 31
H_NONE, H_HELD, H_LAID = -1, 1, 2  # HOLD: nothing; jokers kept this turn; closed by this turn's lay-off

# The profile's parameter header: the first HEADER_W int32 words of ``CompiledProfile.params``, written by
# ``params_header``; the meld search's table of suit patterns follows it (SEARCH_TABLE_W int32 words, zero
# until sim.meldsearch fills them).  The meld values are the words a meld's slots count (``slot_value``):
# what a joker counts in an all-joker group, each extended rank in a run (0 a low ace .. 13 a high ace),
# each rank in a group (and in hand); the other words are the meld search's.
P_ACE_LOW = 0
P_ACE_VALUE = 1
P_ACE_LOW_VALUE = 2
P_JOKER_PENALTY = 3
P_JOKER_MELDS = 4
P_JOKER_MELD_VALUE = 5
P_MAX_JOKERS_PER_MELD = 6
P_KMAX = 7  # min(max_jokers_per_meld, MAX_JOKERS): most jokers one meld can take here
P_OPENING_MIN = 8
P_KALOOKI_EXEMPT = 9
P_FORMAT = 10
P_EXTV = 16  # 14 words: what each extended rank counts in a run
P_HV = 32  # 13 words: what each rank counts in a group and in hand (an ace ace_value)
HEADER_W = 64
PARAMS_FORMAT = 1  # P_FORMAT: the table's layout, so a header of another layout never shares a table
MAX_JOKERS = 4  # the most jokers a pack holds (sim.profiles: jokers), the meld search's joker axis
SEARCH_TABLE_W = 3 ** 13 * 8  # a 16-word int16 entry per base-3 count pattern of one suit (sim.meldsearch)

# rules vector words
R_ACE_LOW = 0
R_MAX_JOKERS = 1  # max_jokers_per_meld
R_JOKER_MELDS = 2
R_JOKER_TAKE_FROM_RUN_END = 3
R_JOKER_FROM_GROUP_BOTH = 4  # joker_from_group == "both_missing_suits"
R_JOKER_TAKE_AT_OPENING = 5
# the rules of a whole turn (sim.engine.turn)
R_OPENING_MIN = 6
R_LAYOFFS_COUNT = 7  # layoffs_count_for_opening
R_KALOOKI_EXEMPT = 8  # kalooki_exempt_from_minimum
R_MELD_AT_ONCE = 9  # discard_pickup == "meld_at_once"
R_FIRST_ROUND_FREE_DRAW = 10
R_GO_OUT_FIRST_ROUND = 11
R_RUN_END_LIMIT = 12
R_TWO_TOTAL = 13  # run_add_limit == "two_total"
R_RESHUFFLE_ONCE = 14  # stock_exhausted == "reshuffle_once"
R_PICKUP_BEFORE_OPENING = 15  # discard_pickup_before_opening
R_TURN_CAP = 16  # turns after which a hand is stalled
R_SIZE = 20  # the words of melds and turns; the words of scoring follow them
# what the profile's scoring makes of a hand's end: no turn reads these, the bots weigh their choices by them
R_KALOOKI_PAYS_MORE = R_SIZE  # kalooki_pays_more(profile)
R_TABLE_OPENING = R_SIZE + 1  # joker_take_at_opening or layoffs_count_for_opening: the table helps an opening
R_MONEY_PER_HAND = R_SIZE + 2  # game_end == "single_hand": every hand is paid in money (sim.game.loser_pays)
R_PAY_PER_CARD = R_SIZE + 3
R_PAY_PER_JOKER = R_SIZE + 4
R_PAY_DOUBLE = R_SIZE + 5  # pay_double_on_kalooki
R_WORDS = R_SIZE + 6  # the rules vector's length


def kalooki_pays_more(p) -> bool:
    """Does going out by Kalooki pay more than an ordinary call under the profile's scoring?  Doubled
    penalties (``kalooki_double_penalty``), a Kalooki stake above the call stake in elimination games,
    doubled payments in single-hand games (``pay_double_on_kalooki``)."""
    if p.kalooki_double_penalty:
        return True
    if p.game_end == "elimination":
        return p.stake_kalooki > p.stake_call
    return p.game_end == "single_hand" and p.pay_double_on_kalooki


def rules_array(profile) -> np.ndarray:
    """The rules vector (int64, R_* words) of a profile; read it as ``compiled(profile).rules``."""
    r = np.zeros(R_WORDS, np.int64)
    r[R_ACE_LOW] = int(bool(profile.ace_low))
    r[R_MAX_JOKERS] = profile.max_jokers_per_meld
    r[R_JOKER_MELDS] = int(bool(profile.joker_melds))
    r[R_JOKER_TAKE_FROM_RUN_END] = int(bool(profile.joker_take_from_run_end))
    r[R_JOKER_FROM_GROUP_BOTH] = int(profile.joker_from_group == "both_missing_suits")
    r[R_JOKER_TAKE_AT_OPENING] = int(bool(profile.joker_take_at_opening))
    r[R_OPENING_MIN] = profile.opening_min
    r[R_LAYOFFS_COUNT] = int(bool(profile.layoffs_count_for_opening))
    r[R_KALOOKI_EXEMPT] = int(bool(profile.kalooki_exempt_from_minimum))
    r[R_MELD_AT_ONCE] = int(profile.discard_pickup == "meld_at_once")
    r[R_FIRST_ROUND_FREE_DRAW] = int(bool(profile.first_round_free_draw))
    r[R_GO_OUT_FIRST_ROUND] = int(bool(profile.go_out_first_round))
    r[R_RUN_END_LIMIT] = profile.run_end_limit
    r[R_TWO_TOTAL] = int(profile.run_add_limit == "two_total")
    r[R_RESHUFFLE_ONCE] = int(profile.stock_exhausted == "reshuffle_once")
    r[R_PICKUP_BEFORE_OPENING] = int(bool(profile.discard_pickup_before_opening))
    r[R_TURN_CAP] = profile.turn_cap
    r[R_KALOOKI_PAYS_MORE] = int(kalooki_pays_more(profile))
    r[R_TABLE_OPENING] = int(bool(profile.joker_take_at_opening or profile.layoffs_count_for_opening))
    r[R_MONEY_PER_HAND] = int(profile.game_end == "single_hand")
    r[R_PAY_PER_CARD] = profile.pay_per_card
    r[R_PAY_PER_JOKER] = profile.pay_per_joker
    r[R_PAY_DOUBLE] = int(bool(profile.pay_double_on_kalooki))
    return r


def params_header(profile) -> np.ndarray:
    """The parameter header (``HEADER_W`` int32 words, P_* above, every other word zero) of a profile."""
    h = np.zeros(HEADER_W, np.int32)
    h[P_ACE_LOW] = int(bool(profile.ace_low))
    h[P_ACE_VALUE] = profile.ace_value
    h[P_ACE_LOW_VALUE] = profile.ace_low_value
    h[P_JOKER_PENALTY] = profile.joker_penalty
    h[P_JOKER_MELDS] = int(bool(profile.joker_melds))
    h[P_JOKER_MELD_VALUE] = profile.joker_meld_value
    h[P_MAX_JOKERS_PER_MELD] = profile.max_jokers_per_meld
    h[P_KMAX] = min(profile.max_jokers_per_meld, MAX_JOKERS)
    h[P_OPENING_MIN] = profile.opening_min
    h[P_KALOOKI_EXEMPT] = int(bool(profile.kalooki_exempt_from_minimum))
    h[P_FORMAT] = PARAMS_FORMAT
    for e in range(ACE_HIGH_EXT + 1):
        h[P_EXTV + e] = (profile.ace_low_value if e == ACE_LOW_EXT
                         else rank_value(ACE if e == ACE_HIGH_EXT else e - 1, profile.ace_value))
    for r in range(N_RANKS):
        h[P_HV + r] = rank_value(r, profile.ace_value)
    return h


class CompiledProfile(NamedTuple):
    """Every array compiled code reads of one profile, made once per profile by ``compiled``: the engine,
    the meld search and the bots all read these, and none of them reads the profile's fields."""
    rules: np.ndarray  # int64, R_* words: the rules of melds, table operations and turns, then of scoring
    params: np.ndarray  # int32: the P_* header (meld values, the meld search's parameters), then its table
    hand_values: np.ndarray  # int64, 53 words: each card's penalty left in a hand (cards.hand_values)


_COMPILED: dict[int, tuple] = {}  # id(profile) -> (profile, CompiledProfile, header key)
_COMPILED_MAX = 256
_PARAMS: dict[bytes, np.ndarray] = {}  # a header's bytes -> its parameter vector, least recently made first
_PARAMS_MAX = 8  # each vector's table grows to at most 51 MB as the meld search fills it


def compiled(profile) -> CompiledProfile:
    """The profile compiled, made once per profile object.  Profiles with the same header share one
    parameter vector, so a process fills each meld search table once.  Read-only outside the meld search
    (which fills the table); build it in the process that uses it (the table is large to send)."""
    hit = _COMPILED.get(id(profile))
    if hit is not None and hit[0] is profile:
        _share_params(hit[2], hit[1].params)  # the most recently used, so an equal header finds it
        return hit[1]
    header = params_header(profile)
    key = header.tobytes()
    params = _PARAMS.get(key)
    if params is None:
        params = np.zeros(HEADER_W + SEARCH_TABLE_W, np.int32)  # zero pages: memory used as the table fills
        params[:HEADER_W] = header
    _share_params(key, params)
    cp = CompiledProfile(rules_array(profile), params,
                         hand_values(profile.ace_value, profile.joker_penalty).astype(np.int64))
    if len(_COMPILED) >= _COMPILED_MAX:
        _COMPILED.clear()
    _COMPILED[id(profile)] = (profile, cp, key)  # holding the profile keeps its id from being reused
    return cp


def _share_params(key, params):
    """Keep ``params`` as the vector profiles with this header share, evicting the least recently used."""
    _PARAMS.pop(key, None)
    if len(_PARAMS) >= _PARAMS_MAX:
        _PARAMS.pop(next(iter(_PARAMS)))
    _PARAMS[key] = params


# ---------------------------------------------------------------------------------------------------
# codes: OK, or the rule a meld or an operation breaks (sim.engine.table words each for the player)
# ---------------------------------------------------------------------------------------------------
OK = 0
# a meld (check_row)
(X_MAX_JOKERS, X_DECLARED, X_RUN_SHORT, X_RUN_NO_NATURAL, X_RUN_PAST_ACE, X_ACE_LOW, X_RUN_CORNER,
 X_RUN_NOT_CONSECUTIVE, X_GROUP_SIZE, X_JOKER_MELDS, X_ALL_JOKER_DECLARED, X_GROUP_RANKS, X_GROUP_SUITS,
 X_KIND) = range(1, 15)
# a lay-off (lay_off_row); a meld code follows when the meld it makes is invalid
L_LOW_END, L_HIGH_END, L_NOT_EXTEND, L_ALL_JOKER, L_COMPLETE, L_GROUP_SUIT = range(21, 27)
# a take (take_row)
T_NO_SLOT, T_JOKER, T_NOT_END, T_GROUP_NOT_FOUR, T_LEAVES = range(31, 36)
# a split (split_row); a meld code follows when a part is invalid
S_NOT_RUN, S_POSITION, S_CARD, S_PART = range(41, 45)
# a joker swap (swap_joker_row)
(J_NO_JOKER, J_RUN_CARD, J_RUN_END, J_ALL_JOKER_GROUP, J_FOUR_GROUP, J_NOT_MISSING, J_SAME_SUIT, J_BOTH,
 J_ONE, J_CLOSED_THIS_TURN) = range(51, 61)


@njit(cache=True)
def ext_rank_to_rank(e):
    return ACE if (e == ACE_LOW_EXT or e == ACE_HIGH_EXT) else e - 1


@njit(cache=True)
def run_extension(row, end, rules):
    """The natural card that extends the run ``row`` at ``end`` (LOW or HIGH), or -1 where none can: past
    the ace, an ace below the two where the profile plays aces high only, or a run turning the corner."""
    n = row[2]
    low = row[1]
    e = low - 1 if end == LOW else low + n
    if e < 0 or e > ACE_HIGH_EXT or (e == ACE_LOW_EXT and rules[R_ACE_LOW] == 0):
        return -1
    if (low == ACE_LOW_EXT and e == ACE_HIGH_EXT) or (e == ACE_LOW_EXT and low + n - 1 == ACE_HIGH_EXT):
        return -1
    return (row[REPS] // N_RANKS) * N_RANKS + ext_rank_to_rank(e)


@njit(cache=True)
def _suit(c):
    return c // N_RANKS


@njit(cache=True)
def jokers_in(row):
    nj = 0
    for k in range(row[2]):
        if row[CARDS + k] == JOKER:
            nj += 1
    return nj


@njit(cache=True)
def clear_row(out):
    for k in range(ROW_W):
        out[k] = -1


@njit(cache=True)
def check_row(row, rules):
    """OK if the row is a valid meld under the profile, else the X_* code of the rule it breaks."""
    n = row[2]
    nj = jokers_in(row)
    if nj > rules[R_MAX_JOKERS] and not (row[0] == GROUP and nj == n):
        return X_MAX_JOKERS
    for k in range(n):
        c = row[CARDS + k]
        if c != JOKER and c != row[REPS + k]:
            return X_DECLARED
    if row[0] == RUN:
        if n < 3:
            return X_RUN_SHORT
        if nj == n:
            return X_RUN_NO_NATURAL
        lo = row[1]
        hi = lo + n - 1
        if lo < 0 or hi > ACE_HIGH_EXT:
            return X_RUN_PAST_ACE
        if lo == ACE_LOW_EXT and rules[R_ACE_LOW] == 0:
            return X_ACE_LOW
        if lo == ACE_LOW_EXT and hi == ACE_HIGH_EXT:
            return X_RUN_CORNER
        s = row[REPS] // N_RANKS
        for i in range(n):
            r = row[REPS + i]
            if r < 0 or r // N_RANKS != s or r % N_RANKS != ext_rank_to_rank(lo + i):
                return X_RUN_NOT_CONSECUTIVE
        return OK
    if row[0] == GROUP:
        if n < 3 or n > 4:
            return X_GROUP_SIZE
        if nj == n:
            if rules[R_JOKER_MELDS] == 0:
                return X_JOKER_MELDS
            if row[1] != -1:
                return X_ALL_JOKER_DECLARED
            for k in range(n):
                if row[REPS + k] != -1:
                    return X_ALL_JOKER_DECLARED
            return OK
        for k in range(n):
            r = row[REPS + k]
            if r < 0 or r % N_RANKS != row[1]:
                return X_GROUP_RANKS
        seen = 0
        for k in range(n):
            bit = 1 << (row[REPS + k] // N_RANKS)
            if seen & bit:
                return X_GROUP_SUITS
            seen |= bit
        return OK
    return X_KIND


@njit(cache=True)
def slot_value(row, k, prm):
    """Points of slot ``k`` of a meld, the card there or the card a joker there stands for: its extended
    rank's in a run, ``joker_meld_value`` in an all-joker group, its rank's in a group.  The one count of
    a meld's value; every other adds this up."""
    if row[0] == RUN:
        return prm[P_EXTV + row[1] + k]
    if row[1] < 0:
        return prm[P_JOKER_MELD_VALUE]
    return prm[P_HV + row[1]]


@njit(cache=True)
def meld_value(row, prm):
    """Points of a meld for the opening minimum: jokers count as the card they stand for."""
    if row[0] != RUN:
        return slot_value(row, 0, prm) * row[2]  # a group's slots all count the same
    v = 0
    for k in range(row[2]):
        v += slot_value(row, k, prm)
    return v


@njit(cache=True)
def lay_off_row(row, c, end, rep_wanted, rules, prm, out):
    """Card c laid off onto the meld (a run at ``end``; a joker in a group stands for ``rep_wanted``,
    or the first missing suit when -1): (code, points added, the card it stands for); out: the meld
    after it."""
    n = row[2]
    out[:] = row
    if row[0] != RUN and n >= MAX_SLOTS:
        return L_COMPLETE, 0, -1
    if row[0] == RUN:
        if end == LOW:
            e = row[1] - 1
            if e < 0:
                return L_LOW_END, 0, -1
        else:
            e = row[1] + n
            if e > ACE_HIGH_EXT:
                return L_HIGH_END, 0, -1
        rep = (row[REPS] // N_RANKS) * N_RANKS + ext_rank_to_rank(e)
        if c != JOKER and c != rep:
            return L_NOT_EXTEND, 0, rep
        if end == LOW:
            for k in range(n, 0, -1):
                out[CARDS + k] = row[CARDS + k - 1]
                out[REPS + k] = row[REPS + k - 1]
            out[CARDS] = c
            out[REPS] = rep
            out[1] = e
        else:
            out[CARDS + n] = c
            out[REPS + n] = rep
        out[2] = n + 1
    else:
        if row[1] < 0:
            if c != JOKER:
                return L_ALL_JOKER, 0, -1
            rep = -1
        else:
            suits = 0
            for k in range(n):
                suits |= 1 << (row[REPS + k] // N_RANKS)
            if c == JOKER:
                rep = rep_wanted
                if rep < 0:
                    for s in range(4):
                        if not (suits >> s) & 1:
                            rep = s * N_RANKS + row[1]
                            break
                    if rep < 0:
                        return L_COMPLETE, 0, -1
            else:
                rep = c
            if rep % N_RANKS != row[1] or (suits >> (rep // N_RANKS)) & 1:
                return L_GROUP_SUIT, 0, rep
        out[CARDS + n] = c
        out[REPS + n] = rep
        out[2] = n + 1
        if n + 1 == 4 and row[HOLD] != H_HELD and jokers_in(out) > 0:
            out[HOLD] = H_LAID  # closed by the player's own card: taking a card back opens it again
    added = slot_value(out, 0 if row[0] == RUN and end == LOW else n, prm)
    code = check_row(out, rules)
    return code, added, rep


@njit(cache=True)
def take_row(row, pos, out):
    """The card at slot ``pos`` taken from the meld (an end card of a run, any card of a four-card
    group; never a joker): (code, the card); out: the meld left (a closed group's jokers held for the
    rest of the turn, HOLD)."""
    n = row[2]
    out[:] = row
    if pos < 0 or pos >= n:
        return T_NO_SLOT, -1
    c = row[CARDS + pos]
    if c == JOKER:
        return T_JOKER, c
    if row[0] == RUN and pos != 0 and pos != n - 1:
        return T_NOT_END, c
    for k in range(pos, n - 1):
        out[CARDS + k] = row[CARDS + k + 1]
        out[REPS + k] = row[REPS + k + 1]
    out[CARDS + n - 1] = -1
    out[REPS + n - 1] = -1
    out[2] = n - 1
    if row[0] == RUN and pos == 0:
        out[1] = row[1] + 1
    if row[0] != RUN and n != 4:
        return T_GROUP_NOT_FOUR, c
    if n - 1 < 3 or jokers_in(out) == n - 1:
        return T_LEAVES, c
    if row[0] != RUN:
        if row[HOLD] == H_LAID:
            out[HOLD] = H_NONE  # the player's own lay-off taken back: the group is as open as before it
        elif jokers_in(row) > 0:
            out[HOLD] = H_HELD
    return OK, c


@njit(cache=True)
def split_row(row, card, pos, rules, first, second):
    """A run cut in two by a card duplicating the one at slot pos-1, which ends the first part and
    starts the second: (code, the card it duplicates, the meld code of an invalid part (S_PART));
    first/second: the parts."""
    n = row[2]
    first[:] = row
    clear_row(second)
    if row[0] != RUN:
        return S_NOT_RUN, -1, OK
    if pos < 3 or pos > n - 2:
        return S_POSITION, -1, OK
    rep = row[REPS + pos - 1]
    if card != JOKER and card != rep:
        return S_CARD, rep, OK
    for k in range(pos, n):
        first[CARDS + k] = -1
        first[REPS + k] = -1
    first[2] = pos
    second[0] = RUN
    second[1] = row[1] + pos - 1
    second[2] = n - pos + 1
    second[CARDS] = card
    second[REPS] = rep
    for k in range(pos, n):
        second[CARDS + 1 + k - pos] = row[CARDS + k]
        second[REPS + 1 + k - pos] = row[REPS + k]
    code = check_row(first, rules)
    if code == OK:
        code = check_row(second, rules)
    return OK if code == OK else S_PART, rep, code


@njit(cache=True)
def swap_joker_row(row, pos, card, extra, rules, out):
    """The joker at slot ``pos`` taken by substituting the natural card(s) it stands for (``card``;
    in a group ``extra`` too where both missing suits are needed, -1 otherwise; never from a group
    whose jokers the turn holds, HOLD): (code, the card at fault or -1); out: the meld after it."""
    n = row[2]
    out[:] = row
    if pos < 0 or pos >= n or row[CARDS + pos] != JOKER:
        return J_NO_JOKER, -1
    if row[0] == RUN:
        if card != row[REPS + pos]:
            return J_RUN_CARD, card
        if (pos == 0 or pos == n - 1) and rules[R_JOKER_TAKE_FROM_RUN_END] == 0:
            return J_RUN_END, -1
        out[CARDS + pos] = card
        return OK, -1
    if row[1] < 0:
        return J_ALL_JOKER_GROUP, -1
    if n == 4:
        return J_FOUR_GROUP, -1
    if row[HOLD] == H_HELD:
        return J_CLOSED_THIS_TURN, -1
    present = 0
    nat = 0
    for k in range(n):
        c = row[CARDS + k]
        if c != JOKER:
            present |= 1 << (c // N_RANKS)
            nat += 1
    added_suits = 0
    n_added = 1 if extra < 0 else 2
    for a in range(n_added):
        c = card if a == 0 else extra
        if c == JOKER or c % N_RANKS != row[1] or (present >> (c // N_RANKS)) & 1:
            return J_NOT_MISSING, c
    if extra >= 0 and card // N_RANKS == extra // N_RANKS:
        return J_SAME_SUIT, -1
    for a in range(n_added):
        added_suits |= 1 << ((card if a == 0 else extra) // N_RANKS)
    both = rules[R_JOKER_FROM_GROUP_BOTH] != 0
    if both and n_added != 2:
        return J_BOTH, -1
    if not both and n_added != 1:
        return J_ONE, -1
    clear_row(out)
    out[0] = GROUP
    out[1] = row[1]
    k = 0
    for j in range(n):  # the naturals, in order
        c = row[CARDS + j]
        if c != JOKER:
            out[CARDS + k] = c
            out[REPS + k] = c
            k += 1
    for a in range(n_added):
        c = card if a == 0 else extra
        out[CARDS + k] = c
        out[REPS + k] = c
        k += 1
    others = n - nat - 1  # the jokers left in the group
    for s in range(4):  # they stand for the missing suits left, in suit order
        if others == 0:
            break
        if not (present >> s) & 1 and not (added_suits >> s) & 1:
            out[CARDS + k] = JOKER
            out[REPS + k] = s * N_RANKS + row[1]
            k += 1
            others -= 1
    out[2] = k
    if k == 4 and n - nat - 1 > 0:  # a two-joker group closed by the swap keeps its other joker
        out[HOLD] = H_HELD
    return OK, -1
