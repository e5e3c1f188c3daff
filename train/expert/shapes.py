"""Policy networks of several shapes for the same flat observation: the MLP the shipped agents use, and
networks built for cards, which read the 52 cards as a set or per suit.

The flat observation (``observation/layout.py``) starts with 16 planes of 52 cards (the own hand, the plays
of each relative seat, the cards known out of play, the last card, the boodle layout and values) and ends
with 104 scalars (chips, seats, phase, decision, rules). :func:`split` reshapes it into one row of 16
features per card and the scalars. Every shape maps a batch of observations ``(B, 936)`` to 79 logits;
the card actions (0-51) are the card ids, so a card's logit can come from that card's own encoding.

- ``mlp``: today's network (hidden layers over the flat vector).
- ``cards``: one encoder shared by the 52 cards (DeepSets): each card's features, its identity and the
  table's scalars make a card token; the tokens are pooled overall and per suit; a trunk over the pools
  and scalars gives the non-card logits, and each card's logit reads its own token with the trunk.
- ``suits``: one encoder shared by the four suits: each suit's 13 cards (their features, rank by rank)
  plus the scalars make a suit vector; a trunk over the four and the scalars; each card's logit comes
  from its suit's vector and the trunk through one layer shared by the suits (13 logits a suit).
- ``attention``: the 52 card tokens and one token of the scalars pass through transformer layers; each
  card's logit reads its token, the non-card logits the scalars' token.

Each can also predict where the hidden cards are (:mod:`newmarket_env.train.hidden`): :meth:`owner_logits`
gives ``(B, 52, OWNER_CLASSES)`` from the network's own representation, for an auxiliary loss.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from newmarket_env.observation.layout import FLAT_SIZE, NUM_CARD_PLANES, NUM_SCALARS
from newmarket_env.train.hidden import OWNER_CLASSES

SHAPES = ("mlp", "cards", "suits", "attention")
NON_CARD_ACTIONS = NUM_ACTIONS - NUM_CARDS  # keep, exchange, pass, bids, stakes
_ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def split(obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(B, 936)`` flat observations -> per-card features ``(B, 52, 16)`` and scalars ``(B, 104)``."""
    cards = obs[:, : NUM_CARD_PLANES * NUM_CARDS].reshape(-1, NUM_CARD_PLANES, NUM_CARDS).transpose(1, 2)
    return cards, obs[:, NUM_CARD_PLANES * NUM_CARDS :]


def _mlp(sizes: Sequence[int], activation: str, last_activation: bool = False) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2 or last_activation:
            layers.append(_ACTIVATIONS[activation]())
    return nn.Sequential(*layers)


class Shape(nn.Module):
    """A policy network of the flat observation: ``forward`` gives the 79 logits, ``both`` the logits and the
    owner logits ``(B, 52, OWNER_CLASSES)`` of the hidden cards from the same pass."""

    def both(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError


class MLPShape(Shape):
    """Hidden layers over the flat vector (the shipped agents' shape); owners from the last hidden layer."""

    def __init__(self, hidden: Sequence[int] = (256, 256), activation: str = "tanh") -> None:
        super().__init__()
        self.trunk = _mlp([FLAT_SIZE, *hidden], activation, last_activation=True)
        self.head = nn.Linear(hidden[-1], NUM_ACTIONS)
        self.owners = nn.Linear(hidden[-1], NUM_CARDS * OWNER_CLASSES)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.head(self.trunk(obs))

    def both(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and owner logits from one pass."""
        h = self.trunk(obs)
        return self.head(h), self.owners(h).reshape(-1, NUM_CARDS, OWNER_CLASSES)


class CardSetShape(Shape):
    """A shared per-card encoder, pooled overall and per suit; card logits from each card's own token."""

    def __init__(self, width: int = 64, hidden: int = 256) -> None:
        super().__init__()
        self.features = nn.Linear(NUM_CARD_PLANES, width)
        self.identity = nn.Embedding(NUM_CARDS, width)
        self.context = nn.Linear(NUM_SCALARS, width)
        self.token = _mlp([width, width, width], "relu", last_activation=True)
        self.trunk = _mlp([width * (1 + NUM_SUITS) + NUM_SCALARS, hidden, hidden], "relu", last_activation=True)
        # a card's logit: one hidden layer over its token and the trunk (the trunk's share computed once a row)
        self.card_token = nn.Linear(width, width)
        self.card_trunk = nn.Linear(hidden, width, bias=False)
        self.card_out = nn.Linear(width, 1)
        self.other_head = nn.Linear(hidden, NON_CARD_ACTIONS)
        self.owners = nn.Linear(width, OWNER_CLASSES)
        self.register_buffer("ids", torch.arange(NUM_CARDS), persistent=False)

    def encode(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        cards, scalars = split(obs)
        tokens = torch.relu(self.features(cards) + self.identity(self.ids) + self.context(scalars)[:, None, :])
        tokens = tokens + self.token(tokens)
        per_suit = tokens.reshape(-1, NUM_SUITS, NUM_RANKS, tokens.shape[-1]).mean(dim=2).flatten(1)
        h = self.trunk(torch.cat([tokens.mean(dim=1), per_suit, scalars], dim=1))
        return tokens, h

    def _logits(self, tokens: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.card_token(tokens) + self.card_trunk(h)[:, None, :])
        return torch.cat([self.card_out(hidden).squeeze(-1), self.other_head(h)], dim=1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self._logits(*self.encode(obs))

    def both(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        tokens, h = self.encode(obs)
        return self._logits(tokens, h), self.owners(tokens)


class SuitShape(Shape):
    """A shared per-suit encoder (a suit's 13 cards rank by rank, and the scalars); each suit's 13 card
    logits from its own vector and the trunk, through one layer the suits share."""

    def __init__(self, width: int = 128, hidden: int = 256) -> None:
        super().__init__()
        self.suit_id = nn.Parameter(torch.zeros(NUM_SUITS, width))
        self.suit = _mlp([NUM_RANKS * NUM_CARD_PLANES + NUM_SCALARS, width, width], "relu", last_activation=True)
        self.trunk = _mlp([NUM_SUITS * width + NUM_SCALARS, hidden, hidden], "relu", last_activation=True)
        self.card_head = _mlp([width + hidden, hidden, NUM_RANKS], "relu")
        self.other_head = nn.Linear(hidden, NON_CARD_ACTIONS)
        self.owners = nn.Linear(width + hidden, NUM_RANKS * OWNER_CLASSES)

    def encode(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        cards, scalars = split(obs)
        by_suit = cards.reshape(-1, NUM_SUITS, NUM_RANKS * NUM_CARD_PLANES)  # card id = suit * 13 + rank
        with_scalars = torch.cat([by_suit, scalars[:, None, :].expand(-1, NUM_SUITS, -1)], dim=2)
        suits = self.suit(with_scalars) + self.suit_id
        h = self.trunk(torch.cat([suits.flatten(1), scalars], dim=1))
        return torch.cat([suits, h[:, None, :].expand(-1, NUM_SUITS, -1)], dim=2), h

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        paired, h = self.encode(obs)
        return torch.cat([self.card_head(paired).flatten(1), self.other_head(h)], dim=1)

    def both(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        paired, h = self.encode(obs)
        logits = torch.cat([self.card_head(paired).flatten(1), self.other_head(h)], dim=1)
        return logits, self.owners(paired).reshape(-1, NUM_CARDS, OWNER_CLASSES)


class AttentionShape(Shape):
    """Transformer layers over the 52 card tokens and one token of the scalars."""

    def __init__(self, width: int = 64, layers: int = 2, heads: int = 4) -> None:
        super().__init__()
        self.features = nn.Linear(NUM_CARD_PLANES, width)
        self.identity = nn.Embedding(NUM_CARDS, width)
        self.context = nn.Linear(NUM_SCALARS, width)
        layer = nn.TransformerEncoderLayer(width, heads, 2 * width, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.card_head = nn.Linear(width, 1)
        self.other_head = _mlp([width, 2 * width, NON_CARD_ACTIONS], "relu")
        self.owners = nn.Linear(width, OWNER_CLASSES)
        self.register_buffer("ids", torch.arange(NUM_CARDS), persistent=False)

    def encode(self, obs: torch.Tensor) -> torch.Tensor:
        cards, scalars = split(obs)
        tokens = self.features(cards) + self.identity(self.ids)
        return self.encoder(torch.cat([self.context(scalars)[:, None, :], tokens], dim=1))

    def _logits(self, out: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.card_head(out[:, 1:]).squeeze(-1), self.other_head(out[:, 0])], dim=1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self._logits(self.encode(obs))

    def both(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.encode(obs)
        return self._logits(out), self.owners(out[:, 1:])


def make_shape(name: str) -> Shape:
    """A fresh network of the shape ``name`` (one of :data:`SHAPES`) at the sizes compared in the docs."""
    if name == "mlp":
        return MLPShape()
    if name == "cards":
        return CardSetShape()
    if name == "suits":
        return SuitShape()
    if name == "attention":
        return AttentionShape()
    raise ValueError(f"shape {name!r} is not allowed; allowed: {', '.join(SHAPES)}")


__all__ = ["SHAPES", "AttentionShape", "Shape", "CardSetShape", "MLPShape", "SuitShape", "make_shape", "split"]
