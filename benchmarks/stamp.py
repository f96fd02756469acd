"""The stamp a generated section carries of the policy files it measured.

A section that measures the shipped ``ppo`` (the exploit table, the ladder) ends with
``policy files DIGEST.``, a short digest of the shipped file; the population section's digest
also covers every zoo member. ``tests/test_readme_tables.py`` recomputes the digest and fails
when a file changed after its section was made.
"""

from __future__ import annotations

import hashlib

from borders_sim.policies.network import SHIPPED_WEIGHTS
from borders_sim.policies.zoo import ZOO, zoo_path


def weights_digest(zoo: bool = False) -> str:
    """The first 16 hex digits of the SHA-256 of the shipped policy file, then (``zoo``) every
    zoo member's file in :data:`~borders_sim.policies.zoo.ZOO`'s order."""
    digest = hashlib.sha256(SHIPPED_WEIGHTS.read_bytes())
    for name in ZOO if zoo else ():
        digest.update(zoo_path(name).read_bytes())
    return digest.hexdigest()[:16]


def stamp(zoo: bool = False) -> str:
    """The sentence a section ends with: ``policy files DIGEST.``"""
    return f"policy files {weights_digest(zoo)}."
