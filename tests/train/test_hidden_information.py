"""Training with what the players cannot see (train/hidden.py, train/ppo/privileged.py, the auxiliary heads of
expert iteration and Deep Monte-Carlo), and playing without it: the targets match the engine, each method
runs through the run loop, a resumed run equals an uninterrupted one, and the saved networks read the
observation only and load with no pickle."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from newmarket_env import env, load_agent
from newmarket_env.engine.choice import compiled_available
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.state_layout import STATE_SIZE
from newmarket_env.train.cli import main
from newmarket_env.train.hidden import DEAD, NOT_HIDDEN, hidden_owners
from tests.agents import test_privileged_state_unread as unread

pytestmark = pytest.mark.skipif(not compiled_available(), reason="needs the compiled engine")
state_reads = unread.state_reads  # the fixture that traps every way to the privileged state

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
QUIET = ["--no-progress", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]


def _owners_from_the_engine(game, seat: int) -> list[int]:
    """Where each card hidden from ``seat`` is, read from the engine's own sets (not from the state)."""
    n, out = game.n, []
    for card in range(52):
        bit = 1 << card
        seen = game.hands[seat] | game.played | game.public_dead | game.known_dead[seat]
        holder = [s for s in range(n) if game.hands[s] & bit]
        if seen & bit:
            out.append(NOT_HIDDEN)
        elif holder:
            out.append((holder[0] - seat) % n)
        elif game.dead & bit:
            out.append(DEAD)
        else:
            out.append(NOT_HIDDEN)
    return out


@pytest.mark.parametrize("variant", ["newmarket", "michigan", "newbury"])
def test_the_hidden_cards_owners_are_where_the_engine_holds_them(variant):
    from newmarket_env.engine._fast import FastGame
    from newmarket_env.observation._state import encode_state_game
    from newmarket_env.observation.state import state_static_part

    rules = make_rules(variant, 4)
    static = state_static_part(rules)
    state = np.empty(STATE_SIZE, dtype=np.float32)
    rng = np.random.default_rng(3)
    checked = hidden_seen = 0
    for seed in range(4):
        game = FastGame(rules, seed=seed, record_events=False)
        while not game.over:
            seat = game.to_act
            for viewer in range(4):  # every seat's view, not only the one to act
                encode_state_game(game, viewer, state, static)
                got = hidden_owners(state[None])[0].tolist()
                assert got == _owners_from_the_engine(game, viewer)
                hidden_seen += sum(o != NOT_HIDDEN for o in got)
                checked += 1
            assert seat == game.to_act
            game.apply(int(rng.choice(game.legal)))
    assert checked > 200 and hidden_seen > 1000


def _collected(by: str):
    """120 michigan decisions with their owners, recorded by expert iteration's tables or DMC's actor."""
    rules = make_rules("michigan", 4)
    if by == "expert":
        from newmarket_env.train.collect import collect_states

        return collect_states(rules, None, "control", [], 0.0, tables=4, count=120, seed=5, reward_scale=0.1)
    from newmarket_env.train.dmc.actor import Actor

    actor = Actor(rules, 4, ["control"], 0.5, 0.1, [16], "relu", "dense", with_owners=True)
    return actor.collect(120, seed=5, epsilon=0.5)


@pytest.mark.parametrize("by", ["expert", "dmc"])
def test_collected_decisions_keep_their_owners_and_only_unseen_cards_are_targets(by):
    from newmarket_env.observation.layout import offsets

    got = _collected(by)
    assert got.owners.shape == (120, 52) and got.owners.dtype == np.int8
    at = offsets()
    seen = got.obs[:, at["hand"]] + got.obs[:, at["played_by"]].reshape(-1, 8, 52).sum(axis=1)
    seen += got.obs[:, at["known_dead"]]
    hidden = got.owners != NOT_HIDDEN
    assert not (hidden & (seen > 0)).any()  # a card the seat sees is never a target
    assert hidden.sum(axis=1).min() > 0
    # every other seat holds exactly the hidden cards counted for it (michigan: no card of another seat is known)
    counts = np.rint(got.obs[:, at["card_counts"]] * 13).astype(int)
    for k in (1, 2, 3):
        np.testing.assert_array_equal((got.owners == k).sum(axis=1), counts[:, k])


# ---------------------------------------------------------------- the auxiliary head of expert iteration


def test_the_owners_head_learns_where_the_cards_are_and_weight_zero_leaves_it_alone():
    import torch

    from newmarket_env.train.collect import collect_states
    from newmarket_env.train.expert.fit import fit
    from newmarket_env.train.expert.label import policy_targets
    from newmarket_env.train.expert.network import PolicyValueNet, owners_loss

    rules = make_rules("michigan", 4)
    data = collect_states(rules, None, "control", [], 0.0, tables=8, count=600, seed=2, reward_scale=0.1)
    means = np.full((len(data.actions), 79), np.nan)
    means[np.arange(len(data.actions)), data.actions] = 0.0
    targets = policy_targets(data.actions, means, "softmax", 1.0)

    def loss_of(net):
        with torch.no_grad():
            _, logits = net.policy_and_owners(torch.as_tensor(data.obs))
            return float(owners_loss(logits, torch.as_tensor(data.owners)))

    losses = {}
    for weight in (0.0, 1.0):
        torch.manual_seed(0)
        net = PolicyValueNet([64], "tanh", owners_head=True)
        head_before = net.owners.weight.detach().clone()
        optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
        before = loss_of(net)
        fit(
            net,
            optimizer,
            data.obs,
            data.masks,
            targets,
            data.returns,
            8,
            64,
            0.5,
            1,
            owners=data.owners,
            aux_weight=weight,
        )
        losses[weight] = (before, loss_of(net))
        if weight == 0:
            assert torch.equal(net.owners.weight, head_before)  # no loss reaches the head
    assert losses[1.0][1] < 0.8 * losses[1.0][0]


def _progress(path: Path, columns: tuple[str, ...]) -> list[list[str]]:
    with open(path, newline="") as handle:
        return [[row[k] for k in columns] for row in csv.DictReader(handle)]


def _same_layers(a: Path, b: Path) -> None:
    from newmarket_env.agents.saved import read_saved

    for (w1, b1), (w2, b2) in zip(read_saved(a)[1], read_saved(b)[1], strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)


def test_expert_iteration_with_the_owners_head_resumes_as_it_would_have_run(tmp_path):
    config = str(CONFIGS / "tiny_exit.yaml")
    common = [config, *QUIET, "--set", "expert.aux_weight=1.0"]
    assert main([*common, "--out-dir", str(tmp_path / "whole"), "--total-steps", "144"]) == 0
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "48"]) == 0
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "144", "--resume"]) == 0
    _same_layers(tmp_path / "whole" / "final.npz", tmp_path / "parts" / "final.npz")
    columns = ("steps", "policy_loss", "aux_loss", "agreement")
    rows = _progress(tmp_path / "whole" / "progress.csv", columns)
    assert rows == _progress(tmp_path / "parts" / "progress.csv", columns)
    assert all(float(row[2]) > 0 for row in rows)  # the auxiliary loss was computed and logged


# ---------------------------------------------------------------- the auxiliary head of Deep Monte-Carlo


def test_dmc_with_the_owners_head_resumes_as_it_would_have_run(tmp_path):
    import torch

    config = str(CONFIGS / "tiny_dmc.yaml")
    common = [config, *QUIET, "--set", "dmc.aux_weight=1.0"]
    assert main([*common, "--out-dir", str(tmp_path / "whole"), "--total-steps", "192"]) == 0
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "64"]) == 0
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "192", "--resume"]) == 0
    _same_layers(tmp_path / "whole" / "final.npz", tmp_path / "parts" / "final.npz")
    state = torch.load(tmp_path / "whole" / "checkpoints" / "dmc_192_steps.pt", weights_only=True)
    resumed = torch.load(tmp_path / "parts" / "checkpoints" / "dmc_192_steps.pt", weights_only=True)
    assert torch.equal(state["owners"]["weight"], resumed["owners"]["weight"])  # the head resumed too
    plain = tmp_path / "plain"
    assert main([config, *QUIET, "--out-dir", str(plain), "--total-steps", "192"]) == 0
    with pytest.raises(AssertionError):  # the auxiliary loss changes what the network learns
        _same_layers(tmp_path / "whole" / "final.npz", plain / "final.npz")


# ---------------------------------------------------------------- PPO with the privileged state


def _policy(critic_state: bool, oracle: bool):
    import gymnasium
    import torch

    from newmarket_env.train.ppo.privileged import PrivilegedPolicy

    space = gymnasium.spaces.Box(-np.inf, np.inf, (FLAT_SIZE + STATE_SIZE,), np.float32)
    torch.manual_seed(0)
    return PrivilegedPolicy(
        space,
        gymnasium.spaces.Discrete(79),
        lambda _: 1e-3,
        net_arch={"pi": [16], "vf": [16]},
        critic_state=critic_state,
        oracle=oracle,
    )


def _outputs(policy, inputs):
    import torch

    with torch.no_grad():
        x = torch.as_tensor(inputs)
        return policy.get_distribution(x).distribution.logits.numpy(), policy.predict_values(x).numpy()


@pytest.mark.parametrize("critic_state", [True, False])
def test_the_critic_reads_the_state_only_when_asked_and_the_actor_never_without_the_oracle(critic_state):
    policy = _policy(critic_state=critic_state, oracle=False)
    rng = np.random.default_rng(0)
    inputs = rng.random((4, FLAT_SIZE + STATE_SIZE), dtype=np.float32)
    moved = inputs.copy()
    moved[:, FLAT_SIZE:] = rng.random((4, STATE_SIZE), dtype=np.float32)  # other hidden cards, same view
    logits, values = _outputs(policy, inputs)
    logits2, values2 = _outputs(policy, moved)
    np.testing.assert_array_equal(logits, logits2)
    assert (not np.allclose(values, values2)) == critic_state


def test_the_oracle_inputs_weigh_what_the_fade_says():
    from newmarket_env.train.export import policy_layers
    from newmarket_env.train.ppo.privileged import oracle_weight

    policy = _policy(critic_state=True, oracle=True)
    rng = np.random.default_rng(1)
    inputs = rng.random((4, FLAT_SIZE + STATE_SIZE), dtype=np.float32)
    moved = inputs.copy()
    moved[:, FLAT_SIZE:] = 0.0
    assert not np.allclose(_outputs(policy, inputs)[0], _outputs(policy, moved)[0])  # weight 1: it reads them
    policy.set_oracle_weight(oracle_weight(600, 1000, 0.2, 0.6))  # faded out
    np.testing.assert_array_equal(_outputs(policy, inputs)[0], _outputs(policy, moved)[0])

    class Model:  # export reads model.policy
        pass

    model = Model()
    model.policy = policy
    layers = policy_layers(model)
    assert layers[0][0].shape == (16, FLAT_SIZE)  # the saved policy: the observation's columns only


def test_the_vector_env_gives_each_observation_its_tables_state():
    from newmarket_env.envs.vector import VectorEnv
    from newmarket_env.train.ppo.privileged import PrivilegedVecEnv
    from newmarket_env.train.vec import SB3VecEnv

    vector = VectorEnv(num_envs=3, seed=4, variant="michigan", num_players=4, opponents=["random"])
    vec = PrivilegedVecEnv(SB3VecEnv(vector))
    obs = vec.reset()
    assert obs.shape == (3, FLAT_SIZE + STATE_SIZE)
    for _ in range(30):
        np.testing.assert_array_equal(obs[:, FLAT_SIZE:], vector.states())
        masks = vec.env_method("action_masks")
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        obs, _, dones, infos = vec.step(actions)
        for done, info in zip(dones, infos, strict=True):
            if done:
                assert info["terminal_observation"].shape == (FLAT_SIZE + STATE_SIZE,)


@pytest.fixture(scope="module")
def privileged_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("privileged") / "run"
    settings = ["privileged.critic=true", "privileged.oracle=true", "privileged.oracle_fade_end=0.5"]
    argv = [str(CONFIGS / "tiny_test.yaml"), "--out-dir", str(out), "--no-progress"]
    for setting in settings:
        argv += ["--set", setting]
    assert main(argv) == 0
    return out


def test_a_privileged_ppo_run_saves_a_policy_of_the_observation_alone(privileged_run, state_reads):
    from newmarket_env.agents.saved import read_saved

    with open(privileged_run / "progress.csv", newline="") as handle:
        weights = [float(row["privileged/oracle_weight"]) for row in csv.DictReader(handle)]
    assert weights[0] == 1.0 and weights[-1] == 0.0  # the oracle faded out within the run
    files = [privileged_run / "final.npz", *sorted((privileged_run / "snapshots").glob("*.npz"))]
    assert len(files) >= 2
    for path in files:
        metadata, layers = read_saved(path)  # numbers only: np.load(allow_pickle=False)
        assert metadata["layers"][0] == FLAT_SIZE and layers[0][0].shape[1] == FLAT_SIZE
    e = env(variant="newmarket", num_players=4, num_deals=1)
    agents = [load_agent(str(privileged_run / "final.npz"), env=e, seed=s) for s in range(4)]
    e.reset(seed=3)
    played = 0
    for name in e.agent_iter():
        observation, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(int(agents[int(name.rsplit("_", 1)[1])].act(observation)))
        played += 1
    assert played > 4 and state_reads == []  # the saved agent never asked for the state


def test_the_privileged_section_is_checked_in_one_line(tmp_path, capsys):
    cases = {
        ("--set", "privileged.oracle_fade_start=0.7", "--set", "privileged.oracle_fade_end=0.5"): "oracle_fade_end",
        ("--set", "privileged.critic=true", "--set", "run.vec_env=dummy"): "run.vec_env: batch",
    }
    for extra, message in cases.items():
        out = tmp_path / "refused"
        assert main([str(CONFIGS / "tiny_test.yaml"), "--out-dir", str(out), *extra]) != 0
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0]
        assert not out.exists()
