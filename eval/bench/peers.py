"""Peer workloads: PettingZoo classic texas_holdem_v4 and connect_four_v3, OpenSpiel hearts.

Each peer is driven like ours (a random legal action at every decision, one
episode per session) and returns ``None`` with a note when its package is
missing, so the benchmark still runs.
"""

from __future__ import annotations

import importlib
import random

from newmarket_env.eval.bench.drivers import aec_random_player
from newmarket_env.eval.bench.timing import SessionPlayer

PEER_NAMES = (
    "texas_holdem_v4",
    "texas_holdem_v4 4p",
    "texas_holdem_v4 unseeded",
    "texas_holdem_v4 4p unseeded",
    "connect_four_v3",
    "hearts",
    "hearts+tensor",
)
UNSEEDED = " unseeded"  # the suffix of the rows whose sessions start with reset() instead of reset(seed)
PeerWorkload = tuple["SessionPlayer | None", str]  # (player or None when unavailable, note)


def classic_env_maker(name: str, **kwargs):
    """A maker of PettingZoo's classic env ``name`` (wrapped as its docs make it); ImportError when missing."""
    try:
        from pettingzoo import make  # the registry API (PettingZoo >= 1.25)
    except ImportError:
        module = importlib.import_module(f"pettingzoo.classic.{name}")
        return lambda: module.env(**kwargs)
    try:
        make("aec", f"classic/{name}", **kwargs)  # import errors (rlcard, pygame) show here, before any timing
    except Exception as err:
        # The registry wraps a missing dependency in its own FailedToImport, not an ImportError.
        if type(err).__name__ != "FailedToImport":
            raise
        raise ImportError(str(err).split(". You may need")[0]) from err
    return lambda: make("aec", f"classic/{name}", **kwargs)


def classic_peer(name: str, note: str, seeded: bool = True, **kwargs) -> PeerWorkload:
    """A PettingZoo classic env driven at random, or a skip note when its packages are missing."""
    try:
        maker = classic_env_maker(name, **kwargs)
    except ImportError as err:
        return None, f"skipped: {err} (pip install 'newmarket-env[bench]')"
    return aec_random_player(maker, seeded), note if seeded else f"{note}; reset() without a seed"


def texas_holdem(seeded: bool = True) -> PeerWorkload:
    """PettingZoo classic Texas Hold'em (limit, 2 players; needs rlcard and pygame)."""
    return classic_peer("texas_holdem_v4", "PettingZoo classic, rlcard, 2 players; session = one hand", seeded)


def texas_holdem_4p(seeded: bool = True) -> PeerWorkload:
    """The same Hold'em at 4 players: longer hands, so less reset cost per decision than 2 players."""
    note = "PettingZoo classic, rlcard, 4 players; session = one hand"
    return classic_peer("texas_holdem_v4", note, seeded, num_players=4)


def connect_four() -> PeerWorkload:
    """PettingZoo classic Connect Four (numpy; needs pygame)."""
    return classic_peer("connect_four_v3", "PettingZoo classic, 2 players; session = one game")


def hearts(with_tensor: bool) -> PeerWorkload:
    """OpenSpiel hearts played at random through pyspiel (C++), optionally building the info-state tensor."""
    try:
        import pyspiel  # optional: needs OpenSpiel (spiel extra)
    except ImportError as err:
        return None, f"skipped: {err} (pip install open-spiel)"
    game = pyspiel.load_game("hearts")

    def play(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            if with_tensor:
                state.information_state_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
        return decisions

    what = "with information_state_tensor" if with_tensor else "no tensors"
    return play, f"OpenSpiel C++ via pyspiel, 4 players, {what}; session = one deal"


PEERS = {
    "texas_holdem_v4": texas_holdem,
    "texas_holdem_v4 4p": texas_holdem_4p,
    "texas_holdem_v4 unseeded": lambda: texas_holdem(seeded=False),
    "texas_holdem_v4 4p unseeded": lambda: texas_holdem_4p(seeded=False),
    "connect_four_v3": connect_four,
    "hearts": lambda: hearts(False),
    "hearts+tensor": lambda: hearts(True),
}
