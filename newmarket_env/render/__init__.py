"""The table drawn for one viewer: as text (``text``, ``render_mode="ansi"``/``"human"``) and as an RGB
picture (``picture``, ``render_mode="rgb_array"``, ``newmarket replay --gif``). Both draw from ``describe``."""
