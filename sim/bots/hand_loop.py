"""The compiled hand loop: a whole hand played in one numba call by a table of bots that decide in
compiled code (greedy, patient, expert, lookahead, random and search, mixed at will;
``sim.engine.loop.compiled_hand_loop`` asks each bot class's ``hand_loop``).  The turns themselves are
``sim.bots.turn_loop.run_turns``, which stops where a search seat has a choice: the kernel asks the
search (``sim.bots.search_core``, which plays its rollouts with the same turns) and resumes.

``play_hand_fast(state, kinds, bp)`` plays a ``HandState`` (freshly dealt, or at the start of any
turn) to its end, a bot kind (``sim.bots.kinds``) and parameter row per seat and the hand's stakes
(``state.stakes``, a row per seat; the neutral rows where it has none).  It plays the state's own
compiled hand (``state.h``, a ``sim.engine.hand.Hand``, with ``state.inp``, the bots' rules vector and
meld parameters in place of the engine's) in place, so the state reads the outcome from the arrays
the kernel left and records and games read it exactly as after ``sim.engine.loop.play_hand``; nothing
is converted either way.  The loop's own part (the stock, reshuffles, the statistics, the end of the
hand) has the Python engine as its reference: tests/test_hand_loop.py plays every profile both ways
and compares every field.  The bots' decisions are the same compiled functions the Python engine
asks turn by turn.

- every random draw of a hand is made up front by ``HandState`` (the deck shuffle, the reshuffle
  keys and the seat keys of a duplicate tournament), so the kernel receives the stock order and the
  keys;
- every play is validated and applied by the engine's own compiled turn
  (``sim.engine.turn.apply_turn``, which ``HandState.apply_play`` calls too); a play it refuses
  stops the kernel with a status, and ``play_hand_fast`` puts the record back as it was and returns
  None, so the caller replays the hand on the Python path, which raises the same ``BotError``
  naming the rule.

``last_turn`` and the log stay empty on this path.  ``KALOOKI_PYTHON_ENGINE=1`` keeps every hand on
the Python path.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from .. import meldsearch as MS
from ..engine import core
from ..engine import turn as TU
from ..jit import cache as numba_cache
from ..jit.cache import drop_stale
from . import expert_core as XC
from . import greedy_core as FG
from . import table_play as EP
from . import search_core as SC
from . import turn_loop as TL
from ..engine import hand as HD
from ..engine.hand import H_CURRENT, H_ERR_SEAT, H_RESHUFFLES, H_STATUS, H_TURN_NO, SC_ND, SC_NT, STATUS_INVARIANT
from ..engine.turn import MAXT
from . import kinds as bot_kinds
from .outlook import stakes_matrix, unseen_kernel

STREAM_AHEAD = 8192  # a random bot's uniforms ready before a compiled hand (it runs out only on a freak hand)

@njit(cache=True)
def play_hand_kernel(inp, h, seats):
    """Play the compiled hand ``h`` (``sim.engine.hand.Hand``, a ``HandState``'s own at the start of a turn;
    its fixed inputs ``inp``, a ``HandInputs``) to its end, in place, each seat's bot deciding in compiled code
    (HandState.start_turn / apply_draw / apply_play with the bots' draw and play; ``seats``, a
    ``turn_loop.Seats``: with ``check``, the invariants after every turn, status 12 when one breaks;
    status 13 when a random bot's stream runs out).

    Leaves in ``h``: the hands; stats (the counters, those of this call's turns added); res (H_W: res[H_STATUS] != 0 means a play broke a rule, or the hand needs
    the Python engine, and the outcome is not to be used); the stock left (stock[sp:ns], drawing order,
    and its places), the discard pile, the table rows (sc says their sizes).
    """
    res, sc = h.res, h.sc
    bp, streams, slen, spos = seats.bp, seats.streams, seats.slen, seats.spos
    pend = TL.mid_scratch()
    start = TL.START_DRAW
    force_src = TL.NO_FORCE
    force_disc = -1
    while True:
        answer = TL.run_turns(inp, h, seats, pend, start, force_src, force_disc, True, 0)
        if answer != TL.ASK_DRAW and answer != TL.ASK_DISCARD:
            break
        # a search seat's choice (sim.bots.search_core), from what it can see: the stock only by its size
        me = sc[TL.SC_CUR]
        si = SC.SearchInputs(me, bp[me], seats.stakes)
        if answer == TL.ASK_DRAW:
            choice, spos[me] = SC.search_draw(inp, h, si, streams[me, :slen[me]], spos[me])
            start = TL.START_DRAW
            force_src = choice
        else:
            choice, _, nx, spos[me] = SC.search_play(inp, h, pend, si, streams[me, :slen[me]], spos[me])
            start = TL.START_APPLY
            force_src = TL.NO_FORCE
            force_disc = choice
            sc[TL.SC_NX] = nx  # the play chosen: the lookahead's, nothing laid, or another written over xops
        if choice == SC.OUT_OF_STREAM:
            res[H_STATUS] = 13
            res[H_ERR_SEAT] = me
            break
    res[H_RESHUFFLES] = sc[TL.SC_RESHUFFLES]
    res[H_TURN_NO] = sc[TL.SC_TURN_NO]
    res[H_CURRENT] = sc[TL.SC_CUR]


drop_stale(play_hand_kernel, (FG, MS, core, TU, HD, XC, EP, TL, SC, bot_kinds,
                              sys.modules[unseen_kernel.py_func.__module__],
                              sys.modules[SC.loser_pays.py_func.__module__]))


def can_play_fast(state) -> bool:
    """A state the kernel can take: at the start of a turn, with the hand's reshuffle keys."""
    if state.phase != "draw" or state.result is not None or getattr(state, "reshuffle_keys", None) is None:
        return False
    sc = state.h.sc
    return sc[SC_NT] <= MAXT - 12 and sc[SC_ND] <= len(state.reshuffle_keys)




class TableLoop:
    """The compiled hand loop for one table of bots (any of the table of kinds, ``sim.bots.kinds``), mixed
    at will (``sim.engine.loop.compiled_hand_loop``)."""

    def __init__(self, kinds: np.ndarray, bp: np.ndarray, check: bool = False, bots=()):
        self.kinds, self.bp, self.check = kinds, bp, check
        self.eps = np.array([getattr(b, "eps", 0.0) for b in bots] or [0.0] * len(kinds), dtype=np.float64)
        # the seats that read a stream of uniforms: random bots, asking (search) bots and graded players
        self.random = [(i, b) for i, b in enumerate(bots)
                       if self.eps[i] > 0 or _reads_stream(bot_kinds.KINDS[b.name])]

    def can_play_fast(self, state) -> bool:
        return can_play_fast(state)

    def play_hand_fast(self, state):
        if not self.random:
            return play_hand_fast(state, self.kinds, self.bp, self.check, None, None, None, self.eps)
        # the random bots' streams from where they stand; advanced only if the hand is played here
        for _, b in self.random:
            b.ensure(STREAM_AHEAD)
        slen = np.zeros(state.n, np.int64)
        for i, b in self.random:
            slen[i] = len(b.stream) - b.pos
        streams = np.zeros((state.n, int(slen.max())), np.float64)
        for i, b in self.random:
            streams[i, :slen[i]] = b.stream[b.pos:]
        spos = np.zeros(state.n, np.int64)
        result = play_hand_fast(state, self.kinds, self.bp, self.check, streams, slen, spos, self.eps)
        if result is not None:
            for i, b in self.random:
                b.pos += int(spos[i])
        return result


CHECK = False  # check the invariants after every turn of every compiled hand (make soak sets it)


def _reads_stream(kind: bot_kinds.Kind) -> bool:
    """Does a bot of this kind read its stream of uniforms in the compiled loop (random and asking bots)?"""
    return kind.draw == bot_kinds.K_RANDOM or kind.play == bot_kinds.K_RANDOM or kind.asks


def table_loop(bots, check: bool | None = None) -> TableLoop:
    """The hand loop for a table of plain bots (any of the table of kinds, ``sim.bots.kinds``), in
    hand-position order; ``check``: the invariants are checked after every turn (default: ``CHECK``)."""
    rows = [bot_kinds.KINDS[b.name] for b in bots]
    params = [bot_kinds.resolve(k.params)(b) for k, b in zip(rows, bots)]
    bp = np.zeros((len(bots), max(SC.SX_W, *map(len, params))), np.int64)  # zero past a bot's own words
    for i, row in enumerate(params):
        bp[i, :len(row)] = row
    return TableLoop(np.array([k.number for k in rows], dtype=np.int64), bp, CHECK if check is None else check, bots)


class InvariantBroken(AssertionError):
    """A compiled hand broke an invariant of the game (cards lost or made, an invalid meld)."""


_NO_STREAMS = np.zeros((0, 0), np.float64)
_NO_EPS: dict[int, np.ndarray] = {}


def _no_eps(n: int) -> np.ndarray:
    zero = _NO_EPS.get(n)
    if zero is None:
        zero = _NO_EPS[n] = np.zeros(n, np.float64)
    return zero


_GREEDY: dict[int, tuple] = {}  # players -> a table of greedy bots: kinds and parameter rows (never written)
_NEUTRAL: dict[int, np.ndarray] = {}  # players -> the neutral stakes rows (never written)


def _greedy(n: int) -> tuple:
    table = _GREEDY.get(n)
    if table is None:
        table = _GREEDY[n] = np.zeros(n, np.int64), np.zeros((n, XC.X_W), np.int64)
    return table


def _stakes(state) -> np.ndarray:
    """``outlook.stakes_matrix``, the neutral rows made once per number of players."""
    if getattr(state, "stakes", None) is not None:
        return stakes_matrix(state)
    rows = _NEUTRAL.get(state.n)
    if rows is None:
        rows = _NEUTRAL[state.n] = stakes_matrix(state)
    return rows


def play_hand_fast(state, kinds=None, bp=None, check: bool = False, streams=None, slen=None, spos=None, eps=None):
    """Play a hand (dealt, or at the start of any turn: ``can_play_fast``) to its end in one compiled
    call on the state's own compiled hand (``state.h``, in place), every seat a greedy bot (or the bot
    kinds[i] with parameters bp[i], graded by eps[i]).  Returns the HandResult (``state.played_out``),
    or None, the state as it was, if the play would break a rule or needs the Python engine: the caller
    then plays the hand on the Python path, which names the rule."""
    n = state.n
    if kinds is None:
        kinds, bp = _greedy(n)
    h = state.h
    # the record as it was, should the Python path play the hand instead: the engine's copy run as Python
    # (numba's dispatch of a Hand from Python costs twice the copies)
    before = HD.copy_hand.py_func(h)
    seats = TL.Seats(kinds, bot_kinds.table(), bp, _NO_STREAMS if streams is None else streams,
                     np.zeros(n, np.int64) if slen is None else slen, np.zeros(n, np.int64) if spos is None else spos,
                     _no_eps(n) if eps is None else eps, _stakes(state), bool(check))
    play_hand_kernel(state.inp, h, seats)
    status, turn_no, seat = h.res[[H_STATUS, H_TURN_NO, H_ERR_SEAT]].tolist()
    if status != 0:
        for now, then in zip(h, before):
            now[...] = then
        if status == STATUS_INVARIANT:
            raise InvariantBroken(f"{state.profile.name}: an invariant broke in the compiled hand loop at turn "
                                  f"{turn_no + 1} (position {seat})")
        return None
    return state.played_out()


def _engine_turn(prof, n_players: int, play: bool = True):
    """A dealt hand's first turn on the Python engine: a draw from the stock and, if ``play``, a play of
    the drawn card's discard alone (this compiles the engine's turn, and none of the bots' code)."""
    from ..engine import HandState, Play
    from ..engine.actions import DRAW_STOCK
    st = HandState(prof, n_players, 0, np.random.default_rng(0))
    st.start_turn()
    card = st.apply_draw(DRAW_STOCK)
    if play:
        st.apply_play(Play([], card))
    return st


def _opened_turn(prof, n_players: int):
    """(state, seat) after the first draw of a dealt hand on the Python engine, the seat marked opened:
    the expert plays with the table only once opened.  For asking bots' plays; nothing is applied."""
    st = _engine_turn(prof, n_players, play=False)
    st.opened[st.current] = True
    return st, st.current


def _cold() -> bool:
    """Has the hand loop no compiled code in the on-disk cache (a fresh clone, or its code changed)?"""
    try:
        return not any(Path(play_hand_kernel._cache.cache_path).glob("hand_loop.play_hand_kernel-*.nbi"))
    except (AttributeError, OSError):
        return True


def warm_up(bots=None, *, announce: bool = False, profile_name: str = "kalooki40", n_players: int = 4) -> float:
    """Compile (or load from the on-disk cache) what a run whose tables seat ``bots`` needs (bot
    names, any iterable, or one name; None: every bot); seconds taken.  Always the hand loop (one
    kernel that seats any bot, so compiling it compiles every bot's compiled decisions) and, where
    the cache did not hold them, what the Python engine asks turn by turn (a hand the hand loop
    hands back, a bot with parameters of its own, a watched hand): the engine's turn, the greedy
    play, the meld search over dealt hands that hand records use and each seated bot's own entry
    points (the expert's and the random bot's plays, the look-ahead's discard, the patient bot's
    waiting).  From a warm cache those load when first asked (milliseconds each).

    ``announce``: when the cache does not hold all of that (a fresh install, another numba, an edit
    of the package), say on stderr what is compiled and about how long it takes; silent when warm.

    From an empty cache on a machine of two cores or more, up to three processes compile at once:
    this one the greedy play and then the hand loop, a child the Python engine's turn and what
    follows it, another the seated bots' plays.  Each function is compiled by whichever process
    comes to it first and loaded by the others (``sim.jit.cache``: one process at a time compiles a
    function), so a process that comes to a function another is compiling waits.  What the children
    leave undone is compiled here after them."""
    from .. import profiles
    from ..engine import HandState
    t0 = time.perf_counter()
    names = _warm_bots(bots)
    cold = _cold_parts(names)
    if cold and announce:
        print(_announcement(names, cold), file=sys.stderr, flush=True)
    children = []
    if cold and (os.cpu_count() or 1) > 1 and numba_cache.LOCKED:
        root = str(Path(__file__).resolve().parents[2])  # the directory holding the sim package
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
        for job in ("_warm_turns", "_warm_plays"):
            if job == "_warm_plays" and not set(names) & set(_PLAYS):
                continue
            code = (f"from sim.bots.hand_loop import {job}; {job}({profile_name!r}, {n_players}, {names!r})")
            try:
                children.append(subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.DEVNULL))
            except OSError:
                pass
    try:
        prof = profiles.load(profile_name)
        if children:  # the greedy play first, while the children start on the engine's turn and the plays
            from .registry import make_bot
            st, me = _opened_turn(prof, n_players)
            make_bot("greedy", np.random.default_rng(0)).play(st, me)
        table = _bots_table(names, n_players)
        table_loop(table).play_hand_fast(HandState(prof, n_players, 0, np.random.default_rng(0)))
        play_hand_fast(HandState(prof, n_players, 0, np.random.default_rng(0)))
    finally:
        for child in children:
            child.wait()
    if cold:  # from a warm cache the Python engine's kernels load when first asked (milliseconds each)
        _warm_turns(profile_name, n_players, names)
        _warm_plays(profile_name, n_players, names)
        _stamp_parts(cold)
    return time.perf_counter() - t0


# warm_up's parts: "loop" (the hand loop, the greedy play, the engine's turn, the meld search over dealt
# hands) always, and one per bot whose own entry points the Python engine asks for
# bots whose plays or discards _warm_plays compiles: those that play the expert's or the random bot's play,
# or whose choices the search decides
_PLAYS = tuple(k.name for k in bot_kinds.KINDS.values()
               if k.play in (bot_kinds.K_EXPERT, bot_kinds.K_RANDOM) or k.asks)
_PARTS = ("loop",) + tuple(k.name for k in bot_kinds.KINDS.values() if k.warm_cpu_s > 0)

# CPU seconds of each part's compile from an empty cache on an idle machine, for the announcement's
# estimate (every bot's 89 s, greedy bots' 70 s: python -m bench compile's CPU column, which moves
# by a third either way with the machine's speed from day to day): the loop is most of it, a bot's
# own entry points a few seconds each (``warm_cpu_s`` of its row in ``sim.bots.kinds``).  Set so that
# the estimate came within a factor of 1.5 of each cold compile checked on the 2-core machine
# (docs/PERFORMANCE.md).
_PART_CPU_S = {"loop": 70.0, **{k.name: k.warm_cpu_s for k in bot_kinds.KINDS.values() if k.warm_cpu_s > 0}}
_OVERLAP = 1.6  # CPU seconds per second of wall time where warm_up's processes compile at once (2 cores)
# CPU seconds the same compile takes where other work holds every core, as a multiple of the idle
# machine's (the cores' caches and hyperthread siblings shared)
_SHARED_CPU = 1.8


def _warm_bots(bots) -> tuple:
    """The bots to warm up for, each once, in the registry's order, greedy always (the hand loop's
    default); every bot for None."""
    from .registry import BOTS
    if bots is None:
        return tuple(BOTS)
    names = [bots] if isinstance(bots, str) else list(bots)
    unknown = [b for b in names if b not in BOTS]
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}; available: {', '.join(BOTS)}")
    return tuple(b for b in BOTS if b in names or b == "greedy")


def _bots_table(names, n_players: int) -> list:
    """A table of ``n_players`` seating each of ``names`` in turn (fresh bots, seeded)."""
    from .registry import make_bot
    return [make_bot(names[i % len(names)], np.random.default_rng(i)) for i in range(n_players)]


def _warm_turns(profile_name: str, n_players: int, names) -> None:
    """Compile (or load) what the Python engine asks turn by turn of a table seating ``names``: the
    engine's turn, two watched hands (a second deal reaches what the first may not: a joker swap, a
    pickup), the patient bot's waiting where it is seated, and the meld search over dealt hands
    that hand records use."""
    from .. import profiles
    from ..engine import HandState
    from ..engine.loop import play_hand
    prof = profiles.load(profile_name)
    _engine_turn(prof, n_players)  # first: the hand loop comes to it last and the plays child never
    for k in range(2):
        st = HandState(prof, n_players, 0, np.random.default_rng(k), record=True)  # watched: the Python engine
        play_hand(st, _bots_table(names, n_players), list(range(n_players)))
    if "patient" in names:
        st = HandState(prof, n_players, 0, np.random.default_rng(0))
        st.start_turn()
        FG.waiting(st, st.current, st.hands[st.current], np.zeros(FG.B_W, np.int64))
    MS.batch(HandState(prof, n_players, 0, np.random.default_rng(0)).hands.copy(), prof)


def _warm_plays(profile_name: str, n_players: int, names) -> None:
    """Compile (or load) the plays the Python engine asks of the seated expert (the largest first: from
    an empty cache the hand loop comes to them last), random bot and look-ahead (its discard)."""
    from .. import profiles
    from .registry import make_bot
    if not set(names) & set(_PLAYS):
        return
    prof = profiles.load(profile_name)
    st, me = _opened_turn(prof, n_players)
    for name in ("expert", "random"):
        if name in names:
            make_bot(name, np.random.default_rng(0)).play(st, me)
    if "lookahead" in names:
        XC.choose_discard(st, me, st.hands[me], -1, [], XC.bot_params(make_bot("lookahead", np.random.default_rng(0))))
    if "search" in names:  # its two searches as the Python engine asks them
        bot = make_bot("search", np.random.default_rng(0))
        bot.ensure(2)
        SC.decide_play(st, me, [], st.hands[me], int(np.flatnonzero(st.hands[me])[0]), True, SC.bot_params(bot),
                       bot.stream, 0)
        st2 = _engine_turn(prof, n_players, play=False)
        SC.decide_draw(st2, st2.current, SC.bot_params(bot), bot.stream, 0)


def _stamp_path(part: str):
    try:
        return Path(play_hand_kernel._cache.cache_path) / f"hand_loop.warm_up.{part}.stamp"
    except AttributeError:  # numba's cache reached otherwise: numba_cache.LOOKUP is off, nothing stamped
        return None


def _stamp_text() -> str | None:
    """What the cache holds of the hand loop, hashed: a part's stamp holds it as that part was compiled,
    and numba drops or rewrites the hand loop's entries whenever the code of anything it calls changes."""
    import hashlib
    state = numba_cache.cached_state(play_hand_kernel)
    return hashlib.sha256(state.encode()).hexdigest() if state else state


def _cold_parts(names) -> list:
    """warm_up's parts a run seating ``names`` needs that the cache does not hold (all of them where
    that cannot be told)."""
    wanted = ["loop"] + [b for b in _PARTS[1:] if b in names]
    text = _stamp_text()
    if not text:
        return wanted
    cold = []
    for part in wanted:
        path = _stamp_path(part)
        try:
            if path is None or path.read_text() != text:
                cold.append(part)
        except OSError:
            cold.append(part)
    return cold


def _stamp_parts(parts) -> None:
    """Record that ``parts`` are compiled into the cache beside the hand loop it holds now."""
    text = _stamp_text()
    for part in parts:
        path = _stamp_path(part)
        if text and path is not None:
            try:
                path.write_text(text)
            except OSError:  # a cache nobody can write to: numba compiles every time too, and says so here
                pass


def _others_running() -> float:
    """Processes of other work runnable here over the last minute (the load average); 0 where the
    platform does not say."""
    try:
        return max(0.0, os.getloadavg()[0])
    except (AttributeError, OSError):
        return 0.0


def _compile_estimate(parts, others: float = 0.0) -> float:
    """Seconds a warm-up of ``parts`` takes from an empty cache here, ``others`` processes of other
    work runnable beside it: their CPU seconds over the cores its processes get, which is their
    overlap on an idle machine of two cores or more, and a fair share of the cores where other work
    holds them (each CPU second then doing less)."""
    cores = os.cpu_count() or 1
    mine = 3 if cores > 1 and numba_cache.LOCKED else 1  # this process and, at most, its two children
    share = cores * mine / max(cores, others + mine)  # cores its processes get, each a fair share
    busy = min(1.0, others / cores)  # how much of the cores other work holds
    cpu = sum(_PART_CPU_S[p] for p in parts) * (1 + (_SHARED_CPU - 1) * busy)
    return cpu / min(_OVERLAP if mine > 1 else 1.0, share)


def _announcement(names, cold) -> str:
    """What warm_up says before compiling the parts ``cold`` for tables seating ``names``."""
    others = _others_running()
    shared = ", shared with other work" if others >= 1 else ""
    return (f"compiling the simulation kernels for {', '.join(names)} tables (first run only, about "
            f"{_minutes(_compile_estimate(cold, others))} on {os.cpu_count() or 1} cores{shared})")


def _minutes(seconds: float) -> str:
    """A rough duration: to 10 s under a minute, in whole minutes above."""
    return f"{max(10, round(seconds, -1)):.0f} s" if seconds < 55 else f"{round(seconds / 60)} min"
