"""The game's vocabulary, at the bottom of the package: the rules and presets (``rules``), cards as bits
(``cards``), the order of ranks (``order``) and the action ids (``actions``). It imports nothing above it."""
