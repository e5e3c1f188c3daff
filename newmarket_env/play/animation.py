"""A session record as an animated GIF (``newmarket replay FILE --gif OUT``).

One frame before the first decision and one after each decision, every hand
and the dead hand shown, drawn by :mod:`newmarket_env.render.picture` (Pillow writes
the GIF). The file is written under a temporary name and then renamed, so a
failed run leaves no half-written animation.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from newmarket_env.describe.scene import scene
from newmarket_env.engine.record import replay_steps
from newmarket_env.render.picture import pillow, scene_picture


def record_frames(record: Mapping[str, Any], only_deal: int | None = None) -> list:
    """The pictures of ``record`` (of deal ``only_deal`` alone, counted from 1, when given)."""
    frames = []
    for game in replay_steps(record):
        view = scene(game, reveal=True, ask=False)
        if only_deal is None or view["deal"] == only_deal:
            frames.append(scene_picture(view))
    return frames


def write_gif(record: Mapping[str, Any], path: str, frame_ms: int = 700, only_deal: int | None = None) -> int:
    """Write the animation to ``path``; returns the number of frames."""
    Image, _ = pillow()
    frames = [Image.fromarray(frame) for frame in record_frames(record, only_deal)]
    if not frames:
        raise ValueError("the record has no frames to draw")
    temporary = f"{path}.part"
    try:
        # The last frame stays up longer, so the final balances can be read before the loop restarts.
        durations = [frame_ms] * (len(frames) - 1) + [frame_ms * 5]
        frames[0].save(
            temporary, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0, optimize=False
        )
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return len(frames)
