"""The expert bot.

It plays for the game, not the hand: each hand comes with its row of stakes (``sim.game.hand_stakes``,
what going out and each penalty taken are worth on the score sheet), and every deadwood it weighs is
weighed by that row (``sim.bots.expert_core`` states the rule).  A hand without a game plays by its
own points.
"""
from __future__ import annotations

from .. import sheet
from ..cards import JOKER
from ..engine import DRAW_DISCARD, DRAW_STOCK, LayOff, NewMeld, Play, Split, SwapJoker
from . import expert_core as XC
from .kinds import K_EXPERT
from .table_play import expert_play, table_opening
from .moves import forbidden_discard
from .patient import PatientBot

# the values of the expert's, lookahead's and search's ``buy_in`` setting (the search alone plays on)
BUY_POOL, BUY_PLAY_ON, BUY_TABLE = 0, 1, 2
BUY_IN_RULES = {BUY_POOL: "the pool rule", BUY_PLAY_ON: "play the game on to weigh a buy-in",
                BUY_TABLE: "the table of game values, where the profile has one"}


class ExpertBot(PatientBot):
    """Expert: the whole repertoire of table play, careful draws and discards, and money sense.

    Each turn it searches table rearrangements within a budget (``max_harvests`` moves): it considers
    every way the rules give to free a card from the table (removing an end card of a run of four or
    more or a card of a four-card group; shifting a run by adding a card at one end and taking the
    other end; substituting in a three-card group by adding the missing suit and taking another;
    swapping a joker out of a run or a group with the natural card or cards it stands for) and makes
    the one that lets it go out, or else lowers its deadwood most with the freed card melded again
    from its hand; then it lays down its melds, lays off, and splits runs with cards that duplicate an
    inner card.  It keeps its jokers, unless laying them off lets it go out or it would be left holding
    nothing else but one natural card; it never passes a turn it can go out in with new melds and
    lay-offs, jokers included.

    It takes a discard it is free to take only when that, with the discard it would then make, leaves
    at least ``draw_gain`` less deadwood than a stock draw is expected to (exactly, over the cards it
    cannot see; once opened, a stock card that lets it go out with melds and lay-offs counts as leaving
    no deadwood and, by ``draw_out`` percent, as what going out is worth on the sheet beyond that),
    always when it goes out with it, and a discard the rules tie to its opening only when it
    opens with it, with the table's help where the profile allows.

    It weighs the score sheet: every deadwood above (held after a discard, expected after a draw) is
    weighed by what that many penalty points cost it on the sheet (its row of stakes), so near
    elimination it sheds the points above the cliff first and its ``max_risk`` while holding for a
    Kalooki shrinks to the deadwood whose cost is within it (it opens sooner).  What it keeps a card
    for (a partial meld's live cards, a safe discard) is kept for the end of the hand, so it weighs as
    much as ending the hand is at stake: its go-out against another's, by the row, over the same on a
    sheet where a go-out is worth ``out_worth`` beyond the points it saves (within a half and twice).

    Its discard is a loose card, chosen by what keeping the others is worth: the deadwood it would
    still hold, plus ``feed_weight`` points for each unit of risk of feeding the next player (it
    remembers what that player picked up and discarded, and which cards extend the table for them),
    plus ``partial_weight`` points for each live card (one it cannot see) that would complete a pair,
    a two-card run or a one-gap run the card makes with another loose card.  So it throws an
    isolated card before breaking a pair or near-run of the same value, and breaks the partial meld
    with fewer live cards first; it does not throw a joker while another card is loose.  Ties go to
    the higher penalty, then to the card with fewer live cards completing its partial melds, then to
    the one with fewer live neighbours (``sim.bots.expert_core`` states the whole rule).

    It holds back its opening for a Kalooki like `patient` while that is within reach and opponents
    are far from going out (where a Kalooki pays more); it opens like `patient`, with the table's help
    where the profile allows it; and it buys back in when the table of game values (``sim.equity``)
    says the money it expects after the stake beats leaving; with ``buy_in = 0``, or where the
    profile has no table, when the pool is worth the stake.

    ``game_values`` names a file of game values (``kalooki equity build --out FILE``) it plays by, its
    stakes and its buy-ins, instead of the profile's shipped table; "" (the default): the shipped one.
    ``kalooki tournament --bot-params`` takes it (a table is one profile's), so that players by two
    tables can meet on the same deals.
    """

    name = "expert"
    hand_loop = "sim.bots.hand_loop"  # a table of greedy, patient, expert and lookahead bots plays compiled
    core_kind = K_EXPERT  # its draw and discard choice in sim.bots.expert_core
    buy_in_rules = (BUY_POOL, BUY_TABLE)  # the values its ``buy_in`` setting takes

    def __init__(self, rng=None, max_harvests=3, feed_weight=4, draw_gain=2, partial_weight=5, out_worth=60,
                 draw_out=100, buy_in=BUY_TABLE, game_values="", **params):
        super().__init__(rng, **params)
        if buy_in not in self.buy_in_rules:
            from ..errors import UserError
            *first, last = [f"{k} ({BUY_IN_RULES[k]})" for k in self.buy_in_rules]
            raise UserError(f"{self.name}.buy_in = {buy_in!r}: expected {', '.join(first)} or {last}")
        self.max_harvests, self.feed_weight, self.draw_gain = max_harvests, feed_weight, draw_gain
        self.partial_weight, self.out_worth, self.draw_out = partial_weight, out_worth, draw_out
        self.buy_in_rule = buy_in
        self.game_values = game_values

    @property
    def own_table(self):
        """The table of game values of its ``game_values`` file (None: the profile's shipped table)."""
        if not self.game_values:
            return None
        from .. import equity
        return equity.read_file(self.game_values)

    # ---------------------------------------------------------------- draw
    def draw(self, state, me) -> int:
        """Compiled (``expert_core.expert_draw``), except the opening with the table's help."""
        src = XC.decide_draw(state, me, XC.bot_params(self))
        if src != XC.ASK_TABLE_OPENING:
            return src
        top = state.discard_top
        h = state.hands[me].copy()
        h[top] += 1
        # it takes the discard when it opens with it with the table's help (a joker taken, lay-offs counted)
        return DRAW_DISCARD if table_opening(state, me, h, top, top) is not None else DRAW_STOCK

    # ---------------------------------------------------------------- play
    def play(self, state, me) -> Play:
        if not state.opened[me]:
            # the patient's play, holding for a Kalooki by the max_risk its stakes give (expert_core.risk_limit)
            max_risk = self.max_risk
            self.max_risk = XC.max_risk_for(state, me, max_risk)
            try:
                play = super().play(state, me)
            finally:
                self.max_risk = max_risk
            return self._discard_smartly(state, me, play)
        play, hand, table = expert_play(state, me, self.max_harvests)  # compiled: sim/bots/table_play.py
        if table is not None:
            play.discard = self._choose_discard(state, me, hand, forbidden_discard(state), table)
        return play

    # ---------------------------------------------------------------- discards
    def _feed_risks(self, state, me, table) -> list[int]:
        """Risk, for every card, of feeding the next player with it: it matches what that player took
        from the discard pile (same rank, or same suit within two ranks), less once for each time that
        player discarded that very card, or it extends the table for them (``expert_core._feed_risks``)."""
        return XC.feed_risks(state, me, table).tolist()

    @staticmethod
    def _discard_candidates(hand, p, forbid) -> list[int]:
        """The loose cards of a least-deadwood partition (every card if none is loose), ascending,
        never the forbidden card."""
        return XC.discard_candidates(hand, p, forbid)

    def _choose_discard(self, state, me, hand, forbid, table) -> int:
        """The discard from ``hand`` (``table``: the table after this turn's operations), compiled
        (``expert_core.discard_choice``): the loose card whose keeping is worth least (the class
        docstring)."""
        return XC.choose_discard(state, me, hand, forbid, table, XC.bot_params(self))

    def _discard_smartly(self, state, me, play: Play) -> Play:
        """Replace an unopened player's discard with the expert's choice (same cards melded)."""
        hand = state.hands[me].copy()
        table = list(state.table)
        for op in play.ops:
            if isinstance(op, NewMeld):
                for c in op.meld.cards:
                    hand[c] -= 1
                table.append(op.meld)
            elif isinstance(op, (LayOff, Split)):
                hand[op.card] -= 1
            elif isinstance(op, SwapJoker):  # a joker taken to open: it goes into a new meld below
                hand[op.card] -= 1
                if op.extra >= 0:
                    hand[op.extra] -= 1
                hand[JOKER] += 1
        if hand.sum() == 1 or (play.ops and hand.sum() == 0):
            return play
        if hand.sum() <= 1:
            return play
        return Play(play.ops, self._choose_discard(state, me, hand, forbidden_discard(state), table))

    # ---------------------------------------------------------------- money
    def buy_in(self, ledger, seat) -> bool:
        """With ``buy_in = 2`` (``BUY_TABLE``, the default) and a table of game values for the profile
        (its own, ``game_values``; else ``sim.equity.has_table``: the shipped one, or the table a build's
        pass plays by), buy back in when the money expected from buying in beats leaving (``buy_in_gain``
        above 0); else by the pool rule: when the pool, shared a little below evenly, is worth the stake
        (``sim.sheet.pool_rule_buys``)."""
        if self.buy_in_rule == BUY_TABLE:
            from .. import equity
            own = self.own_table
            if own is not None or equity.has_table(ledger.p, ledger):
                return equity.buy_in_gain(ledger.p, ledger, seat, own) > 0
        return bool(sheet.pool_rule_buys(float(ledger.pool), len(ledger.players_in()), ledger.p.stake_buy_in))
