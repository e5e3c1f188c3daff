"""Pictures of the table: ``render_mode="rgb_array"`` frames and ``newmarket replay --gif``.

A picture draws a :func:`~newmarket_env.describe.scene.scene` (the same data the
web page draws), so it shows exactly what that scene's viewer may know: one
seat's hand, or every hand and the dead hand when ``reveal`` is set. It is
``HEIGHT x WIDTH x 3`` ``uint8``, the same size at every step, as video
recorders need. Pillow is imported only when a picture is drawn (the ``render``
or ``web`` extra: ``pip install "newmarket-env[render]"``).

>>> from newmarket_env.engine.game import Game
>>> from newmarket_env.game.rules import make_rules
>>> frame = table_picture(Game(make_rules("newmarket"), seed=1), viewer=0)
>>> frame.shape, frame.dtype.name
((640, 960, 3), 'uint8')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from typing import Any

import numpy as np

from newmarket_env.describe.scene import scene

HEIGHT, WIDTH = 640, 960
FELT, FELT_DARK, PAPER, INK, RED, GOLD, BACK = (
    (31, 107, 58),
    (20, 72, 39),
    (255, 253, 247),
    (27, 27, 27),
    (192, 38, 45),
    (242, 193, 78),
    (36, 74, 143),
)
WHITE = (255, 255, 255)
CARD_W, CARD_H = 26, 36
RENDER_HINT = 'pip install "newmarket-env[render]"'


def table_picture(
    game, viewer: int | None = None, reveal: bool = False, labels: Mapping[int, str] | None = None
) -> np.ndarray:
    """The table of ``game`` from ``viewer``'s seat (every hand with ``reveal``), as an RGB array."""
    return scene_picture(scene(game, viewer, reveal, labels, ask=False))


def scene_picture(view: Mapping[str, Any]) -> np.ndarray:
    """A scene drawn as an ``HEIGHT x WIDTH x 3`` uint8 array."""
    Image, ImageDraw = pillow()
    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, HEIGHT - 92, WIDTH, HEIGHT), fill=FELT_DARK)
    _label(image, (12, 8), _status(view), 18)
    _draw_layout(image, draw, view["layout"], top=36)
    bottom = _draw_seats(image, draw, view["seats"], top=132)
    bottom = _draw_played(image, draw, view["played"], top=bottom + 8)
    _draw_facts(image, draw, view, top=bottom + 6)
    for i, line in enumerate(view["log"][-4:]):
        _label(image, (12, HEIGHT - 86 + 21 * i), _clip(line, 120), 14)  # a line recurs as the log scrolls
    return np.asarray(image, dtype=np.uint8)


def pillow():
    """Pillow's ``Image`` and ``ImageDraw``, or a one-line error naming the extra to install."""
    try:
        from PIL import Image, ImageDraw  # optional (the render extra): imported only to draw
    except ModuleNotFoundError:
        raise ModuleNotFoundError(f"pictures of the table need Pillow: {RENDER_HINT}", name="PIL") from None
    return Image, ImageDraw


@cache
def _font(size: int):
    from PIL import ImageFont  # optional: needs Pillow (render extra)

    try:
        return ImageFont.load_default(size=size)  # a scalable font (Pillow >= 10.1 with FreeType)
    except (TypeError, ImportError, OSError):
        return ImageFont.load_default()


def _text(draw, xy, text: str, size: int, fill=WHITE) -> None:
    draw.text(xy, text, font=_font(size), fill=fill)


def _label(image, xy, text: str, size: int, fill=WHITE) -> None:
    """A short text that recurs from frame to frame (names, suits, chip counts), drawn once and pasted."""
    tile = _label_tile(text, size, fill)
    image.paste(tile, xy, tile)


@lru_cache(maxsize=1024)  # at most a few tens of MB: log lines are the widest tiles
def _label_tile(text: str, size: int, fill):
    Image, ImageDraw = pillow()
    font = _font(size)
    _left, _top, right, bottom = font.getbbox(text)
    tile = Image.new("RGBA", (max(1, right) + 1, max(1, bottom) + 1), (0, 0, 0, 0))
    ImageDraw.Draw(tile).text((0, 0), text, font=font, fill=fill)
    return tile


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _status(view: Mapping[str, Any]) -> str:
    if view["over"]:
        return f"session over after {view['num_deals']} deal(s)"
    who = ""
    if view["to_act"] is not None:
        who = f"  -  {view['seats'][view['to_act']]['name']} to decide"
    return f"deal {view['deal']} of {view['num_deals']}  -  {view['phase']}{who}"


# ---------------------------------------------------------------- cards
def _card(image, x: int, y: int, text: str | None, scale: float = 1.0) -> None:
    """A card face (rank and a drawn suit symbol) or, for ``None``, a card back."""
    tile = _card_tile(text, scale)
    image.paste(tile, (x, y), tile)


@cache
def _card_tile(text: str | None, scale: float):
    """One card drawn once (text is the slow part of a picture), pasted wherever it lies; RGBA corners."""
    Image, ImageDraw = pillow()
    w, h = int(CARD_W * scale), int(CARD_H * scale)
    tile = Image.new("RGBA", (w + 1, h + 1), (0, 0, 0, 0))
    draw = ImageDraw.Draw(tile)
    if text is None:
        draw.rounded_rectangle((0, 0, w, h), radius=3, fill=BACK, outline=WHITE)
        return tile
    colour = RED if text[1] in "DH" else INK
    draw.rounded_rectangle((0, 0, w, h), radius=3, fill=PAPER, outline=(150, 150, 150))
    rank = "10" if text[0] == "T" else text[0]
    _text(draw, (3, 2), rank, int(13 * scale), colour)
    _suit(draw, w // 2, int(h * 0.68), int(6 * scale), text[1], colour)
    return tile


def _suit(draw, cx: int, cy: int, r: int, suit: str, colour) -> None:
    """Suit symbols as shapes: the default font has no suit glyphs."""
    if suit == "D":
        draw.polygon([(cx, cy - r), (cx + r * 0.75, cy), (cx, cy + r), (cx - r * 0.75, cy)], fill=colour)
        return
    half = r / 2
    if suit in "HS":
        sign = 1 if suit == "H" else -1  # a spade is a heart upside down, with a stem
        lobes_y = cy - sign * half * 0.6
        for dx in (-half, half):
            draw.ellipse((cx + dx - half, lobes_y - half, cx + dx + half, lobes_y + half), fill=colour)
        draw.polygon([(cx - r, lobes_y + sign * 1), (cx + r, lobes_y + sign * 1), (cx, cy + sign * r)], fill=colour)
    else:  # clubs: three leaves
        for dx, dy in ((0, -half), (-half, half * 0.4), (half, half * 0.4)):
            draw.ellipse((cx + dx - half, cy + dy - half, cx + dx + half, cy + dy + half), fill=colour)
    if suit in "SC":
        draw.polygon([(cx, cy), (cx - half * 0.8, cy + r), (cx + half * 0.8, cy + r)], fill=colour)


def _row_of_cards(image, x: int, y: int, cards: Iterable[str | None], step: int, scale: float = 1.0) -> None:
    for i, card in enumerate(cards):
        _card(image, x + i * step, y, card, scale)


# ---------------------------------------------------------------- parts of the table
def _draw_layout(image, draw, layout: Mapping[str, Any], top: int) -> None:
    """The boodle cards with their stacks, and the pot."""
    boodles = layout["boodles"]
    x0 = WIDTH // 2 - (len(boodles) * 70 + 90) // 2
    for i, boodle in enumerate(boodles):
        x = x0 + i * 70
        _card(image, x + 8, top, boodle["card"], scale=1.45)
        _chips(image, draw, x + 27, top + 66, boodle["chips"])
    cx, cy = x0 + len(boodles) * 70 + 45, top + 40
    draw.ellipse((cx - 38, cy - 38, cx + 38, cy + 38), outline=WHITE, width=2)
    _label(image, (cx - 11, cy - 22), "pot", 13)
    _chips(image, draw, cx, cy + 8, layout["pot"])


def _chips(image, draw, cx: int, cy: int, amount: int) -> None:
    label = str(amount)
    width = 10 + 8 * len(label)
    draw.rounded_rectangle((cx - width // 2, cy - 9, cx + width // 2, cy + 9), radius=9, fill=GOLD)
    _label(image, (cx - 4 * len(label), cy - 8), label, 14, (58, 42, 0))


def _draw_seats(image, draw, seats: Sequence[Mapping[str, Any]], top: int) -> int:
    """Two columns of seat boxes: name, chips, cards; the hand face up when known, else backs."""
    box_w, box_h = WIDTH // 2 - 18, 62
    for i, seat in enumerate(seats):
        x, y = 12 + (i % 2) * (box_w + 12), top + (i // 2) * (box_h + 6)
        draw.rounded_rectangle(
            (x, y, x + box_w, y + box_h),
            radius=6,
            fill=FELT_DARK,
            outline=GOLD if seat["to_act"] else FELT_DARK,
            width=3,
        )
        name = seat["name"] + ("  [dealer]" if seat["dealer"] else "")
        _label(image, (x + 8, y + 4), _clip(name, 40), 14)
        _label(
            image,
            (x + box_w - 150, y + 4),
            f"{seat['cards']:>2} card{'s' * (seat['cards'] != 1)}  {seat['chips']:>3} chips",
            14,
        )
        hand = seat["hand"] if seat["hand"] is not None else [None] * seat["cards"]
        step = min(CARD_W + 2, (box_w - 16 - CARD_W) // max(1, len(hand) - 1)) if len(hand) > 1 else CARD_W
        _row_of_cards(image, x + 8, y + 22, hand, step)
    rows = (len(seats) + 1) // 2
    return top + rows * (box_h + 6)


def _draw_played(image, draw, played: Sequence[Mapping[str, Any]], top: int) -> int:
    """The cards played this deal, a row per suit, two suits per line."""
    col_w = WIDTH // 2 - 18
    for i, row in enumerate(played):
        x, y = 12 + (i % 2) * (col_w + 12), top + (i // 2) * 34
        _label(image, (x, y + 8), row["suit"], 13)
        _row_of_cards(image, x + 64, y, row["cards"], 23, scale=0.85)
    return top + 2 * 34


def _draw_facts(image, draw, view: Mapping[str, Any], top: int) -> None:
    last = view["last"]
    if last:
        line = f"last card {last['card']} by {last['by']}" + (
            f"  -  the run stopped: {last['stop']}" if last["stop"] else ""
        )
        _text(draw, (12, top), _clip(line, 110), 14)
    if view["dead"] is not None:
        _label(image, (12, top + 22), "dead hand", 14)
        _row_of_cards(image, 90, top + 20, view["dead"], 18, scale=0.7)
    elif view["known_dead"]:
        _text(draw, (12, top + 22), _clip("known dead: " + " ".join(view["known_dead"]), 110), 14)
