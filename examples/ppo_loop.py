"""Your own training loop: masked PPO on ``TrainingEnv`` in one file, CleanRL style.

    python examples/ppo_loop.py --minutes 10 --out runs/my-ppo
    python examples/ppo_loop.py --updates 2 --num-envs 8 --steps 16 --hidden 16 --eval-games 4

It trains one seat of 4-player BORDERS against the env's default opponents (the league's
compiled bots, inside the compiled call), with the trainer's settings read from the library
(``TrainConfig`` and ``PPOSettings``: the same games per update, network size, discount, clip,
...), then writes its policy as a file the library seats (``--bots ppo@OUT/policy.npz``) and
plays it against 3 copies of each heuristic on seeds the training never saw. What a loop must
do with this env, each marked ``# (n)`` below:

1. store copies: the env returns its own buffers and overwrites them on the next call;
2. drop the step after a game ends: in the default ``next_step`` mode that step is no decision
   of either game (the env ignores its action and pays 0), and ``infos["autoreset"]`` marks it;
3. do not bootstrap across a game's end: ``terminated`` cuts the advantage;
4. read the win share from ``infos["outcome"]``: the mean reward is no win rate;
5. keep the actor the policy file's shape, ``Linear, Tanh, Linear, Tanh, Linear``, so
   ``export_policy`` can write it.

Its network is the trainer's (a trunk of two tanh layers shared by the policy and the value)
built from the trainer's fast layers (``borders_sim.train.layers``): a first layer that reads
only an observation's non-zero entries (``SparseLinear``) and a policy head that computes, in
the update, the logits of each decision's phase only (``PhaseHead``). ``train`` is the loop;
``benchmarks/train.py`` times it beside the trainer.

``docs/own-loop.md`` walks through it. Needs torch (``pip install torch==2.13.0``).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from borders_sim.envs import NUM_ACTIONS, OBS_SIZE, TrainingEnv
from borders_sim.policies.export import export_policy
from borders_sim.train import PPOSettings, TrainConfig, evaluate
from borders_sim.train.layers import PhaseColumns, PhaseHead, SparseLinear, sparse_obs

TRAINER, UPDATE = TrainConfig(), PPOSettings()  # the trainer's defaults, read from the library


@dataclass
class Args:
    minutes: float = 10.0  # wall-clock budget of the training
    updates: int = 0  # stop after this many updates (0: when --minutes is spent)
    num_envs: int = TRAINER.num_envs  # games side by side (128 on the CPU)
    steps: int = TRAINER.steps  # learner decisions per game per update
    hidden: int = TRAINER.hidden[0]  # units of each of the two hidden layers
    lr: float = TRAINER.lr
    opponents: str = ""  # comma-separated bot names (empty: the env's default opponents)
    seed: int = 1
    eval_games: int = 200  # games per heuristic of the final evaluation (0: none)
    out: str = "runs/my-ppo"


def parse() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in vars(Args()).items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(default), default=default)
    return Args(**vars(parser.parse_args()))


class Agent(nn.Module):
    """The actor ``SparseLinear, Tanh, Linear, Tanh, PhaseHead`` (the policy file's shape (5);
    both ends are ``nn.Linear`` s) and a value head on its trunk."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.actor = nn.Sequential(SparseLinear(OBS_SIZE, hidden), nn.Tanh(),
                                   nn.Linear(hidden, hidden), nn.Tanh(), PhaseHead(hidden))
        self.trunk, self.head = self.actor[:4], self.actor[4]
        self.critic = nn.Linear(hidden, 1)
        for layer, gain in ((self.actor[0], 2 ** 0.5), (self.actor[2], 2 ** 0.5),
                            (self.head, 0.01), (self.critic, 1.0)):
            nn.init.orthogonal_(layer.weight, gain)
            nn.init.zeros_(layer.bias)

    def value(self, h: torch.Tensor) -> torch.Tensor:
        return self.critic(h).squeeze(-1)

    def act(self, obs: np.ndarray, mask: torch.Tensor):
        """An action drawn among the legal ones of each row, its log-probability and the
        value."""
        h = self.trunk(sparse_obs(obs))
        logp = torch.log_softmax(self.head(h).masked_fill(~mask, -1e9), -1)
        noise = -torch.log(-torch.log(torch.rand_like(logp)))  # Gumbel-max: a draw from logp
        action = torch.argmax(logp + noise, -1)
        return action, logp.gather(1, action[:, None]).squeeze(1), self.value(h)


def train(args: Args) -> tuple[Agent, list[tuple[int, float]]]:
    """Train as ``args`` say; the agent and, per update, its learner decisions and seconds."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # one torch thread beside the env's: the fastest on few cores
    pool = {"opponents": args.opponents.split(",")} if args.opponents else {}
    env = TrainingEnv(args.num_envs, num_players=TRAINER.players, seed=args.seed, **pool)
    agent = Agent(args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    n, t_max = args.num_envs, args.steps
    obs_buf = torch.zeros((t_max, n, OBS_SIZE))
    mask_buf = torch.zeros((t_max, n, NUM_ACTIONS), dtype=torch.bool)
    act_buf = torch.zeros((t_max, n), dtype=torch.long)
    logp_buf, val_buf, rew_buf = (torch.zeros((t_max, n)) for _ in range(3))
    done_buf, valid_buf = (torch.zeros((t_max, n), dtype=torch.bool) for _ in range(2))

    obs, infos = env.reset()
    shares: list[float] = []
    timeline: list[tuple[int, float]] = []
    start = time.perf_counter()
    print(f"training {n} games x {t_max} steps an update, {args.minutes:g} min"
          + (f" or {args.updates} updates" if args.updates else ""), flush=True)
    while (args.updates == 0 or len(timeline) < args.updates) and \
            time.perf_counter() - start < 60 * args.minutes:
        began = time.perf_counter()
        for t in range(t_max):
            obs_buf[t] = torch.from_numpy(obs)  # (1) a copy into the buffer
            mask_buf[t] = torch.from_numpy(infos["action_mask"])
            valid_buf[t] = torch.from_numpy(~infos["autoreset"])  # (2)
            with torch.no_grad():
                action, logp, value = agent.act(obs, mask_buf[t])
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs, reward, terminated, _, infos = env.step(action.numpy())
            rew_buf[t] = torch.from_numpy(reward)
            done_buf[t] = torch.from_numpy(terminated)  # (3)
            shares += infos["outcome"][infos["_outcome"], 2].tolist()  # (4)
        with torch.no_grad():  # GAE, cut at every game's end (3)
            next_value = agent.value(agent.trunk(sparse_obs(obs)))
            adv = torch.zeros((t_max, n))
            last = torch.zeros(n)
            for t in reversed(range(t_max)):
                after = next_value if t == t_max - 1 else val_buf[t + 1]
                alive = (~done_buf[t]).float()
                delta = rew_buf[t] + UPDATE.gamma * after * alive - val_buf[t]
                last = delta + UPDATE.gamma * UPDATE.gae_lambda * alive * last
                adv[t] = last
            returns = adv + val_buf
        rows = valid_buf.flatten().nonzero().squeeze(1)  # the decisions of games only (2)
        b_obs = sparse_obs(obs_buf.flatten(0, 1)).take(rows)  # their non-zero entries
        b_act, b_logp = act_buf.flatten()[rows], logp_buf.flatten()[rows]
        columns = PhaseColumns(mask_buf.flatten(0, 1)[rows], b_act)  # rows by phase, once
        b_adv, b_ret = adv.flatten()[rows], returns.flatten()[rows]
        b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
        for _ in range(UPDATE.epochs):
            for batch in torch.randperm(len(rows)).chunk(UPDATE.minibatches):
                h = agent.trunk(b_obs.take(batch))
                logp, entropy = agent.head.log_prob(h, columns, batch)
                ratio = (logp - b_logp[batch]).exp()
                clipped = ratio.clamp(1 - UPDATE.clip, 1 + UPDATE.clip)
                policy_loss = torch.max(-b_adv[batch] * ratio, -b_adv[batch] * clipped).mean()
                value_loss = 0.5 * (agent.value(h) - b_ret[batch]).pow(2).mean()
                loss = (policy_loss + UPDATE.value_coef * value_loss
                        - UPDATE.entropy_coef * entropy.mean())
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), UPDATE.max_grad_norm)
                optimizer.step()
        timeline.append((len(rows), time.perf_counter() - began))
        recent = shares[-500:]
        wins = (f"win share of the last {len(recent)} {np.mean(recent):.1%}" if recent else
                "no game ended yet")
        decisions, seconds = map(sum, zip(*timeline))
        print(f"update {len(timeline)}: {len(shares)} games, {wins}, "
              f"{decisions / seconds:,.0f} learner steps/s", flush=True)
    return agent, timeline


def main() -> None:
    args = parse()
    agent, timeline = train(args)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    path = export_policy(agent.actor, Path(args.out) / "policy.npz", inputs="scaled",  # (5)
                         meta={"trained_by": "examples/ppo_loop.py", "updates": len(timeline)})
    print(f"policy written to {path}; seat it as ppo@{path}")
    if args.eval_games:
        result = evaluate(path, TRAINER.players, args.eval_games, deviators=())  # unseen seeds
        for name, row in result["against"].items():
            lo, hi = row["win_rate_ci95"]
            print(f"against 3 {name}: win rate {row['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] over "
                  f"{row['games']} games")


if __name__ == "__main__":
    main()
