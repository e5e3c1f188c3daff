"""``render_mode="rgb_array"``: pictures of the table from the env and the single-agent view."""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env import env, raw_env
from newmarket_env.envs.single_agent import SingleAgentEnv
from newmarket_env.render.picture import HEIGHT, WIDTH


def _dealt(seed: int = 5) -> dict:
    """The cards of a Michigan deal; its dealer decides about the widow before any card is played."""
    e = raw_env(variant="michigan", num_players=4, num_deals=1)
    e.reset(seed=seed)
    dealt = e.unwrapped.game.deals[0]
    return {"dealer": dealt["dealer"], "hands": [list(h) for h in dealt["hands"]], "dead": list(dealt["dead"])}


def _picture(deal, all_hands=False):
    e = raw_env(variant="michigan", num_players=4, num_deals=1, render_mode="rgb_array", render_all_hands=all_hands)
    e.reset(seed=0, options={"deals": [deal]})
    assert e.game.decision.value == "widow" and not e.game.played
    return e.render(), e


def _swap(deal, a, b):
    hands = list(deal["hands"])
    hands[a], hands[b] = hands[b], hands[a]
    return {**deal, "hands": hands}


def _colours(frame: np.ndarray) -> int:
    """How many distinct colours a picture has (an RGB triple packed into one int, so unique is cheap)."""
    return len(np.unique(frame.reshape(-1, 3).astype(np.int32) @ np.array([65536, 256, 1], dtype=np.int32)))


def test_frames_are_uint8_pictures_of_one_size():
    e = env(variant="michigan", num_players=5, num_deals=1, render_mode="rgb_array")
    e.reset(seed=3)
    frames = []
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        frames.append(e.render())
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert all(f.shape == (HEIGHT, WIDTH, 3) and f.dtype == np.uint8 for f in frames)
    assert all(f.std() > 20 and _colours(f) > 20 for f in frames)


def test_the_acting_seat_sees_only_its_own_hand():
    """Two deals that differ only in hands the acting seat cannot see give the same picture."""
    deal = _dealt()
    seen, e = _picture(deal)
    viewer = int(e.agent_selection.split("_")[1])
    others = [s for s in range(4) if s != viewer and len(deal["hands"][s]) == 10]
    swapped = _swap(deal, others[0], others[1])
    assert swapped["hands"] != deal["hands"]
    seen_swapped, e2 = _picture(swapped)
    assert e2.agent_selection == e.agent_selection
    assert np.array_equal(seen, seen_swapped)
    # Drawing every hand shows the difference.
    assert not np.array_equal(_picture(deal, all_hands=True)[0], _picture(swapped, all_hands=True)[0])
    # And the acting seat's own hand is drawn: giving it another hand changes the picture.
    assert not np.array_equal(seen, _picture(_swap(deal, viewer, others[0]))[0])


@pytest.mark.parametrize(
    "make", [lambda mode: raw_env(render_mode=mode), lambda mode: SingleAgentEnv(render_mode=mode)]
)
def test_a_bad_render_mode_names_the_allowed_ones(make):
    with pytest.raises(ValueError) as err:
        make("rgb")
    assert "render_mode='rgb' is unknown; allowed: None" in str(err.value) and "'rgb_array'" in str(err.value)
    assert "\n" not in str(err.value)


def test_text_modes_are_unchanged():
    e = raw_env(render_mode="ansi")
    e.reset(seed=1)
    assert isinstance(e.render(), str) and "your hand" in e.render()


def test_single_agent_frames_and_gymnasium_video(tmp_path):
    gym_wrappers = pytest.importorskip("gymnasium.wrappers")
    e = SingleAgentEnv(num_players=4, opponents=["random"], render_mode="rgb_array", num_deals=1, seat=2)
    _obs, info = e.reset(seed=1)
    frame = e.render()
    assert frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
    pytest.importorskip("moviepy", reason="moviepy (dev extra) writes Gymnasium's videos")
    video = gym_wrappers.RecordVideo(e, str(tmp_path), episode_trigger=lambda episode: True, disable_logger=True)
    _obs, info = video.reset(seed=2)
    done = False
    while not done:
        _obs, _reward, term, trunc, info = video.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = term or trunc
    video.close()
    files = list(tmp_path.glob("*.mp4"))
    assert len(files) == 1 and files[0].stat().st_size > 1000
