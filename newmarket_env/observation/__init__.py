"""Observation encodings: the layout (declared once) and the encoders built on it."""

from newmarket_env.observation.encode import ENCODINGS, encode_flat, flat_to_planes, static_part
from newmarket_env.observation.layout import FLAT_SIZE, PIECES, Piece

__all__ = ["ENCODINGS", "FLAT_SIZE", "PIECES", "Piece", "encode_flat", "flat_to_planes", "static_part"]
