"""Deep Monte-Carlo (train/dmc): the tables' actions and returns, a run from a config, resume, the curve, errors."""

import csv
import itertools
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from newmarket_env import env, load_agent
from newmarket_env.engine.choice import compiled_available
from newmarket_env.game.rules import make_rules
from newmarket_env.train.cli import main

pytestmark = pytest.mark.skipif(not compiled_available(), reason="Deep Monte-Carlo plays on the compiled engine")

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_dmc.yaml"
CONFIGS = TINY.parent


def _actor(rules, net_arch=(32,), seed=0, tables=4, baselines=(), baseline_fraction=0.0, scale=0.1, threads=1):
    """An actor of a fresh Q network (torch), and that network."""
    import torch

    from newmarket_env.train.dmc.actor import Actor
    from newmarket_env.train.dmc.fit import q_network

    torch.manual_seed(seed)
    net = q_network(list(net_arch), "relu")
    actor = Actor(rules, tables, list(baselines), baseline_fraction, scale, list(net_arch), "relu", "sparse", threads)
    actor.set_weights(net.state_dict())
    return actor, net


def _greedy(net, obs, masks):
    """argmax of Q over the legal actions, computed by the dense torch network (not by the actor's)."""
    import torch

    with torch.no_grad():
        q = net(torch.as_tensor(obs)).numpy()
    return np.where(masks, q, -np.inf).argmax(axis=1)


def test_epsilon_zero_plays_the_greedy_legal_action_and_epsilon_explores():
    rules = make_rules("newmarket", 4)
    actor, net = _actor(rules)
    greedy = actor.collect(200, seed=8, epsilon=0.0)
    assert greedy.masks[np.arange(200), greedy.actions].all()
    assert (greedy.masks.sum(axis=1) > 1).all()  # forced moves are not recorded
    np.testing.assert_array_equal(greedy.actions, _greedy(net, greedy.obs, greedy.masks))
    explored = actor.collect(200, seed=8, epsilon=1.0)
    assert explored.masks[np.arange(200), explored.actions].all()  # drawn among the legal actions only
    off = np.mean(explored.actions != _greedy(net, explored.obs, explored.masks))
    assert off > 0.3, off  # uniform over 2+ legal actions: at least half of them differ from the greedy one


def test_return_targets_are_the_chips_won_to_the_end_of_the_deal():
    """Replayed on the reference engine: two-deal sessions at one table, the learner in every seat exploring
    half the time. The table's sessions come one after another from ``random.Random(table_seed(s, 0))``
    (the batch's stream, s the collection's batch seed); each recorded action is applied again there
    (its observation checked), and each decision's target is (the seat's balance after the move that ends
    that deal - its balance before the decision) * scale."""
    import random

    from newmarket_env.engine import Game
    from newmarket_env.engine._batch import table_seed
    from newmarket_env.execution.seeds import derive_seed
    from newmarket_env.game.actions import NUM_ACTIONS
    from newmarket_env.observation.encode import encode_flat, static_part
    from newmarket_env.train.dmc.actor import BATCH_TAG

    rules = make_rules("newmarket", 4, num_deals=2)
    actor, _ = _actor(rules, tables=1, scale=0.5)
    count, seed, scale = 60, 5, 0.5
    # more decisions than compared: the replay needs the recorded actions to the end of the 60th's deal
    got = actor.collect(3 * count, seed, epsilon=0.5)
    stream, static = random.Random(table_seed(derive_seed(seed, BATCH_TAG) % 2**32, 0)), static_part(rules)
    expected: list[float] = []
    k = 0
    while len(expected) < count:
        game, pending = Game(rules, rng=stream, record_events=False), []
        while not game.over:
            seat, deal = game.to_act, game.deal_index
            legal = list(game.legal)
            if len(legal) > 1:
                np.testing.assert_allclose(encode_flat(game, seat, static), got.obs[k])
                mask = np.zeros(NUM_ACTIONS, dtype=bool)
                mask[legal] = True
                np.testing.assert_array_equal(got.masks[k], mask)
                pending.append((seat, game.balances[seat]))
                action = int(got.actions[k])
                k += 1
            else:
                action = legal[0]
            game.apply(action)
            if game.over or game.deal_index != deal:
                expected += [(game.balances[s] - before) * scale for s, before in pending]
                pending = []
    np.testing.assert_allclose(got.returns[:count], np.asarray(expected[:count], dtype=np.float32))
    assert len(set(np.round(got.returns[:count], 3))) > 3  # the targets vary: a constant would not be checked


def test_the_samples_files_hold_the_observations_as_their_nonzero_entries(tmp_path):
    """What an iteration writes reads back the same (a file a sixth of the dense size); an older run's file,
    observations whole, reads as it is."""
    from newmarket_env.train.dmc.samples import load_samples, write_samples

    actor, _ = _actor(make_rules("newmarket", 4))
    got = actor.collect(100, seed=1, epsilon=0.5)
    samples = {"obs": got.obs, "masks": got.masks, "actions": got.actions, "returns": got.returns}
    write_samples(tmp_path / "new.npz", samples, "run-1")
    np.savez(tmp_path / "old.npz", **samples, run_id=np.array("run-0"))
    for name, owner in (("new.npz", "run-1"), ("old.npz", "run-0")):
        back, found = load_samples(tmp_path / name)
        assert found == owner
        for key, value in samples.items():
            np.testing.assert_array_equal(back[key], value, err_msg=key)
    assert (tmp_path / "new.npz").stat().st_size < (tmp_path / "old.npz").stat().st_size / 3


def test_baseline_seats_are_played_inside_the_batch_and_never_recorded():
    """A quarter of the seats control: the recorded decisions are the learner's (the same for any thread
    count), and the decisions of one actor are those of another built alike."""
    rules = make_rules("newmarket", 4)
    one, _ = _actor(rules, tables=48, baselines=("control",), baseline_fraction=0.25, threads=1)
    two, _ = _actor(rules, tables=48, baselines=("control",), baseline_fraction=0.25, threads=2)
    a, b = one.collect(500, seed=3, epsilon=0.1), two.collect(500, seed=3, epsilon=0.1)
    for name in ("obs", "masks", "returns", "actions"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    seats = one.batch.seat_policies
    assert (seats == -1).any() and (seats >= 0).any() and ((seats == -1).sum(axis=1) >= 1).all()


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dmc")
    assert main([str(TINY), "--out-dir", str(out), "--no-progress"]) == 0
    return out


def test_a_tiny_run_saves_an_agent_that_loads_with_no_pickle_and_plays_a_tournament(tiny_run):
    import torch

    from newmarket_env.eval.tournament import TournamentConfig, run_tournament
    from newmarket_env.train.dmc.fit import q_network
    from newmarket_env.train.dmc.samples import load_samples

    for name in (
        "run.json",
        "config.yaml",
        "final.npz",
        "final.json",
        "final_eval.json",
        "progress.csv",
        "eval.csv",
        "learning_curve.png",
        "samples/iter_0001.npz",
        "checkpoints/dmc_64_steps.pt",
        "checkpoints/dmc_128_steps.pt",
    ):
        assert (tiny_run / name).is_file(), name
    # only the samples a resume from the newest checkpoint would read (dmc.window 2: iteration 2 fits on
    # iteration 1's too); iteration 0's went when the second checkpoint was written
    assert sorted(p.name for p in (tiny_run / "samples").iterdir()) == ["iter_0001.npz"]
    path = tiny_run / "final.npz"
    with zipfile.ZipFile(path) as archive:
        for entry in archive.namelist():  # every entry is plain numbers: nothing to unpickle
            with archive.open(entry) as handle:
                np.lib.format.read_array(handle, allow_pickle=False)
    training = json.loads((tiny_run / "final.json").read_text())["training"]
    assert (training["method"], training["outputs"], training["reward_scale"]) == ("dmc", "q_values", 0.1)
    agent = load_agent(str(path), env=env(variant="newmarket", num_players=4, num_deals=1))
    assert agent.name == "tiny_dmc"
    # the saved outputs are the Q network of the last checkpoint
    net = q_network([16], "relu")
    net.load_state_dict(torch.load(tiny_run / "checkpoints" / "dmc_128_steps.pt", weights_only=True)["net"])
    obs = load_samples(tiny_run / "samples" / "iter_0001.npz")[0]["obs"]
    with torch.no_grad():
        np.testing.assert_allclose(agent.logits(obs), net(torch.as_tensor(obs)).numpy(), rtol=1e-5, atol=1e-6)
    config = TournamentConfig(
        agents=(str(path), "control", "control", "control"), rules={"num_deals": 1}, blocks=2, resamples=20
    )
    result = run_tournament(config)  # an illegal action would stop the tournament with an error
    games = {row["agent"]: row["games"] for row in result.standings}
    assert games == {"tiny_dmc": 8, "control": 8, "control#2": 8, "control#3": 8}
    with open(tiny_run / "eval.csv", newline="") as handle:
        evaluated = [(r["steps"], r["opponent"]) for r in csv.DictReader(handle)]
    assert evaluated == [("0", "control"), ("64", "control"), ("128", "control")]  # before training, then every 64


def _rows(path: Path) -> list[list[str]]:
    """progress.csv without its timing columns (the only part that may differ between runs)."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    return [[row[k] for k in ("iteration", "steps", "samples", "mean_return", "loss_before", "loss")] for row in rows]


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path):
    """The whole run checkpoints every 128 decisions (and at its end); the other stops after its first
    iteration, finds a damaged sample file a killed process left, and resumes: the same weights, bit for bit."""
    from newmarket_env.agents.saved import read_saved

    common = [str(TINY), "--no-progress", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
    whole = [*common, "--out-dir", str(tmp_path / "whole"), "--total-steps", "192"]
    assert main([*whole, "--set", "run.checkpoint_every=128"]) == 0
    assert sorted(p.name for p in (tmp_path / "whole" / "checkpoints").glob("*.pt")) == [
        "dmc_128_steps.pt",
        "dmc_192_steps.pt",
    ]
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "64"]) == 0
    (tmp_path / "parts" / "samples" / "iter_0001.npz").write_bytes(b"a killed process left this")
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "192", "--resume"]) == 0
    whole, parts = (read_saved(tmp_path / d / "final.npz")[1] for d in ("whole", "parts"))
    for (w1, b1), (w2, b2) in zip(whole, parts, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    assert _rows(tmp_path / "whole" / "progress.csv") == _rows(tmp_path / "parts" / "progress.csv")
    assert len(_rows(tmp_path / "whole" / "progress.csv")) == 3


def test_max_minutes_stops_after_a_checkpointed_iteration_that_resume_continues(tiny_run, tmp_path, capsys):
    """A budget already spent: one iteration runs, is checkpointed (though run.checkpoint_every is not
    reached) and the agent saved; ``--resume`` then ends where the uninterrupted tiny run ended, with the
    same weights."""
    from newmarket_env.agents.saved import read_saved

    common = [str(TINY), "--out-dir", str(tmp_path), "--no-progress", "--set", "run.checkpoint_every=1000"]
    assert main([*common, "--max-minutes", "0.00001"]) == 0
    assert "stopped by run.max_minutes = 1e-05 after 64 of 128 recorded decisions" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "checkpoints").glob("*.pt")) == ["dmc_64_steps.pt"]
    assert (tmp_path / "final.npz").is_file()
    assert main([*common, "--resume", "--max-minutes", "0"]) == 0
    for (w1, b1), (w2, b2) in zip(*(read_saved(d / "final.npz")[1] for d in (tiny_run, tmp_path)), strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)


def test_overwrite_removes_the_previous_runs_checkpoints_and_samples(tmp_path):
    common = [str(TINY), "--out-dir", str(tmp_path), "--no-progress", "--set", "eval.every=0"]
    assert main([*common, "--total-steps", "192"]) == 0
    assert main([*common, "--total-steps", "64", "--overwrite"]) == 0
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == ["dmc_64_steps.json", "dmc_64_steps.pt"]
    assert sorted(p.name for p in (tmp_path / "samples").iterdir()) == ["iter_0000.npz"]


def test_a_lost_sample_file_of_the_window_stops_the_resume_in_one_line(tmp_path, capsys):
    common = [str(TINY), "--no-progress", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
    assert main([*common, "--out-dir", str(tmp_path), "--total-steps", "64"]) == 0
    (tmp_path / "samples" / "iter_0000.npz").unlink()
    capsys.readouterr()
    assert main([*common, "--out-dir", str(tmp_path), "--total-steps", "128", "--resume"]) == 2
    assert capsys.readouterr().err == (
        f"python -m newmarket_env.train: error: --resume: no usable checkpoint of this run in "
        f"{tmp_path / 'checkpoints'} (dmc_64_steps.pt cannot be resumed: its replay window (dmc.window = 2) needs "
        "samples/iter_0000.npz, which is missing or damaged); start without --resume\n"
    )
    assert not (tmp_path / "checkpoints" / "dmc_128_steps.pt").exists()


def _damage(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_damaged_newest_checkpoint_falls_back_to_the_newest_one_whose_samples_are_kept(tmp_path, capsys):
    """dmc.window 1: every checkpoint can be resumed from; the damaged newest is passed over, the run resumes from
    the one before, and ends with the weights the uninterrupted run had."""
    from newmarket_env.agents.saved import read_saved

    common = [str(TINY), "--no-progress", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
    common += ["--set", "dmc.window=1", "--out-dir", str(tmp_path), "--total-steps", "192"]
    assert main(common) == 0
    whole = read_saved(tmp_path / "final.npz")[1]
    _damage(tmp_path / "checkpoints" / "dmc_192_steps.pt")
    capsys.readouterr()
    assert main([*common, "--resume"]) == 0
    out = capsys.readouterr().out
    assert "--resume: skipped dmc_192_steps.pt is damaged (its size or checksum differs from when it was saved)" in out
    assert "resuming from dmc_128_steps.pt (128 recorded decisions)" in out
    for (w1, b1), (w2, b2) in zip(whole, read_saved(tmp_path / "final.npz")[1], strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)


def test_a_damaged_newest_checkpoint_whose_predecessors_lost_their_samples_is_one_line(tmp_path, capsys):
    """dmc.window 2: the older checkpoints' samples went when the newest was written; none can be resumed."""
    common = [str(TINY), "--no-progress", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
    common += ["--out-dir", str(tmp_path), "--total-steps", "192"]
    assert main(common) == 0
    _damage(tmp_path / "checkpoints" / "dmc_192_steps.pt")
    capsys.readouterr()
    assert main([*common, "--resume"]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"python -m newmarket_env.train: error: --resume: no usable checkpoint of this run in "
        f"{tmp_path / 'checkpoints'} (dmc_192_steps.pt is damaged (its size or checksum differs from when it was "
        "saved); dmc_128_steps.pt cannot be resumed: its replay window (dmc.window = 2) needs samples/iter_0001.npz, "
        "which is missing or damaged; dmc_64_steps.pt cannot be resumed: its replay window (dmc.window = 2) needs "
        "samples/iter_0000.npz, which is missing or damaged); start without --resume\n"
    )


def test_the_curve_measures_each_dmc_checkpoint_as_the_saved_agent_of_that_point(tiny_run):
    from newmarket_env.agents.saved import load_saved_agent
    from newmarket_env.train.curve import main as curve
    from newmarket_env.train.curve import read_rows
    from newmarket_env.train.evaluate import duplicate_eval, saved_agent_maker

    assert curve([str(tiny_run), "--opponents", "control", "--every", "1", "--boards", "2", "--seed", "5"]) == 0
    rows = read_rows(tiny_run / "curve.csv")
    assert [(r["steps"], r["opponent"]) for r in rows] == [("64", "control"), ("128", "control")]
    final = load_saved_agent(tiny_run / "final.npz", make_rules("newmarket", 4, num_deals=1))
    expected = duplicate_eval(
        saved_agent_maker(final), "control", "newmarket", 4, boards=2, seed=5, rules={"num_deals": 1}
    )
    assert float(rows[1]["mean"]) == pytest.approx(expected.mean, abs=1e-12)
    assert (tiny_run / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_q_network_explains_the_chips_it_expects_after_each_legal_action(tiny_run):
    import torch

    from newmarket_env.train.dmc.fit import q_network
    from newmarket_env.train.dmc.samples import load_samples

    rules_env = env(variant="newmarket", num_players=4, num_deals=1)
    agent = load_agent(str(tiny_run / "final.npz"), env=rules_env)
    net = q_network([16], "relu")
    net.load_state_dict(torch.load(tiny_run / "checkpoints" / "dmc_128_steps.pt", weights_only=True)["net"])
    samples = load_samples(tiny_run / "samples" / "iter_0001.npz")[0]
    obs, masks = samples["obs"][:30], samples["masks"][:30]
    for row, mask in zip(obs, masks, strict=True):
        observation = {"observation": row, "action_mask": mask.astype(np.int8)}
        thoughts = agent.explain(observation)
        with torch.no_grad():
            chips = net(torch.as_tensor(row[None])).numpy()[0] / 0.1  # Q is chips x reward_scale 0.1
        legal = np.flatnonzero(mask)
        assert sorted(a["action"] for a in thoughts["actions"]) == legal.tolist()
        for shown in thoughts["actions"]:
            assert shown["expected_chips"] == pytest.approx(chips[shown["action"]], rel=1e-4, abs=1e-4)
        assert thoughts["actions"][0]["action"] == agent.act(observation) == legal[np.argmax(chips[legal])]
        assert thoughts["value"] == pytest.approx(chips[legal].max(), rel=1e-4, abs=1e-4)
        assert "probability" not in thoughts["actions"][0]


@pytest.mark.parametrize(
    "setting, message",
    [
        ("dmc.epsilon=1.5", "dmc.epsilon = 1.5 is not allowed; allowed: float in 0.0..1.0"),
        ("dmc.activation=sigmoid", "dmc.activation = 'sigmoid' is not allowed; allowed: tanh, relu"),
        ("dmc.gamma=0.9", "unknown config key 'dmc.gamma'; allowed keys: states, tables"),
        ("pretrain.teacher=control", "pretrain.teacher is for method ppo; method dmc reads its own sections (dmc)"),
        ("expert.states=8", "expert.states is for method expert_iteration; method dmc reads its own sections (dmc)"),
        ("opponents.baselines=[search]", "opponents.baselines has 'search', which dmc cannot seat at its tables"),
        ("dmc.actors=0", "dmc.actors = 0 is not allowed; allowed: int in 1..4096"),
        ("dmc.address=auto", "dmc: address='auto' needs backend='ray'; allowed with backend='local': None"),
        ("network.input=csr", "network.input = 'csr' is not allowed; allowed: sparse, dense"),
    ],
)
def test_config_errors_are_one_line_and_write_nothing(tmp_path, capsys, setting, message):
    assert main([str(TINY), "--out-dir", str(tmp_path / "x"), "--set", setting]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "x").exists()


def test_describe_lists_the_dmc_keys_with_their_ranges(capsys):
    assert main(["--describe"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("dmc:  # Deep Monte-Carlo (method: dmc): run.total_steps counts recorded learner decisions.")
    section = itertools.takewhile(lambda line: line.startswith("  "), lines[start + 1 :])  # to the next section
    keys = [line.split(":")[0].strip() for line in section]
    assert keys == [
        "states",
        "tables",
        "baseline_fraction",
        "epsilon",
        "window",
        "epochs",
        "batch_size",
        "learning_rate",
        "aux_weight",
        "net_arch",
        "activation",
        "actors",
        "backend",
        "address",
    ]
    assert any(line.startswith("  epsilon: 0.1  #") and "(allowed: float in 0.0..1.0)" in line for line in lines)


@pytest.mark.parametrize("name", ["newmarket_dmc", "michigan_dmc", "newbury_dmc", "tiny_dmc"])
def test_the_shipped_dmc_configs_load(name):
    from newmarket_env.train.config import load_config

    config = load_config(CONFIGS / f"{name}.yaml")
    assert (config.method, config.env.num_players) == ("dmc", 4)
    assert name == "tiny_dmc" or config.run.max_minutes == 30
