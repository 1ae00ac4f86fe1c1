"""Play a shard of games and record them as Arrow tables in the dataset schema (``sim.schema``).

A game's random stream depends only on (run seed, profile name, game number): its SeedSequence is
``SeedSequence(seed, spawn_key=(crc32(profile), game_id))``, so a game is the same whatever shard or
worker plays it.  A paired spec drops the profile from the key (``spawn_key=(deal,)``), so every profile
of a paired run plays game g from the same deal; a duplicate spec (tournaments) plays deal
``game_id // n`` once per rotation of the bots, rotation ``game_id % n``, from a seat-keyed stock
(sim.engine), so the cards a seat draws follow the seat across rotations.  Its children: 0 the deal,
1..n the bots by seat, and ``TABLE_STREAM`` the choice of the table composition among a run's
weighted mix.  ``play_shard`` is the serial unit of work the runner distributes.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from . import meldsearch as MS
from . import schema
from .bots import make_bot, params_for
from .cards import cards_str, card_str, from_counts
from .engine import DRAW_STOCK
from .game import play_game
from .transcript import op_text


@dataclass
class ShardSpec:
    profile: object  # sim.profiles.Profile
    bots: list  # bot names, one per seat
    seed: int
    first_game: int
    n_games: int
    run_id: str = "local"
    events: bool = False
    bot_params: dict = field(default_factory=dict)  # bot name -> parameters, and a sub-table per named setting
    rotate: bool = False  # game g seats bot (s + g) % n at seat s (runs and tournaments)
    paired: bool = False  # the game's stream is keyed by (seed, deal) alone: the same deal in every profile
    duplicate: bool = False  # game g is rotation g % n of deal g // n (duplicate tournaments)
    tables: tuple = ()  # (name, bots, weight) compositions; () = one composition, ``bots``

    @property
    def compositions(self) -> tuple:
        return self.tables or ((",".join(self.bots), tuple(self.bots), 1),)


TABLE_STREAM = 1000  # the spawn-key child of a game's SeedSequence that picks its table composition


def deal_of(spec: ShardSpec, game_id: int) -> int:
    """The deal a game is played from: its own number, or in a duplicate tournament game_id // n."""
    return game_id // len(spec.bots) if spec.duplicate else game_id


def rotation_of(spec: ShardSpec, game_id: int) -> int:
    return game_id % len(spec.bots) if spec.duplicate else game_id


def game_seed(seed: int, profile_name: str, game_id: int, paired: bool = False) -> np.random.SeedSequence:
    key = (int(game_id),) if paired else (zlib.crc32(profile_name.encode()), int(game_id))
    return np.random.SeedSequence(int(seed), spawn_key=key)


def spec_seed(spec: ShardSpec, game_id: int) -> np.random.SeedSequence:
    return game_seed(spec.seed, spec.profile.name, deal_of(spec, game_id), spec.paired or spec.duplicate)


def table_of(spec: ShardSpec, game_id: int) -> tuple:
    """(name, bots) of the game's composition: drawn by weight from the game's own TABLE_STREAM child, so
    it depends on (seed, [profile,] deal) alone and not on shards or workers."""
    comps = spec.compositions
    if len(comps) == 1:
        return comps[0][0], tuple(comps[0][1])
    ss = spec_seed(spec, game_id)
    u = np.random.default_rng(np.random.SeedSequence(ss.entropy, spawn_key=ss.spawn_key + (TABLE_STREAM,))).random()
    cum = np.cumsum([float(w) for _, _, w in comps])
    i = min(int(np.searchsorted(cum / cum[-1], u, side="right")), len(comps) - 1)
    return comps[i][0], tuple(comps[i][1])


def seating(spec: ShardSpec, game_id: int) -> list[str]:
    bots = table_of(spec, game_id)[1]
    n = len(bots)
    r = rotation_of(spec, game_id)
    return [bots[(s + r) % n] for s in range(n)] if spec.rotate else list(bots)


def make_game(spec: ShardSpec, game_id: int):
    """The RNG and bots of one game, from (seed, profile, game number) alone ((seed, deal) when paired)."""
    ss = spec_seed(spec, game_id)
    children = ss.spawn(1 + len(spec.bots))
    rng = np.random.default_rng(children[0])
    bots = [make_bot(name, np.random.default_rng(children[1 + i]), params_for(spec.bot_params, name))
            for i, name in enumerate(seating(spec, game_id))]
    return rng, bots


def play_shard(spec: ShardSpec) -> dict[str, pa.Table]:
    """Play games first_game .. first_game+n_games-1 and return the hands, games (and turns) tables."""
    p = spec.profile
    prov = dict(run_id=spec.run_id, profile=p.name, rules_hash=p.rules_hash(), engine_version=schema.ENGINE_VERSION)
    hands = {k: [] for k in schema.column_names("hands")}
    games = {k: [] for k in schema.column_names("games")}
    turns = {k: [] for k in schema.column_names("turns")} if spec.events else None
    dealt_batch: list[np.ndarray] = []
    for game_id in range(spec.first_game, spec.first_game + spec.n_games):
        rng, bots = make_game(spec, game_id)
        names = seating(spec, game_id)
        table_name = table_of(spec, game_id)[0]
        buy_ins = [0] * len(bots)
        hand_ctx = {"totals": [0] * len(bots)}  # hand numbers for turn rows; totals for void hands

        def on_turn(state, gid=game_id):
            seat_pos, src, drawn, play = state.last_turn
            for k, v in prov.items():
                turns[k].append(v)
            turns["game_id"].append(gid)
            turns["hand_no"].append(hand_ctx["hand_no"])
            turns["redeal_no"].append(hand_ctx["redeal_no"])
            turns["turn_no"].append(state.turn_no)
            turns["seat"].append(hand_ctx["seats"][seat_pos])
            turns["draw"].append("stock" if src == DRAW_STOCK else "discard")
            turns["drawn"].append(card_str(drawn))
            turns["actions"].append("; ".join(op_text(o) for o in play.ops))
            turns["discard"].append(card_str(play.discard) if play.discard is not None else None)
            turns["hand_after"].append(cards_str(from_counts(state.hands[seat_pos])))

        def on_hand(rec):
            st = rec.state
            nh = rec.n_players
            res = st.result
            sheet = rec.sheet
            pos_dealer = rec.seats.index(rec.dealer)
            rounds = max(st.turns_taken)
            stats, opened = st.stats, st.opened  # read from the hand's record once
            for i, seat in enumerate(rec.seats):
                if sheet is not None and sheet.bought_in[seat]:
                    buy_ins[seat] += 1
                for k, v in prov.items():
                    hands[k].append(v)
                stt = stats[i]
                won = res.winner == i
                hands["game_id"].append(game_id)
                hands["hand_no"].append(rec.hand_no)
                hands["redeal_no"].append(rec.redeal_no)
                hands["seat"].append(seat)
                rel = (i - pos_dealer) % nh
                hands["seat_from_dealer"].append(rel if rel else nh)
                hands["n_players"].append(nh)
                hands["bot"].append(names[seat])
                hands["dealt_jokers"].append(rec.dealt_jokers[i])
                dealt_batch.append(rec.dealt_counts[i])
                hands["opened"].append(bool(opened[i]))
                hands["open_round"].append(stt["open_round"])
                hands["open_value"].append(stt["open_value"])
                hands["open_with_discard"].append(bool(stt["open_with_discard"]))
                hands["melds_laid"].append(stt["melds_laid"])
                hands["cards_laid_off"].append(stt["cards_laid_off"])
                hands["jokers_taken"].append(stt["jokers_taken"])
                hands["won"].append(bool(won))
                hands["win_type"].append(res.win_type if won else None)
                hands["rounds"].append(rounds)
                hands["cards_left"].append(res.cards_left[i])
                hands["penalty"].append(res.penalties[i])
                hands["penalty_total"].append(sheet.totals[seat] if sheet else hand_ctx["totals"][seat])
                hands["eliminated"].append(bool(sheet.eliminated[seat]) if sheet else False)
                hands["bought_in"].append(bool(sheet.bought_in[seat]) if sheet else False)
                hands["buy_ins_total"].append(buy_ins[seat])
                hands["payment"].append(sheet.payments[seat] if sheet else 0)
                hands["stock_reshuffles"].append(st.reshuffles)
                hands["void"].append(bool(res.void))
                hands["stalled"].append(bool(res.stalled))
                hands["table"].append(table_name)
                hands["open_layoff_value"].append(stt["open_layoff_value"])
            if sheet is not None:
                hand_ctx["totals"] = list(sheet.totals)

        game = play_game(p, bots, rng, on_turn=on_turn if turns is not None else None,
                         on_hand=on_hand, hand_ctx=hand_ctx, canonical_deal=spec.paired,
                         seat_keyed=spec.duplicate)
        lg = game.ledger
        ranks = lg.finish_ranks()
        for seat in range(len(bots)):
            for k, v in prov.items():
                games[k].append(v)
            games["game_id"].append(game_id)
            games["seat"].append(seat)
            games["n_players"].append(len(bots))
            games["bot"].append(names[seat])
            games["hands_played"].append(lg.hands_played)
            games["won"].append(lg.winner == seat)
            games["finish_rank"].append(ranks[seat])
            games["eliminated_count"].append(lg.eliminations[seat])
            games["buy_ins"].append(lg.buy_ins[seat])
            games["final_penalty_total"].append(lg.totals[seat])
            games["net_payment"].append(lg.balances[seat])
            games["kalookis"].append(lg.kalookis[seat])
            games["pool"].append(lg.pool_collected)
            games["stalled"].append(lg.stalled)
            games["table"].append(table_name)
    if dealt_batch:
        hands["dealt_max_meld_value"] = MS.batch(np.stack(dealt_batch), p)["max_meld_value"].astype(np.int16)
    else:
        hands["dealt_max_meld_value"] = np.zeros(0, dtype=np.int16)
    hands["can_open_at_deal"] = np.asarray(hands["dealt_max_meld_value"]) >= p.opening_min
    out = {"hands": pa.table(hands, schema=schema.arrow_schema("hands")),
           "games": pa.table(games, schema=schema.arrow_schema("games"))}
    if turns is not None:
        out["turns"] = pa.table(turns, schema=schema.arrow_schema("turns"))
    return out
