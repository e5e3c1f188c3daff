"""Turning command-line text into rules overrides and agent lists.

>>> parse_setting("num_deals=1")
('num_deals', 1)
>>> parse_setting("boodles=AS,KS,QS,JS")
('boodles', ('AS', 'KS', 'QS', 'JS'))
>>> parse_setting("ace_high=yes"), parse_setting("widow=dealer_buy")
(('ace_high', True), ('widow', 'dealer_buy'))
>>> parse_setting("removed_cards=")
('removed_cards', ())
"""

from __future__ import annotations

from newmarket_env.game.rules import PARAMETER_NAMES

CARD_LISTS = ("boodles", "removed_cards")
_TRUE, _FALSE = ("true", "yes", "on"), ("false", "no", "off")


def parse_setting(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` as a rules override; ints, booleans and card lists are converted."""
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key:
        raise ValueError(f"--set {text!r} is not KEY=VALUE, e.g. --set num_deals=1")
    if key == "num_players":
        raise ValueError("--set num_players: give the number of players with --players instead")
    if key not in PARAMETER_NAMES:
        raise ValueError(f"--set {key}: unknown rules parameter; allowed: {', '.join(PARAMETER_NAMES)}")
    if key in CARD_LISTS:
        return key, tuple(card.strip() for card in raw.split(",") if card.strip())
    if raw.lower() in _TRUE + _FALSE:
        return key, raw.lower() in _TRUE
    try:
        return key, int(raw)
    except ValueError:
        return key, raw


def parse_settings(texts: list[str] | None) -> dict[str, object]:
    """All ``--set`` options; a key given twice is an error rather than a silent overwrite."""
    out: dict[str, object] = {}
    for text in texts or []:
        key, value = parse_setting(text)
        if key in out:
            raise ValueError(f"--set {key} is given twice")
        out[key] = value
    return out


def parse_agents(text: str) -> list[str]:
    """``random,random`` -> ``['random', 'random']``."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise ValueError(f"--agents {text!r} has an empty name; give names separated by commas, e.g. random,random")
    return names
