"""Fresh students of several shapes fitted on the same labels and scored on labels they never saw.

An expert-iteration run keeps each iteration's labels (``labels/iter_<i>.npz``). This fits a fresh policy
network of each shape asked (:mod:`newmarket_env.train.expert.shapes`) on some iterations' labels and scores
it after every epoch on other iterations' (held out by iteration: other sessions, other deals), by its
agreement with the teacher and its regret (chips a decision below the teacher's best score; see
:mod:`newmarket_env.train.expert.student`), overall and per kind of decision (the leads above all). With
``--aux-weight W`` (W > 0) the network also predicts where the cards hidden from the deciding seat are
(the labels' ``owners``, from the privileged state), a loss weighted W next to the policy's: the lever
"an auxiliary head that predicts the hidden cards", measured the same way.

    python -m newmarket_env.train.expert.compare runs/michigan_exit_labels --fit 0-4 --held-out 5 \
        --shapes mlp,cards,suits,attention --epochs 4 --out results/michigan_shapes.json

Each row is one shape and weight: the held-out scores after the last epoch (every epoch's are in the
JSON), the hidden cards' accuracy when predicted, the parameters and the seconds an epoch took. With
``--save DIR`` each fitted network is written to ``DIR/<shape>_aux<weight>.npz``, to play it alone
(:mod:`newmarket_env.train.expert.shaped`).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from newmarket_env.train.expert.fit import ILLEGAL_LOGIT
from newmarket_env.train.expert.label import policy_targets
from newmarket_env.train.expert.shaped import save_shaped
from newmarket_env.train.expert.shapes import SHAPES, Shape, make_shape
from newmarket_env.train.expert.student import breakdown, decision_kinds, regrets, score
from newmarket_env.train.hidden import NOT_HIDDEN
from newmarket_env.train.rundir import write_atomic


def iterations(text: str) -> list[int]:
    """``"0-4"`` -> [0, 1, 2, 3, 4]; ``"5"`` -> [5]; ``"0,2,4"`` -> [0, 2, 4].

    >>> iterations("0-2,5")
    [0, 1, 2, 5]
    """
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def read_labels(run: Path, which: Sequence[int], keys: Sequence[str]) -> dict[str, np.ndarray]:
    """The ``keys`` of the labels of iterations ``which`` of the run folder ``run``, concatenated."""
    parts: dict[str, list[np.ndarray]] = {key: [] for key in keys}
    for i in which:
        path = run / "labels" / f"iter_{i:04d}.npz"
        with np.load(path, allow_pickle=False) as data:
            missing = [key for key in keys if key not in data.files]
            if missing:
                raise ValueError(f"{path} has no {', '.join(missing)} (labels written before they were kept)")
            for key in keys:
                parts[key].append(data[key])
    return {key: np.concatenate(arrays) for key, arrays in parts.items()}


def greedy(net: torch.nn.Module, obs: np.ndarray, masks: np.ndarray, batch: int = 4096) -> np.ndarray:
    """The network's greedy legal choice for each observation."""
    out = np.empty(len(obs), dtype=np.int64)
    with torch.no_grad():
        for start in range(0, len(obs), batch):
            logits = net(torch.as_tensor(obs[start : start + batch])).numpy()
            out[start : start + batch] = np.where(masks[start : start + batch], logits, -np.inf).argmax(axis=1)
    return out


def owner_accuracy(net: Shape, obs: np.ndarray, owners: np.ndarray, batch: int = 4096) -> float:
    """Share of the hidden cards whose owner the network's auxiliary head names right."""
    right = total = 0
    with torch.no_grad():
        for start in range(0, len(obs), batch):
            _, predicted = net.both(torch.as_tensor(obs[start : start + batch]))
            truth = owners[start : start + batch]
            hidden = truth != NOT_HIDDEN
            right += int((predicted.argmax(dim=2).numpy() == truth)[hidden].sum())
            total += int(hidden.sum())
    return right / total if total else float("nan")


def held_out_scores(
    net: torch.nn.Module, data: dict[str, np.ndarray], kinds: np.ndarray, names: list[str]
) -> dict[str, Any]:
    """Agreement and regret overall and per kind of decision; the leads' share of the regret."""
    choices = greedy(net, data["obs"], data["masks"])
    overall = score(choices, data["actions"], data["means"])
    result: dict[str, Any] = {"agreement": overall.agreement, "regret": overall.regret}
    given_up = np.nan_to_num(regrets(choices, data["means"]))
    for k, name in enumerate(names):
        inside = kinds == k
        if inside.any():
            part = score(choices[inside], data["actions"][inside], data["means"][inside])
            result[name] = {
                "share": float(inside.mean()),
                "agreement": part.agreement,
                "regret": part.regret,
                "regret_share": float(given_up[inside].sum() / given_up.sum()) if given_up.sum() else float("nan"),
            }
    result["lines"] = breakdown(choices, data["actions"], data["means"], kinds, names)
    return result


def fit_and_score(
    shape: str,
    train: dict[str, np.ndarray],
    test: dict[str, np.ndarray],
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    temperature: float,
    aux_weight: float,
    seed: int,
) -> dict[str, Any]:
    """Fit a fresh ``shape`` network on ``train``; score it on ``test`` after every epoch."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = make_shape(shape)
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)
    targets = policy_targets(train["actions"], train["means"], "softmax", temperature)
    tensors = [torch.as_tensor(train["obs"]), torch.as_tensor(train["masks"].astype(bool)), torch.as_tensor(targets)]
    if aux_weight > 0:
        tensors.append(torch.as_tensor(train["owners"].astype(np.int64)))
    kinds, names = decision_kinds(test["obs"])
    epochs_out = []
    for epoch in range(epochs):
        began = time.time()
        net.train()
        order = rng.permutation(len(targets))
        for start in range(0, len(order), batch_size):
            idx = torch.as_tensor(order[start : start + batch_size])
            obs, mask, target = (t[idx] for t in tensors[:3])
            if aux_weight > 0:
                logits, owner_logits = net.both(obs)
                owners = tensors[3][idx]
                aux = torch.nn.functional.cross_entropy(
                    owner_logits.reshape(-1, owner_logits.shape[-1]), owners.reshape(-1), ignore_index=NOT_HIDDEN
                )
            else:
                logits, aux = net(obs), torch.zeros(())
            logits = logits.masked_fill(~mask, ILLEGAL_LOGIT)
            loss = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean() + aux_weight * aux
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        seconds = time.time() - began
        net.eval()
        scores = held_out_scores(net, test, kinds, names)
        if aux_weight > 0 or "owners" in test:
            scores["owner_accuracy"] = owner_accuracy(net, test["obs"], test["owners"]) if "owners" in test else None
        scores["seconds"] = round(seconds, 1)
        epochs_out.append(scores)
        print(
            f"  {shape} aux {aux_weight:g} epoch {epoch + 1}: agreement {scores['agreement']:.3f}, regret "
            f"{scores['regret']:.3f}, leads {scores.get('lead', {}).get('agreement', float('nan')):.3f} / "
            f"{scores.get('lead', {}).get('regret', float('nan')):.3f} ({seconds:.0f} s)",
            flush=True,
        )
    parameters = sum(p.numel() for p in net.parameters() if p.requires_grad)
    return {"shape": shape, "aux_weight": aux_weight, "parameters": parameters, "epochs": epochs_out, "net": net}


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The markdown table of the last epoch of each row."""
    lines = [
        "| shape | aux weight | parameters | held-out agreement | regret | leads: agreement | leads: regret "
        "| leads' share of the regret | hidden cards' owner named | s an epoch |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        last = row["epochs"][-1]
        lead = last.get("lead", {})
        owners = last.get("owner_accuracy")
        owner_text = f"{owners:.3f}" if owners is not None and row["aux_weight"] > 0 else "-"
        lines.append(
            f"| {row['shape']} | {row['aux_weight']:g} | {row['parameters']:,} | {last['agreement']:.3f} | "
            f"{last['regret']:.3f} | {lead.get('agreement', float('nan')):.3f} | "
            f"{lead.get('regret', float('nan')):.3f} "
            f"| {lead.get('regret_share', float('nan')):.3f} | {owner_text} | "
            f"{np.mean([e['seconds'] for e in row['epochs']]):.0f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m newmarket_env.train.expert.compare",
        description="Fit fresh policy networks of several shapes on an expert-iteration run's labels and "
        "score them on held-out iterations: agreement and regret, overall and in each kind of decision.",
    )
    parser.add_argument("run", help="the run folder (its labels/iter_NNNN.npz)")
    parser.add_argument("--fit", required=True, help="iterations to fit on, e.g. 0-4")
    parser.add_argument("--held-out", required=True, help="iterations to score on, e.g. 5")
    parser.add_argument("--shapes", default="mlp", help=f"comma-separated, of: {', '.join(SHAPES)} (default mlp)")
    parser.add_argument(
        "--aux-weight",
        default="0",
        help="comma-separated weights of the hidden-cards loss; each shape is fitted once per weight (default 0)",
    )
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--temperature", type=float, default=1.0, help="of the softmax targets, chips (default 1)")
    parser.add_argument("--limit", type=int, default=0, help="fit on the first N labels only (0 = all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    parser.add_argument("--out", help="write every epoch's scores here (JSON)")
    parser.add_argument(
        "--save",
        help="write each fitted network to this folder as <shape>_aux<weight>.npz, to play it alone "
        "(newmarket_env.train.expert.shaped:ShapedAgent)",
    )
    args = parser.parse_args(argv)
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    bad = [s for s in shapes if s not in SHAPES]
    if bad:
        parser.error(f"--shapes has {', '.join(bad)}; allowed: {', '.join(SHAPES)}")
    try:
        weights = [float(w) for w in args.aux_weight.split(",")]
        fit_on, held = iterations(args.fit), iterations(args.held_out)
    except ValueError as err:
        parser.error(f"--aux-weight, --fit and --held-out take numbers ({err})")
    if set(fit_on) & set(held):
        parser.error(f"--fit and --held-out share iterations {sorted(set(fit_on) & set(held))}")
    if args.epochs < 1 or args.batch_size < 1 or any(w < 0 for w in weights):
        parser.error("--epochs and --batch-size must be >= 1, --aux-weight >= 0")
    torch.set_num_threads(args.threads)
    run = Path(args.run)
    keys = ["obs", "masks", "actions", "means"] + (["owners"] if any(w > 0 for w in weights) else [])
    try:
        train = read_labels(run, fit_on, keys)
        test = read_labels(run, held, keys)
    except (OSError, ValueError, KeyError) as err:
        parser.error(str(err).splitlines()[0])
    if args.limit:
        train = {key: value[: args.limit] for key, value in train.items()}
    print(
        f"fitting on {len(train['actions'])} labels (iterations {args.fit}), scoring on {len(test['actions'])} "
        f"(iterations {args.held_out})",
        flush=True,
    )
    rows = []
    for shape in shapes:
        for weight in weights:
            row = fit_and_score(
                shape,
                train,
                test,
                epochs=args.epochs,
                batch_size=args.batch_size,
                learning_rate=args.learning_rate,
                temperature=args.temperature,
                aux_weight=weight,
                seed=args.seed,
            )
            net = row.pop("net")
            if args.save:
                save_shaped(net, shape, Path(args.save) / f"{shape}_aux{weight:g}.npz")
            rows.append(row)
            if args.out:
                Path(args.out).parent.mkdir(parents=True, exist_ok=True)
                write_atomic(Path(args.out), json.dumps({"args": vars(args), "rows": rows}, indent=1))
    print(table(rows))
    for row in rows:
        print(f"{row['shape']} aux {row['aux_weight']:g}, the last epoch by the kind of decision:")
        print("\n".join(row["epochs"][-1]["lines"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
