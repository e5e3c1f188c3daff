"""The page's icon, ``/favicon.ico``: a card on the felt, drawn here (no image file, no Pillow needed).

Browsers ask for ``/favicon.ico`` by themselves; without it every page load logs a 404. The icon is a
32 x 32 PNG inside an ICO container (a PNG entry is valid ICO since Windows Vista, and every browser
reads it).

>>> favicon()[:4] == b"\\x00\\x00\\x01\\x00"  # an ICO header: reserved 0, type 1 (icon)
True
"""

from __future__ import annotations

import struct
import zlib
from functools import cache

SIZE = 32
FELT, CARD, RED, EDGE = (31, 107, 58, 255), (255, 253, 247, 255), (192, 38, 45, 255), (0, 0, 0, 0)


def _pixel(x: int, y: int) -> tuple[int, int, int, int]:
    """The icon at pixel (x, y): a red diamond on a card, on a round felt."""
    centre = (SIZE - 1) / 2
    if (x - centre) ** 2 + (y - centre) ** 2 > (SIZE / 2) ** 2:
        return EDGE
    if not (8 <= x <= 23 and 4 <= y <= 27):
        return FELT
    return RED if abs(x - centre) / 6 + abs(y - centre) / 9 <= 1 else CARD


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png() -> bytes:
    """The icon as a PNG (8-bit RGBA, no interlace)."""
    rows = b"".join(b"\x00" + bytes(v for x in range(SIZE) for v in _pixel(x, y)) for y in range(SIZE))
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows)) + _chunk(b"IEND", b"")


@cache
def favicon() -> bytes:
    """The icon as an ICO file holding one 32 x 32 PNG entry."""
    image = png()
    directory = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", SIZE, SIZE, 0, 0, 1, 32, len(image), len(directory) + 16)
    return directory + entry + image
