"""An independent, slow, text-based model of docs/rules.md steps 6-9, to check the engine against.

It works on card texts and rank strings, not on the engine's bit masks and
tables, so a shared mistake is unlikely.
"""

from __future__ import annotations

RED = "DH"


def rank_order(ace_high: bool) -> str:
    return "23456789TJQKA" if ace_high else "A23456789TJQK"


def next_text(card: str, ace_high: bool) -> str | None:
    """The card after ``card`` in a run, or None after the top rank."""
    order = rank_order(ace_high)
    i = order.index(card[0])
    return None if i == len(order) - 1 else order[i + 1] + card[1]


def lowest(hand: set[str], suit: str, ace_high: bool) -> str | None:
    order = rank_order(ace_high)
    held = [c for c in hand if c[1] == suit]
    return min(held, key=lambda c: order.index(c[0])) if held else None


def lowest_of(hand: set[str], suits: str, ace_high: bool) -> set[str]:
    return {c for c in (lowest(hand, s, ace_high) for s in suits) if c}


def other_colour(suit: str) -> str:
    return "CS" if suit in RED else "DH"


def lead_options(
    rule: str, hands: list[set[str]], stopper: int, card: str, ace_high: bool, boodles: set[str]
) -> tuple[int | None, set[str]]:
    """(leader, cards they may lead) after ``stopper`` stopped on ``card``; leader None: blocked."""
    n, suit = len(hands), card[1]
    if rule == "lowest_any_suit":
        return stopper, lowest_of(hands[stopper], "CDHS", ace_high)
    if rule == "lowest_other_suit":
        others = lowest_of(hands[stopper], "CDHS".replace(suit, ""), ace_high)
        return stopper, others or lowest_of(hands[stopper], suit, ace_high)
    for k in range(n):
        seat = (stopper + k) % n
        if rule == "lowest_opposite_colour":
            found = lowest_of(hands[seat], other_colour(suit), ace_high)
        else:
            colour = {c for c in hands[seat] if c[1] in other_colour(suit)}
            found = (colour - boodles) or colour
        if found:
            return seat, found
    if rule == "lowest_opposite_colour":
        return stopper, lowest_of(hands[stopper], "CDHS", ace_high)
    return None, set()


def run(
    hands: list[set[str]], played: set[str], removed: set[str], seat: int, card: str, ace_high: bool
) -> tuple[list[tuple[int, str]], tuple]:
    """Plays of the run led by ``seat`` with ``card``, and ("out", seat) or ("stop", seat, card, next, cause)."""
    hands = [set(h) for h in hands]
    played = set(played)
    plays = []
    while True:
        hands[seat].discard(card)
        played.add(card)
        plays.append((seat, card))
        if not hands[seat]:
            return plays, ("out", seat)
        following = next_text(card, ace_high)
        if following is None:
            return plays, ("stop", seat, card, None, "top")
        holder = next((s for s, h in enumerate(hands) if following in h), None)
        if holder is None:
            cause = "removed" if following in removed else "played" if following in played else "dead"
            return plays, ("stop", seat, card, following, cause)
        seat, card = holder, following


def hands_at_play(deal: dict) -> list[set[str]]:
    """The hands when play starts: as dealt, less discards, after any widow exchange."""
    hands = [set(h) for h in deal["hands"]]
    dead = set(deal["dead"])
    for event in deal["events"]:
        if event["type"] == "discard":
            hands[event["seat"]].remove(event["card"])
            dead.add(event["card"])
        elif event["type"] == "widow" and event["choice"] in ("exchange", "buy"):
            hands[event["seat"]], dead = dead, hands[event["seat"]]
    return hands


def first_lead_options(rules, hands: list[set[str]], dealer: int) -> tuple[int, set[str]]:
    """docs/rules.md step 5: the lowest club (2 up, ace last) or eldest's lowest of any suit."""
    if rules.first_lead.value == "lowest_club":
        clubs = [r + "C" for r in "23456789TJQKA"]
        for card in clubs:
            holder = next((s for s, h in enumerate(hands) if card in h), None)
            if holder is not None:
                return holder, {card}
    eldest = (dealer + 1) % len(hands)
    return eldest, lowest_of(hands[eldest], "CDHS", rules.ace_high)


def check_deal_play(deal: dict, rules) -> None:
    """Every lead is one the rules allow, every run and its stop or out is the rules' own."""
    hands, played = hands_at_play(deal), set()
    events = [e for e in deal["events"] if e["type"] in ("play", "stop", "out", "blocked")]
    leader, options = first_lead_options(rules, hands, deal["dealer"])
    i = 0
    while i < len(events):
        lead = events[i]
        assert lead["type"] == "play" and lead["lead"] and lead["seat"] == leader and lead["card"] in options, (
            f"lead {lead} not allowed: {leader} may lead {sorted(options)}"
        )
        plays, end = run(hands, played, set(rules.removed_cards), leader, lead["card"], rules.ace_high)
        got = [(e["seat"], e["card"]) for e in events[i : i + len(plays)] if e["type"] == "play"]
        assert got == plays and not any(e.get("lead") for e in events[i + 1 : i + len(plays)])
        for seat, card in plays:
            hands[seat].discard(card)
            played.add(card)
        finish, i = events[i + len(plays)], i + len(plays) + 1
        if end[0] == "out":
            assert finish == {"type": "out", "seat": end[1]} and i == len(events)
            return
        assert tuple(finish.get(k) for k in ("type", "seat", "card", "next", "cause")) == end, (
            f"{finish} is not the rules' {end}"
        )
        leader, options = lead_options(
            rules.lead_after_stop.value, hands, end[1], end[2], rules.ace_high, set(rules.boodles)
        )
        if leader is None:
            assert events[i:] == [{"type": "blocked", "seat": end[1]}]
            return
    raise AssertionError("the deal's play ended with neither an out nor a block")
