"""Networks built for cards (train/expert/shapes.py), their comparison on held-out labels (compare.py) and a
shaped network saved and played alone (shaped.py)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from newmarket_env import env as make_env  # noqa: E402
from newmarket_env.game.actions import NUM_ACTIONS  # noqa: E402
from newmarket_env.game.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS  # noqa: E402
from newmarket_env.game.rules import make_rules  # noqa: E402
from newmarket_env.observation.layout import FLAT_SIZE, NUM_CARD_PLANES  # noqa: E402
from newmarket_env.train.expert import compare  # noqa: E402
from newmarket_env.train.expert.shaped import ShapedAgent, load_shaped, save_shaped  # noqa: E402
from newmarket_env.train.expert.shapes import SHAPES, make_shape  # noqa: E402
from newmarket_env.train.hidden import OWNER_CLASSES  # noqa: E402


def _observations(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of real michigan decisions (random play at every seat)."""
    game = make_env(variant="michigan", num_players=4)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    game.reset(seed=seed)
    while len(obs) < count:
        for _agent in game.agent_iter():
            observation, _, terminated, truncated, _ = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            obs.append(observation["observation"].copy())
            masks.append(observation["action_mask"].astype(bool))
            game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            if len(obs) >= count:
                break
        game.reset()
    return np.array(obs, dtype=np.float32), np.array(masks)


def _swap_suits(obs: np.ndarray, a: int, b: int) -> np.ndarray:
    """The same observations with suits ``a`` and ``b`` exchanged in every card plane (card id = suit*13+rank)."""
    out = obs.copy()
    planes = out[:, : NUM_CARD_PLANES * NUM_CARDS].reshape(-1, NUM_CARD_PLANES, NUM_SUITS, NUM_RANKS)
    planes[:, :, [a, b]] = planes[:, :, [b, a]]
    return out


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_gives_79_logits_and_an_owner_guess_for_each_card(shape):
    torch.manual_seed(0)
    net = make_shape(shape).eval()
    obs, _ = _observations(6)
    with torch.no_grad():
        logits, owners = net.both(torch.as_tensor(obs))
        alone = net(torch.as_tensor(obs))
    assert logits.shape == (6, NUM_ACTIONS) and owners.shape == (6, NUM_CARDS, OWNER_CLASSES)
    assert torch.allclose(logits, alone, atol=1e-5)


def test_the_suit_encoder_is_shared_so_exchanging_two_suits_exchanges_their_suit_vectors():
    # With the per-suit identity at its initial zeros, one encoder reads every suit: exchanging two suits'
    # cards in the observation exchanges their vectors (the design's claim, on real observations); the MLP
    # reads each card at its own position, so its card logits do not simply move with the suit.
    torch.manual_seed(1)
    net = make_shape("suits").eval()
    obs, _ = _observations(8, seed=3)
    swapped = _swap_suits(obs, 0, 2)
    width = net.suit_id.shape[1]
    with torch.no_grad():
        before = net.encode(torch.as_tensor(obs))[0][:, :, :width].numpy()
        after = net.encode(torch.as_tensor(swapped))[0][:, :, :width].numpy()
    np.testing.assert_allclose(after[:, [2, 1, 0, 3]], before, atol=1e-5)
    assert not np.allclose(after, before, atol=1e-3)
    mlp = make_shape("mlp").eval()
    with torch.no_grad():
        a = mlp(torch.as_tensor(obs)).numpy()[:, :NUM_CARDS].reshape(-1, NUM_SUITS, NUM_RANKS)
        b = mlp(torch.as_tensor(swapped)).numpy()[:, :NUM_CARDS].reshape(-1, NUM_SUITS, NUM_RANKS)
    assert not np.allclose(b[:, [2, 1, 0, 3]], a, atol=1e-3)


def _labels(tmp_path, count: int):
    """A run folder of two label iterations where the teacher always takes the highest legal action id (its
    score 0, the lowest legal -1: the rest unscored)."""
    obs, masks = _observations(count, seed=5)
    legal = [np.flatnonzero(m) for m in masks]
    actions = np.array([ids[-1] for ids in legal])
    means = np.full((count, NUM_ACTIONS), np.nan)
    for i, ids in enumerate(legal):
        means[i, ids[0]] = -1.0
        means[i, ids[-1]] = 0.0
    half = count // 2
    (tmp_path / "labels").mkdir()
    for i, part in enumerate((slice(0, half), slice(half, count))):
        np.savez(
            tmp_path / "labels" / f"iter_{i:04d}.npz",
            obs=obs[part],
            masks=masks[part],
            actions=actions[part],
            means=means[part],
        )
    return obs[half:], masks[half:], actions[half:]


def test_compare_fits_each_shape_on_some_iterations_and_saves_what_plays_alone(tmp_path, capsys):
    held_obs, held_masks, held_actions = _labels(tmp_path, 1200)
    out = tmp_path / "scores.json"
    compare.main(
        [str(tmp_path), "--fit", "0", "--held-out", "1", "--shapes", "mlp,suits", "--epochs", "3",
         "--threads", "1", "--out", str(out), "--save", str(tmp_path / "nets")]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert "| mlp | 0 |" in printed and "| suits | 0 |" in printed
    for shape in ("mlp", "suits"):
        net = load_shaped(tmp_path / "nets" / f"{shape}_aux0.npz")
        # the saved network is the fitted one: its held-out agreement with the teacher, computed here from its
        # own logits, is the one compare wrote, and well above a random legal choice's
        choices = compare.greedy(net, held_obs, held_masks)
        agreement = float(np.mean(choices == held_actions))
        chance = float(np.mean([1 / m.sum() for m in held_masks]))
        assert agreement > chance + 0.2
        import json

        row = next(r for r in json.loads(out.read_text())["rows"] if r["shape"] == shape)
        assert row["epochs"][-1]["agreement"] == pytest.approx(agreement)


def test_a_saved_shaped_network_loads_as_the_same_function(tmp_path):
    torch.manual_seed(2)
    net = make_shape("suits").eval()
    save_shaped(net, "suits", tmp_path / "suits.npz")
    loaded = load_shaped(tmp_path / "suits.npz")
    obs = torch.as_tensor(_observations(4)[0])
    with torch.no_grad():
        assert torch.equal(net(obs), loaded(obs))


def test_a_file_that_is_not_a_shaped_network_is_refused_in_one_line(tmp_path):
    np.savez(tmp_path / "plain.npz", weights=np.zeros(3))
    with pytest.raises(ValueError, match="not a shaped network"):
        load_shaped(tmp_path / "plain.npz")
    np.savez(tmp_path / "unknown.npz", shape=np.array("hexagon"))
    with pytest.raises(ValueError, match="shape 'hexagon' is not allowed; allowed: mlp, cards, suits, attention"):
        load_shaped(tmp_path / "unknown.npz")
    torch.manual_seed(0)
    save_shaped(make_shape("mlp"), "mlp", tmp_path / "mlp.npz")
    with np.load(tmp_path / "mlp.npz") as data:
        arrays = dict(data)
    arrays["shape"] = np.array("suits")
    np.savez(tmp_path / "mislabelled.npz", **arrays)
    with pytest.raises(ValueError, match="does not fit the 'suits' network"):
        load_shaped(tmp_path / "mislabelled.npz")
    del arrays["head.bias"]
    arrays["shape"] = np.array("mlp")
    np.savez(tmp_path / "incomplete.npz", **arrays)
    with pytest.raises(ValueError, match=r"does not fit the 'mlp' network: no head\.bias$"):
        load_shaped(tmp_path / "incomplete.npz")
    np.savez(tmp_path / "pickled.npz", shape=np.array([{"code": 1}], dtype=object))
    with pytest.raises(ValueError, match="allow_pickle"):
        load_shaped(tmp_path / "pickled.npz")


def test_the_shaped_agent_plays_the_legal_action_of_its_highest_logit_in_a_real_game(tmp_path):
    torch.manual_seed(3)
    save_shaped(make_shape("suits"), "suits", tmp_path / "suits.npz")
    rules = make_rules("michigan", 4)
    agent = ShapedAgent(rules, seed=0, path=str(tmp_path / "suits.npz"))
    game = make_env(variant="michigan", num_players=4)
    game.reset(seed=11)
    decisions = 0
    for _agent in game.agent_iter():
        observation, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            game.step(None)
            continue
        action = agent.act(observation)
        logits = agent.logits(observation)
        legal = np.flatnonzero(observation["action_mask"])
        assert action in legal and logits[action] == logits[legal].max()
        game.step(action)
        decisions += 1
    assert decisions > 20
    with pytest.raises(ValueError, match="needs path="):
        ShapedAgent(rules)
    assert FLAT_SIZE == 936
