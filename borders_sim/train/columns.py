"""The update's policy head over the action ids a decision can use.

A decision's legal ids lie in the id ranges of its phase (:data:`~borders_sim.rules.actions.
RANGES`): an announcement chooses among 4 of the 513 ids, an inspector's response among 20, a
bounty, the widest in the default rules, among about 60. The dense head computes all 513
logits of every row and the mask then gives all but a few of them probability exactly 0 and no
gradient, so most of the head's products, and of the softmax, entropy and KL passes over
``[B, 513]``, are spent on ids no row could take.

:class:`ColumnGroups` sorts a rollout's rows by the phase of their first legal id and gives each
group the union of its rows' legal ids; :func:`policy_terms` computes a group's logits on those
columns only (the head's weight rows gathered, so their gradient is scattered back into the
head), and from them each row's log-probability of its action, its entropy and its KL to an
anchor: the dense head's figures to float rounding, the same gradient (tested). A row without
a legal id (never dealt by the env; kept finite for safety) gets every column, as the dense
head gives it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from ..rules.actions import NUM_ACTIONS, RANGES

#: The logit given to an illegal action: finite (a row with no legal action stays a finite,
#: uniform distribution instead of NaN), and far below any real logit.
MASKED_LOGIT = -1e9


def _phase_of_id() -> np.ndarray:
    """int64[NUM_ACTIONS]: the index of each id's phase (the phase column of ``RANGES``)."""
    phases: dict[str, int] = {}
    out = np.empty(NUM_ACTIONS, dtype=np.int64)
    at = 0
    for _name, size, phase, _meaning in RANGES:
        out[at:at + size] = phases.setdefault(phase, len(phases))
        at += size
    return out


PHASE_OF_ID = _phase_of_id()
#: The group of the rows without a legal id: every column.
NO_LEGAL = int(PHASE_OF_ID.max()) + 1


class Group(NamedTuple):
    """One group of a minibatch."""

    rows: torch.Tensor  # int64[R]: the rows' positions in the minibatch
    cols: torch.Tensor  # int64[C]: the action ids whose logits the group computes
    legal: torch.Tensor  # bool[R, C]: the rows' legal mask on those ids
    taken: torch.Tensor  # int64[R]: the column of each row's action


class ColumnGroups:
    """The rows of a rollout (``mask``: bool[N, NUM_ACTIONS], ``action``: int[N], both on the
    CPU) grouped by the phase of their first legal id, each group with the union of its rows'
    legal ids; :meth:`split` gives a minibatch's groups on ``device``.

    Raises:
        ValueError: a row whose action is not one of its legal ids.
    """

    def __init__(self, mask: torch.Tensor, action: torch.Tensor,
                 device: torch.device | str = "cpu") -> None:
        m = mask.numpy()
        act = action.numpy()
        has = m.any(1)
        key = np.where(has, PHASE_OF_ID[m.argmax(1)], NO_LEGAL)
        wrong = np.flatnonzero(has & ~m[np.arange(len(m)), act])
        if len(wrong):
            raise ValueError(f"{len(wrong)} row(s) of the rollout hold an action that is not "
                             f"legal there (the first: row {wrong[0]}, action {act[wrong[0]]})")
        taken = np.zeros(len(m), dtype=np.int64)
        self.cols: dict[int, torch.Tensor] = {}
        for g in np.unique(key):
            rows = np.flatnonzero(key == g)
            cols = np.flatnonzero(m[rows].any(0)) if g != NO_LEGAL else np.arange(NUM_ACTIONS)
            where = np.zeros(NUM_ACTIONS, dtype=np.int64)
            where[cols] = np.arange(len(cols))
            taken[rows] = where[act[rows]]
            self.cols[int(g)] = torch.from_numpy(cols).to(device)
        self.key = torch.from_numpy(key).to(device)
        self.taken = torch.from_numpy(taken).to(device)
        self.mask = mask.to(device)

    def split(self, idx: torch.Tensor) -> list[Group]:
        """The groups of the minibatch of rows ``idx`` (on the device), positions in ``idx``
        order."""
        key = self.key[idx]
        groups = []
        for g, cols in self.cols.items():
            pos = (key == g).nonzero().squeeze(1)
            if len(pos):
                rows = idx[pos]
                groups.append(Group(pos, cols, self.mask[rows[:, None], cols[None, :]],
                                    self.taken[rows]))
        return groups


def kl_rows(logp: torch.Tensor, anchor_logp: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Each row's ``KL(pi || pi_anchor)`` over its legal columns (log-probabilities ``[B, C]``;
    illegal entries count 0)."""
    return (logp.exp() * (logp - anchor_logp)).masked_fill(~legal, 0.0).sum(-1)


class PolicyTerms(NamedTuple):
    """A minibatch's per-row figures, rows in the order ``order`` (positions in the
    minibatch)."""

    order: torch.Tensor
    logp: torch.Tensor  # the log-probability of the row's action
    entropy: torch.Tensor
    anchor_kl: torch.Tensor | None  # KL to the anchor (None without one)


def logits_at(head: torch.nn.Linear, h: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
    """The unmasked logits of the action ids ``cols`` only (``[B, len(cols)]``) of the policy
    head ``head`` (a ``Linear(H1, NUM_ACTIONS)`` with a bias) on its inputs ``h``."""
    return torch.nn.functional.linear(h, head.weight[cols], head.bias[cols])


def policy_terms(head: torch.nn.Linear, h: torch.Tensor, groups: list[Group],
                 anchor: torch.nn.Linear | None = None, anchor_h: torch.Tensor | None = None
                 ) -> PolicyTerms:
    """The :class:`PolicyTerms` of a minibatch whose policy head ``head`` reads ``h``
    (``[B, H1]``, :meth:`~.model.PolicyValueNet.trunk`), from its ``groups``
    (:meth:`ColumnGroups.split`); with an ``anchor`` head and its inputs ``anchor_h``, the KL
    to it (no gradient through the anchor)."""
    logps, entropies, kls = [], [], []
    for g in groups:
        logits = logits_at(head, h[g.rows], g.cols).masked_fill(~g.legal, MASKED_LOGIT)
        logp_all = torch.log_softmax(logits, dim=-1)
        logps.append(logp_all.gather(1, g.taken[:, None]).squeeze(1))
        probs = torch.softmax(logits, dim=-1)
        entropies.append(-(probs * logp_all.masked_fill(~g.legal, 0.0)).sum(-1))
        if anchor is not None:
            with torch.no_grad():
                a = logits_at(anchor, anchor_h[g.rows], g.cols).masked_fill(~g.legal, MASKED_LOGIT)
                a = torch.log_softmax(a, dim=-1)
            kls.append(kl_rows(logp_all, a, g.legal))
    return PolicyTerms(torch.cat([g.rows for g in groups]), torch.cat(logps),
                       torch.cat(entropies), torch.cat(kls) if anchor is not None else None)
