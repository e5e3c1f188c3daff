"""The choices of one decision in words, and the answers that name them: by number, words or short form.

The terminal asks with them (:func:`newmarket_env.play.prompt.ask`) and the web page lists them
(:func:`newmarket_env.describe.scene.decision`), so both accept and explain a choice the same way.

>>> from newmarket_env.engine import Decision
>>> from newmarket_env.game.rules import make_rules
>>> choices = Choices([3, 16], Decision.LEAD, make_rules("newmarket"))
>>> choices.lines()
['  1) lead 4 of clubs (4C)', '  2) lead 4 of diamonds (4D)']
>>> choices.match("2"), choices.match("4c"), choices.match("lead 4 of diamonds (4D)"), choices.match("5")
(16, 3, 16, None)
>>> choices.match("lead 4D"), choices.why_not("")
(16, 'an empty answer chooses nothing; type the number of a choice (1-2) or its words')
>>> Choices([52, 53], Decision.BUY, make_rules("newmarket", widow="dealer_buy")).match("buy")
53
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from newmarket_env.describe.words import choice_text
from newmarket_env.engine.types import Decision
from newmarket_env.game import actions as A
from newmarket_env.game.cards import card_from_text, card_text
from newmarket_env.game.rules import Rules


class Choices:
    """The legal actions of one decision, each with its words and its number (from 1).

    An answer may be the number, the words shown, the short form (``4C``, ``pass``, ``bid 3``), the verb and
    the card (``lead 4C``), the first word of a choice when no other choice starts with it (``buy``,
    ``take``, ``keep``) or, for stakes, the boodle card (``AS``). ``hand`` (card ids of the person's hand)
    lets :meth:`why_not` say why a held card is not a choice.
    """

    def __init__(self, legal: Sequence[int], decision: Decision, rules: Rules, hand: Iterable[int] = ()) -> None:
        self.actions = list(legal)
        self.decision = decision
        self.texts = [choice_text(a, decision, rules) for a in self.actions]
        self.hand = set(hand)
        self._words = self._word_table(rules)

    def _word_table(self, rules: Rules) -> dict[str, int]:
        """Every accepted spelling (lower case, single spaces) of every choice."""
        first_words = Counter(text.lower().split()[0] for text in self.texts)
        table: dict[str, int] = {}
        for action, text in zip(self.actions, self.texts, strict=True):
            said = text.lower()
            verb = said.split()[0]
            names = [said, A.action_text(action).lower()]
            if first_words[verb] == 1:
                names.append(verb)
            if A.is_card(action):
                names.append(f"{verb} {card_text(action).lower()}")
            if A.is_stake(action):
                boodle = rules.boodles[action - A.STAKE_BASE].lower()
                names += [boodle, f"stake {boodle}"]
            for name in names:
                table.setdefault(name, action)
        return table

    def lines(self) -> list[str]:
        width = len(str(len(self.texts)))
        return [f"  {i:>{width}}) {text}" for i, text in enumerate(self.texts, start=1)]

    def match(self, answer: str) -> int | None:
        """The action ``answer`` names (see the class docstring), or None."""
        said = " ".join(answer.lower().split())
        if said.isdigit():
            index = int(said) - 1
            return self.actions[index] if 0 <= index < len(self.actions) else None
        return self._words.get(said)

    def why_not(self, answer: str) -> str:
        """Why ``answer`` names no choice, in one line for the person at the table."""
        said = " ".join(answer.lower().split())
        count = len(self.actions)
        if not said:
            return f"an empty answer chooses nothing; type the number of a choice (1-{count}) or its words"
        words = said.split()
        if words[0] == "bid" and len(words) == 2 and words[1].isdigit():
            bids = [A.bid_amount(a) for a in self.actions if A.is_bid(a)]
            if not bids:
                return f"{answer!r}: there is no bid to make now; type the number of a choice or its words"
            return f"{answer!r} is not allowed: a bid now is {min(bids)}..{max(bids)} chips"
        card = _card_of(words)
        if card is not None and A.is_card(card) and self.decision in (Decision.LEAD, Decision.DISCARD):
            verb = "discard" if self.decision is Decision.DISCARD else "lead"
            if card not in self.hand:
                return f"{answer!r}: you do not hold {card_text(card)}; type the number of a choice or its words"
            if self.decision is Decision.LEAD:
                return (
                    f"{answer!r}: {card_text(card)} is in your hand but is not a lead allowed now "
                    "(the lead rule is above the choices)"
                )
            return f"{answer!r}: {card_text(card)} may not be the {verb} now"
        return f"{answer!r} is not one of the choices; type its number (1-{count}) or its words"


def _card_of(words: list[str]) -> int | None:
    """The card an answer names (``2c``, ``lead 2c``, ``discard 2c``), or None."""
    if len(words) == 2 and words[0] in ("lead", "discard"):
        words = words[1:]
    if len(words) != 1:
        return None
    try:
        return card_from_text(words[0].upper())
    except ValueError:
        return None
