"""A record told deal by deal in words (``newmarket replay FILE``): every hand as dealt, every event, what
the agents thought, the chips after each deal; paged with Enter between deals.

A record holds every hand as dealt and every event, so a replay shows everything: all hands, the dead
hand, every discard.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from newmarket_env.describe.events import chips_line, describe_events
from newmarket_env.describe.feed import deal_footer, deal_header
from newmarket_env.describe.summary import deal_summary, summary_lines
from newmarket_env.describe.thoughts import decisions_so_far, thought_lines
from newmarket_env.describe.words import Names, hand_text, seat_labels
from newmarket_env.game.rules import Rules


def record_names(record: Mapping[str, Any], rules: Rules) -> Names:
    """The seats of ``record`` named with their agents, when the record says who sat where."""
    return Names(rules.num_players, labels=seat_labels(record.get("agents")))


def _thoughts_of_deal(
    deals: list[Mapping[str, Any]], index: int, thoughts: list[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """The entries of a record's ``thoughts`` said during deal ``index`` (by their decision numbers)."""
    first = decisions_so_far(deals[:index])
    last = first + decisions_so_far(deals[index : index + 1])
    return [entry for entry in thoughts if first <= entry["decision"] < last]


def deal_lines(
    index: int,
    deals: list[Mapping[str, Any]],
    rules: Rules,
    before: list[int],
    names: Names | None = None,
    thoughts_said: list[Mapping[str, Any]] = (),  # type: ignore[assignment]
) -> list[str]:
    """Deal ``index`` of ``deals`` told in full: hands as dealt, events, what the agents thought (a record's
    ``thoughts``), the result, chips after it."""
    deal = deals[index]
    names = names or Names(rules.num_players)
    width = max(9, *(len(names(s)) for s in range(rules.num_players)))
    lines = [deal_header(index, deal, rules, names)]
    for seat, hand in enumerate(deal["hands"]):
        lines.append(f"  {names(seat):<{width}} {hand_text(hand, rules.ace_high)}")
    if deal["dead"]:
        lines.append(f"  {'dead hand':<{width}} {hand_text(deal['dead'], rules.ace_high)}")
    lines.extend("  " + line for line in describe_events(deal["events"], rules, names, reveal=True))
    thoughts = _thoughts_of_deal(deals, index, thoughts_said)
    if thoughts:
        lines.append("  what the agents thought (decisions counted from 1 in the session)")
        for entry in thoughts:
            said = thought_lines(entry, names)
            lines += [f"  decision {entry['decision'] + 1}:", *("  " + line for line in said)]
    if deal["chips"]:
        lines.extend(summary_lines(deal_summary(deals, index, rules), rules, names, reveal=True))
        lines.append(deal_footer(index, deal["chips"], before, names))
    else:
        lines.append(f"deal {index + 1} was not finished when the record was saved")
    return [*lines, ""]


class _Pager:
    """Waits for Enter between deals; ``q`` stops, the end of the input stops the waiting."""

    def __init__(self, step: bool, read: Callable[[str], str], write: Callable[[str], None]) -> None:
        self.step, self.read, self.write = step, read, write

    def go_on(self) -> bool:
        if not self.step:
            return True
        try:
            return self.read("-- Enter: next deal, q: quit -- ").strip().lower() not in ("q", "quit")
        except EOFError:  # no more input (a pipe, or Ctrl-D): show the rest without waiting
            self.write("")
            self.step = False
            return True


def show_record(
    record: Mapping[str, Any],
    rules: Rules,
    step: bool,
    read: Callable[[str], str],
    write: Callable[[str], None],
    only: int | None = None,
) -> None:
    """Write every deal (or deal number ``only``); with ``step``, wait for Enter between deals."""
    write(
        f"session record: variant {record['variant']}, {rules.num_players} players, "
        f"{len(record['deals'])} of {rules.num_deals} deal(s), aces {'high' if rules.ace_high else 'low'}, "
        f"boodles {' '.join(rules.boodles)}"
    )
    names = record_names(record, rules)
    if record.get("agents"):
        write("the players: " + ", ".join(names(s) for s in range(rules.num_players)))
    pager, shown = _Pager(step, read, write), 0
    before = [rules.starting_chips] * rules.num_players
    for index, deal in enumerate(record["deals"]):
        if only is None or index + 1 == only:
            if shown and not pager.go_on():
                return
            for line in deal_lines(index, record["deals"], rules, before, names, record.get("thoughts") or []):
                write(line)
            shown += 1
        before = list(deal["chips"]) or before
    final = record["deals"][-1]["chips"] if record["deals"] else []
    if final and only is None:
        start = [rules.starting_chips] * rules.num_players
        write(f"final balances (each started with {rules.starting_chips}): {chips_line(final, start, names)}")
