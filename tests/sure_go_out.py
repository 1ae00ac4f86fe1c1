"""Can the player to play go out this turn?  Decided from docs/RULES.md alone, by exhaustive search over
the hand and the table, for the blunder scan (tests/test_blunders.py): no bot code and no meld search.

A sure go-out is a play of new melds from the hand, lay-offs of hand cards (naturals and jokers)
onto the melds already on the table and splits of table runs by hand cards, then a discard, that
leaves the hand empty (section 5: the last card goes by discarding).  The card just taken from the
discard pile is a hand card like any other here (laid in a meld, laid off, or splitting a run), only
never the discard.  A run may be extended at its ends, then split any number of times, each split a
natural of the hand duplicating one of its cards or a joker standing for it, so that it falls into
runs of three or more (section 3), and then the ends the splits make inside it take lay-offs (laying
6S onto 3S 4S 5S after splitting 3S-7S with the 5S, or 4S onto 5S 6S 7S).  Left out, and no bot is
held to find them: taking cards off the table (takes, shifts, substitutions, joker swaps), and
orders of splits and lay-offs other than these.  The rules it applies:

- a run is three or more cards of one suit in consecutive ranks, the ace high (Q-K-A) or, with
  ``ace_low``, low (A-2-3), never both (K-A-2); a group three or four cards of one rank in different
  suits; a joker stands for any card; every meld holds a natural card, except all-joker groups of
  three or four under ``joker_melds``; at most ``max_jokers_per_meld`` jokers in a meld (section 2);
- a lay-off adds a card (a natural or a joker standing for it) to an end of a run, or the missing
  suit to a three-card group, at most ``run_end_limit`` cards on one end of a run in a turn (two in
  all per run under ``run_add_limit = "two_total"``) (section 3);
- a split inserts a natural duplicating a card of a run, or a joker standing for it (a joker stands
  for any card), so that each part is a run of three or more within the joker limit, and counts for
  an opening as a lay-off of the card it duplicates; each part is then a run of the table, its new
  end with no card added this turn (under two_total the parts share the run's two) (sections 3, 11);
- a player who has not opened goes out only by laying new melds from the hand worth at least
  ``opening_min`` (jokers count as the card they stand for), or, under ``layoffs_count_for_opening``,
  new melds and lay-offs worth it together, or with no minimum under ``kalooki_exempt_from_minimum``;
  building needs a new meld laid first; a taken discard that obliges an opening must be in a new meld
  (sections 4, 5, 11);
- no copy of a card taken from the discard pile is discarded in that turn; nobody goes out in the
  first round where ``go_out_first_round`` is false (section 5).

``sure_go_out(state, me)`` returns a witness ``Play`` (checked by the engine's validation of a turn,
so a fault of this search shows as an error, never as a bot's blunder) or None.
"""
from __future__ import annotations

import functools

from sim.cards import ACE, JOKER, N_RANKS, cards_str, from_counts, rank_value
from sim.engine import DRAW_DISCARD, HIGH, LOW, LayOff, NewMeld, Play, Split
from sim.engine import turn as T
from sim.engine.table import Turn
from sim.melds import GROUP, RUN, Meld

NATURALS = 52
NEG = -1  # no partition


def _ext_rank(e: int) -> int:
    return ACE if e in (0, 13) else e - 1


class Rules:
    """The profile's parameters this search reads, and its memoized partition of a hand into melds."""

    def __init__(self, p):
        self.p = p
        self.ace_low = p.ace_low
        self.max_jokers = p.max_jokers_per_meld
        self.joker_melds = p.joker_melds
        self.ext_values = [p.ace_low_value] + [rank_value(_ext_rank(e), p.ace_value) for e in range(1, 14)]
        self.best = functools.lru_cache(maxsize=200_000)(self._best)

    def ext_ok(self, low: int, high: int) -> bool:
        """A run may span the extended ranks low..high (0 a low ace, 13 a high ace)."""
        return 0 <= low and high <= 13 and (low > 0 or self.ace_low) and not (low == 0 and high == 13)

    # ------------------------------------------------------------------ the hand into new melds
    def melds_with(self, h, c):
        """Every meld (kind, low, cards as (card, declared card) pairs, value) that holds natural c and
        otherwise cards of h, where c is the lowest natural card of h."""
        jokers = min(h[JOKER], self.max_jokers)
        r, s = c % N_RANKS, c // N_RANKS
        others = [x * N_RANKS + r for x in range(4) if x != s and h[x * N_RANKS + r] > 0]
        missing = [x * N_RANKS + r for x in range(4) if x != s and h[x * N_RANKS + r] == 0]
        for mask in range(1 << len(others)):
            chosen = [others[k] for k in range(len(others)) if mask >> k & 1]
            free = [o for o in others if o not in chosen] + missing
            for k in range(0, jokers + 1):
                n = 1 + len(chosen) + k
                if 3 <= n <= 4 and k <= len(free):
                    cards = [(c, c)] + [(o, o) for o in chosen] + [(JOKER, free[q]) for q in range(k)]
                    yield GROUP, r, cards, rank_value(r, self.p.ace_value) * n
        exts = [13] if r == ACE else [r + 1]
        if r == ACE and self.ace_low:
            exts.append(0)
        for e in exts:
            for low in range(max(0, e - 12), e + 1):
                for high in range(max(e, low + 2), min(13, low + 12) + 1):
                    if not self.ext_ok(low, high):
                        continue
                    yield from self._runs(h, c, s, e, low, high, jokers)

    def _runs(self, h, c, s, e, low, high, jokers):
        value = sum(self.ext_values[low:high + 1])
        slots = []
        for x in range(low, high + 1):
            rep = s * N_RANKS + _ext_rank(x)
            slots.append((x, rep, x != e and h[rep] > 0))
        # each slot other than c's: its natural if held (or a joker in its place), else a joker
        def fill(i, used):
            if i == len(slots):
                yield []
                return
            x, rep, held = slots[i]
            if x == e:
                for rest in fill(i + 1, used):
                    yield [(c, c)] + rest
                return
            if held:
                for rest in fill(i + 1, used):
                    yield [(rep, rep)] + rest
            if used < jokers:
                for rest in fill(i + 1, used + 1):
                    yield [(JOKER, rep)] + rest
        for cards in fill(0, 0):
            yield RUN, low, cards, value

    def _best(self, h: tuple) -> int:
        """The most valuable partition of the whole of h into melds (its points), or NEG."""
        c = next((x for x in range(NATURALS) if h[x] > 0), -1)
        if c < 0:
            j = h[JOKER]
            if j == 0:
                return 0
            if self.joker_melds and (3 <= j <= 4 or 6 <= j <= 8):
                return j * self.p.joker_meld_value
            return NEG
        if not self._each_could_meld(h):
            return NEG
        best = NEG
        for _, _, cards, value in self.melds_with(h, c):
            rest = list(h)
            for card, _ in cards:
                rest[card] -= 1
            v = self.best(tuple(rest))
            if v != NEG and v + value > best:
                best = v + value
        return best

    def _each_could_meld(self, h) -> bool:
        """A quick necessary condition: every natural has two cards of h it could meld with."""
        j = h[JOKER]
        for x in range(NATURALS):
            if h[x] == 0:
                continue
            r, s = x % N_RANKS, x // N_RANKS
            if j + sum(1 for y in range(4) if y != s and h[y * N_RANKS + r] > 0) >= 2:
                continue
            near = 0
            for d in (-2, -1, 1, 2):
                if h[s * N_RANKS + (r + d) % N_RANKS] > 0:
                    near += 1
            if j + near < 2:
                return False
        return True

    def partition(self, h: tuple) -> list:
        """The melds of a most valuable partition of h (``best`` must not be NEG)."""
        out = []
        h = list(h)
        while True:
            target = self.best(tuple(h))
            c = next((x for x in range(NATURALS) if h[x] > 0), -1)
            if c < 0:
                j = h[JOKER]
                while j > 0:
                    k = 4 if j in (4, 7, 8) else 3
                    out.append(Meld(GROUP, (JOKER,) * k, (-1,) * k, -1))
                    j -= k
                return out
            for kind, low, cards, value in self.melds_with(tuple(h), c):
                rest = list(h)
                for card, _ in cards:
                    rest[card] -= 1
                v = self.best(tuple(rest))
                if v != NEG and v + value == target:
                    out.append(Meld(kind, tuple(x for x, _ in cards), tuple(rep for _, rep in cards), low))
                    h = rest
                    break
            else:
                raise AssertionError("partition lost its way")



@functools.cache
def rules_of(p) -> Rules:
    return Rules(p)


# ------------------------------------------------------------------ lay-offs onto the table
def _extensions(m: Meld, h, rules: Rules, p):
    """Every way to lay hand cards off onto table meld m in one turn, and for a run to split it
    after: (cards used, operations as ("lay", card, end, rep) or ("split", card, position), points
    they add)."""
    yield [], [], 0
    nj = m.n_jokers
    if m.kind == RUN:
        s = m.reps[0] // N_RANKS
        limit = p.run_end_limit if p.run_add_limit == "per_end" else 2
        for k_lo in range(0, limit + 1):
            for k_hi in range(0, limit + 1):
                if p.run_add_limit == "two_total" and k_lo + k_hi > 2:
                    continue
                low, high = m.low - k_lo, m.high + k_hi
                if not rules.ext_ok(low, high):
                    continue
                slots = ([(e, LOW) for e in range(m.low - 1, low - 1, -1)]
                         + [(e, HIGH) for e in range(m.high + 1, high + 1)])
                for used, parts, value in _fill_slots(slots, s, h, nj, rules):
                    if parts:
                        yield used, parts, value
                    # the run as laid: (card, ext rank) per slot, low to high
                    laid = dict(zip([e for e, _ in slots], used))
                    run = ([(laid[e], e) for e in range(low, m.low)] + list(zip(m.cards, range(m.low, m.high + 1)))
                           + [(laid[e], e) for e in range(m.high + 1, high + 1)])
                    room = 2 - k_lo - k_hi if p.run_add_limit == "two_total" else p.run_end_limit
                    for cuts in _splits(run, 0, -1, h, used, rules):
                        extra = [c for _, c in cuts]
                        ops = parts + [("split", c, j + 1) for j, c in reversed(cuts)]
                        v = value + sum(rules.ext_values[run[j][1]] for j, _ in cuts)
                        for more, lays, lv in _inner_ends(run, cuts, s, h, used + extra, rules, room):
                            yield used + extra + more, ops + lays, v + lv
    elif m.low < 0:
        for k in range(1, 5 - len(m)):
            if h[JOKER] >= k:
                yield [JOKER] * k, [(JOKER, HIGH, -1)] * k, k * p.joker_meld_value
    elif len(m) == 3:
        present = {rep // N_RANKS for rep in m.reps}
        for x in range(4):
            if x in present:
                continue
            c = x * N_RANKS + m.low
            v = rank_value(m.low, p.ace_value)
            if h[c] > 0:
                yield [c], [(c, HIGH, -1)], v
            if h[JOKER] > 0 and nj + 1 <= rules.max_jokers:
                yield [JOKER], [(JOKER, HIGH, c)], v


def _splits(run, start, lead, h, used, rules):
    """Every non-empty set of slots of ``run`` (after ``start``, the slot of the previous split or 0)
    at which hand cards beyond ``used`` split it, each a natural duplicating the card there or a
    joker standing for it, each part a run of three or more holding a natural and at most
    ``max_jokers_per_meld`` jokers: lists of (slot, card), ascending.  The part from ``start`` begins
    with the run's own card there where start is 0, else with ``lead``, the card that split it."""
    s = next(c for c, _ in run if c != JOKER) // N_RANKS
    n = len(run)
    for j in range(start + 2, n - 2):
        natural = s * N_RANKS + _ext_rank(run[j][1])
        for c in (natural, JOKER):
            if h[c] - used.count(c) <= 0:
                continue
            head = [run[0][0] if start == 0 else lead] + [x for x, _ in run[start + 1:j + 1]]
            if not _part_ok(head, rules):
                continue
            tail = [c] + [x for x, _ in run[j + 1:]]
            if _part_ok(tail, rules):
                yield [(j, c)]
            for more in _splits(run, j, c, h, used + [c], rules):
                yield [(j, c)] + more


def _inner_ends(run, cuts, s, h, used, rules, room):
    """Lay-offs of hand cards beyond ``used`` onto the ends the splits ``cuts`` (ascending (slot,
    card)) make inside ``run``, after all of them: at each cut the part below takes the ranks above
    the duplicated card at its new high end, the part above the ranks below it at its new low end, a
    natural or a joker each, at most ``room`` cards on one new end (per_end: each is an end with no
    card added this turn) or in all (two_total: what the outer ends left of the run's two), within
    each part's joker limit.  Yields (cards used, operations, points they add): ("lay", card, end,
    rep) onto the lowest part (the table meld itself), ("cut", card, end, rep, k) onto the part the
    meld's k-th split (in the order made, the highest first) cut off."""
    m = len(cuts)
    bounds = [0] + [j + 1 for j, _ in cuts] + [len(run)]
    parts = []
    for q in range(m + 1):
        cards = [x for x, _ in run[bounds[q]:bounds[q + 1]]]
        if q > 0:
            cards = [cuts[q - 1][1]] + cards
        parts.append(cards.count(JOKER))
    two_total = rules.p.run_add_limit == "two_total"
    # the new ends: (part, end, extended ranks outward from the cut, as far as the run reaches)
    lo, hi = run[0][1], run[-1][1]
    ends = []
    for q, (j, _) in enumerate(cuts):
        e = run[j][1]
        ends.append((q, HIGH, list(range(e + 1, hi + 1))))
        ends.append((q + 1, LOW, list(range(e - 1, lo - 1, -1))))

    def lay(q, card, end):
        return ("lay", card, end, -1) if q == 0 else ("cut", card, end, -1, m - q)

    def fill(q, end, ranks, t, used, jokers):
        """t cards onto one new end, outward: (cards, operations, points, jokers after)."""
        if t == 0:
            yield [], [], 0, jokers
            return
        e = ranks[0]
        natural = s * N_RANKS + _ext_rank(e)
        for c in (natural, JOKER):
            if h[c] - used.count(c) <= 0 or (c == JOKER and jokers[q] + 1 > rules.max_jokers):
                continue
            j2 = list(jokers)
            j2[q] += c == JOKER
            for more, ops, v, j3 in fill(q, end, ranks[1:], t - 1, used + [c], j2):
                yield [c] + more, [lay(q, c, end)] + ops, rules.ext_values[e] + v, j3

    def go(k, used, jokers, left):
        if k == len(ends):
            yield [], [], 0
            return
        q, end, ranks = ends[k]
        for t in range(0, min(left if two_total else room, len(ranks)) + 1):
            for cards, ops, v, j2 in fill(q, end, ranks, t, used, jokers):
                for more, rest, rv in go(k + 1, used + cards, j2, left - t):
                    yield cards + more, ops + rest, v + rv

    yield from go(0, list(used), parts, room)


def _part_ok(cards, rules) -> bool:
    jokers = cards.count(JOKER)
    return len(cards) >= 3 and jokers < len(cards) and jokers <= rules.max_jokers


def _fill_slots(slots, s, h, nj, rules):
    def fill(i, used, jokers):
        if i == len(slots):
            yield used, []
            return
        e, end = slots[i]
        rep = s * N_RANKS + _ext_rank(e)
        if h[rep] - used.count(rep) > 0:
            for u, parts in fill(i + 1, used + [rep], jokers):
                yield u, [(rep, end, -1)] + parts
        if h[JOKER] - used.count(JOKER) > 0 and nj + jokers + 1 <= rules.max_jokers:
            for u, parts in fill(i + 1, used + [JOKER], jokers + 1):
                yield u, [(JOKER, end, -1)] + parts
    value = sum(rules.ext_values[e] for e, _ in slots)
    for used, parts in fill(0, [], 0):
        yield used, parts, value


def _dead_cards(h, table, rules, p) -> int:
    """How many cards of h can neither meld with two others of h nor go onto any table meld: at least
    that many stay in hand whatever is played, and a go-out leaves one (the discard) at most."""
    dead = 0
    layable = set()
    joker_spot = False
    for m in table:
        if m.kind == RUN:
            s = m.reps[0] // N_RANKS
            for k in range(1, p.run_end_limit + 1):
                for e in (m.low - k, m.high + k):
                    if 0 <= e <= 13:
                        layable.add(s * N_RANKS + _ext_rank(e))
            layable.update(m.reps)  # a duplicate may split the run
            joker_spot = joker_spot or m.n_jokers < rules.max_jokers or len(m) >= 5  # or a joker splits it
        elif m.low >= 0 and len(m) == 3:
            present = {rep // N_RANKS for rep in m.reps}
            layable.update(x * N_RANKS + m.low for x in range(4) if x not in present)
            joker_spot = joker_spot or m.n_jokers < rules.max_jokers
        elif m.low < 0 and len(m) == 3:
            joker_spot = True
    j = h[JOKER]
    for x in range(NATURALS):
        if h[x] == 0 or x in layable:
            continue
        r, s = x % N_RANKS, x // N_RANKS
        if j + sum(1 for y in range(4) if y != s and h[y * N_RANKS + r] > 0) >= 2:
            continue
        if j + sum(1 for d in (-2, -1, 1, 2) if h[s * N_RANKS + (r + d) % N_RANKS] > 0) >= 2:
            continue
        dead += h[x]
    if j and not joker_spot and sum(h[:NATURALS]) < 2 and not (rules.joker_melds and j >= 3):
        dead += j
    return dead


def sure_go_out(state, me: int):
    """A play that goes out this turn from the state after ``me``'s draw (module docstring), or None."""
    p = state.profile
    first = state.turns_taken[me] == 0
    if first and not p.go_out_first_round:
        return None
    rules = rules_of(p)
    hand = tuple(int(x) for x in state.hands[me])
    table = list(state.table)
    was_open = bool(state.opened[me])
    forbid = state.drawn_card if state.drawn_from == DRAW_DISCARD else -1
    must_open_with = -1
    if state.drawn_from == DRAW_DISCARD and state.discard_obligation(me) == "open":
        must_open_with = state.drawn_card
    if _dead_cards(hand, table, rules, p) > 1:
        return None
    found = None

    def leaf(h, layval):
        for d in range(len(h)):
            if h[d] == 0 or d == forbid:
                continue
            rest = list(h)
            rest[d] -= 1
            rest = tuple(rest)
            if not was_open:
                if sum(rest) == 0 or (must_open_with >= 0 and rest[must_open_with] == 0):
                    continue
            v = rules.best(rest)
            if v == NEG:
                continue
            if not was_open:
                counted = v + (layval if p.layoffs_count_for_opening else 0)
                if counted < p.opening_min and not p.kalooki_exempt_from_minimum:
                    continue
            return d, rest
        return None

    seen = set()

    def dfs(i, h, layval, parts):
        nonlocal found
        key = (i, h, layval if not was_open else 0)
        if key in seen:
            return False
        seen.add(key)
        if i == len(table):
            hit = leaf(h, layval)
            if hit is None:
                return False
            d, rest = hit
            found = (d, rest, parts)
            return True
        for used, ops, v in _extensions(table[i], h, rules, p):  # ops: lay-offs, then splits
            h2 = list(h)
            ok = True
            for c in used:
                h2[c] -= 1
                ok = ok and h2[c] >= 0
            if not ok:
                continue
            if dfs(i + 1, tuple(h2), layval + v, parts + [(i, op) for op in ops]):
                return True
        return False

    if not dfs(0, hand, 0, []):
        return None
    d, rest, parts = found
    ops = [NewMeld(m) for m in rules.partition(rest)] if sum(rest) else []
    # a split's part cut off is the table's next row (after the new melds and earlier splits' parts)
    row = len(table) + len(ops)
    cut_rows = {}
    for i, op in parts:
        if op[0] == "split":
            cut_rows[i] = cut_rows.get(i, []) + [row]
            row += 1
            ops.append(Split(i, op[1], op[2]))
        elif op[0] == "lay":
            ops.append(LayOff(i, *op[1:]))
        elif op[0] == "cut":
            ops.append(LayOff(cut_rows[i][op[4]], *op[1:4]))
        else:
            ops.append(LayOff(i, *op))
    play = Play(ops, d)
    turn = Turn(table, p, state.hands[me], ops)
    code = turn.play(d, state.drawn_card, state.drawn_from, was_open, first)
    if code != T.OK or not turn.res[T.T_GOING_OUT]:
        why = turn.refusal(code) if code != T.OK else "it does not empty the hand"
        raise AssertionError(f"sure_go_out found a play the engine refuses ({why}): {play} for hand "
                             f"{cards_str(from_counts(state.hands[me]))} on {[str(m) for m in table]}")
    return play
