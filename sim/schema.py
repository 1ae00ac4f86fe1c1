"""The dataset schema, declared once: writers, readers, the tables of docs/DATASET.md and tests use it.

``hands``: one row per player per hand (a void hand's re-deal gets the same hand_no and the next
redeal_no).  ``games``: one row per player per game.  ``turns``: one row per turn, only when a run
asks for events.  Every row carries run_id, profile, rules_hash and engine_version.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from .version import ENGINE_VERSION, SCHEMA_VERSION  # noqa: F401  (every row carries the engine version)

_PROVENANCE = [
    ("run_id", pa.string(), "identifier of the run (hash of its configuration)"),
    ("profile", pa.string(), "rule profile name"),
    ("rules_hash", pa.string(), "hash of every rule parameter of the profile (after --set)"),
    ("engine_version", pa.string(), "engine behaviour version"),
]

HANDS = _PROVENANCE + [
    ("game_id", pa.int64(), "game number in the run (unique in the run, per profile)"),
    ("hand_no", pa.int32(), "hand number in the game, from 1"),
    ("redeal_no", pa.int16(), "0 for the first deal of a hand, 1.. for re-deals after a void hand"),
    ("seat", pa.int8(), "seat 0..n-1"),
    ("seat_from_dealer", pa.int8(), "1 = left of the dealer (plays first), ..., n = the dealer (0 is never used)"),
    ("n_players", pa.int8(), "players dealt into this hand"),
    ("bot", pa.string(), "the player in this seat: a bot's name, NAME.SETTING a named setting, NAME@EPS graded"),
    ("dealt_jokers", pa.int8(), "jokers in the dealt hand"),
    ("dealt_max_meld_value", pa.int16(), "largest meld value of the dealt hand"),
    ("can_open_at_deal", pa.bool_(), "dealt_max_meld_value >= opening_min"),
    ("opened", pa.bool_(), "the player made the initial meld in this hand"),
    ("open_round", pa.int16(), "the player's turn number of the opening (1 = first turn); null if never"),
    ("open_value", pa.int16(), "points of the new melds laid from the hand in the opening turn (cards taken back "
     "from the table not counted; docs/RULES.md 4); null if never"),
    ("open_with_discard", pa.bool_(), "the opening used the card taken from the discard pile"),
    ("melds_laid", pa.int16(), "new melds laid in the hand"),
    ("cards_laid_off", pa.int16(), "cards added to table melds in the hand"),
    ("jokers_taken", pa.int16(), "jokers taken from the table by substitution"),
    ("won", pa.bool_(), "the player went out"),
    ("win_type", pa.string(), "'call' or 'kalooki' for the winner, null otherwise"),
    ("rounds", pa.int16(), "rounds played in the hand (a round = every player's turn)"),
    ("cards_left", pa.int16(), "cards in hand at the end"),
    ("penalty", pa.int32(), "penalty points scored this hand (winner 0; doubled where the profile says)"),
    ("penalty_total", pa.int32(), "running penalty total after the hand (elimination games); points for target games"),
    ("eliminated", pa.bool_(), "eliminated after this hand (before any buy-in)"),
    ("bought_in", pa.bool_(), "bought back in after this hand"),
    ("buy_ins_total", pa.int8(), "buy-ins so far in the game"),
    ("payment", pa.int32(), "units received (+) or paid (-) this hand, buy-ins and initial stake included"),
    ("stock_reshuffles", pa.int8(), "times the discard pile became the stock in this hand"),
    ("void", pa.bool_(), "the hand was void (stock exhausted); it scores nothing and is re-dealt"),
    ("stalled", pa.bool_(), "the hand hit turn_cap and was stopped; it scores nothing"),
    ("open_layoff_value", pa.int16(), "points laid off from the hand onto melds already on the table in the opening "
     "turn (they count towards opening_min only where layoffs_count_for_opening); null if never opened"),
    ("table", pa.string(), "the game's table composition (its name in the run's tables; default the bots, comma-separated)"),
]

GAMES = _PROVENANCE + [
    ("game_id", pa.int64(), "game number in the run"),
    ("seat", pa.int8(), "seat 0..n-1"),
    ("n_players", pa.int8(), "players in the game"),
    ("bot", pa.string(), "the player in this seat: a bot's name, NAME.SETTING a named setting, NAME@EPS graded"),
    ("hands_played", pa.int32(), "hands played in the game (re-deals not counted)"),
    ("won", pa.bool_(), "won the game"),
    ("finish_rank", pa.int8(), "1 = winner; others by order of elimination or by score"),
    ("eliminated_count", pa.int8(), "times the player was eliminated"),
    ("buy_ins", pa.int8(), "times the player bought back in"),
    ("final_penalty_total", pa.int32(), "penalty total (or points, for target games) at the end"),
    ("net_payment", pa.int32(), "units won minus units paid over the game, pool included"),
    ("kalookis", pa.int16(), "hands won by Kalooki"),
    ("pool", pa.int32(), "size of the pool at the end of the game"),
    ("stalled", pa.bool_(), "the game hit hand_cap and was stopped"),
    ("table", pa.string(), "the game's table composition (its name in the run's tables; default the bots, comma-separated)"),
]

TURNS = _PROVENANCE + [
    ("game_id", pa.int64(), "game number in the run"),
    ("hand_no", pa.int32(), "hand number in the game"),
    ("redeal_no", pa.int16(), "re-deal number"),
    ("turn_no", pa.int32(), "turn number in the hand, from 1"),
    ("seat", pa.int8(), "seat whose turn it is"),
    ("draw", pa.string(), "'stock' or 'discard'"),
    ("drawn", pa.string(), "card drawn (hidden cards are recorded too: this is a debugging record)"),
    ("actions", pa.string(), "melds, lay-offs and rearrangements, in order, in card notation"),
    ("discard", pa.string(), "card discarded, null if the player went out without one"),
    ("hand_after", pa.string(), "the player's hand after the turn"),
]

TABLES = {"hands": HANDS, "games": GAMES, "turns": TURNS}


def arrow_schema(table: str) -> pa.Schema:
    return pa.schema([pa.field(n, t) for n, t, _ in TABLES[table]])


def column_names(table: str) -> list[str]:
    return [n for n, _, _ in TABLES[table]]


def markdown(table: str) -> str:
    """The schema as a Markdown table (docs/DATASET.md's tables are generated from this)."""
    rows = ["| column | type | meaning |", "|---|---|---|"]
    rows += [f"| `{n}` | {t} | {d} |" for n, t, d in TABLES[table]]
    return "\n".join(rows)


DATASET_DOC = Path(__file__).resolve().parent.parent / "docs" / "DATASET.md"


def update_document(path: Path = DATASET_DOC) -> bool:
    """Rewrite the schema tables of docs/DATASET.md between ``<!-- schema:TABLE -->`` and
    ``<!-- /schema -->``; True if the file changed.  `python -m sim.schema` runs it."""
    import re
    p = Path(path)
    text = p.read_text()
    new = text
    for table in TABLES:
        new = re.sub(rf"(<!-- schema:{table} -->\n).*?(<!-- /schema -->)",
                     lambda m, t=table: m.group(1) + markdown(t) + "\n" + m.group(2), new, flags=re.S)
    if new != text:
        p.write_text(new)
    return new != text


if __name__ == "__main__":
    print(f"{DATASET_DOC} updated" if update_document() else f"{DATASET_DOC} already up to date")
