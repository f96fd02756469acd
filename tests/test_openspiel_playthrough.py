"""OpenSpiel's playthrough of ``python_borders``, kept and checked as OpenSpiel keeps its own.

``generate_playthrough`` (OpenSpiel's record of a random game: the game's type and sizes, then
states with every player's observation, the legal actions and the action taken) runs on the
game, the observation types it does not provide coming back as ``None``. The playthrough of a
3-player game is kept, xz-compressed (5 MB of text: every shown state prints three observation
tensors of 1870 entries), in ``tests/data/``; the test replays its actions and compares the whole
text, as OpenSpiel's own playthrough tests do. After a deliberate change of the game, write it
anew with ``python tests/test_openspiel_playthrough.py``.
"""

from __future__ import annotations

import lzma
import sys
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")  # the optional bench extra: pip install ".[bench]"
from absl import flags  # noqa: E402  (OpenSpiel's dependency)
from open_spiel.python.algorithms import generate_playthrough  # noqa: E402

import borders_sim.openspiel  # noqa: E402,F401  (registers python_borders)

KEPT = Path(__file__).resolve().parent / "data" / "python_borders_3p.playthrough.xz"
GAME = "python_borders(players=3)"
SEED = 1


def _flags_parsed() -> None:
    """``generate_playthrough`` reads an absl flag; parse the defaults outside an absl app."""
    if not flags.FLAGS.is_parsed():
        flags.FLAGS(["pytest"], known_only=True)


def test_observation_types_not_provided_are_none():
    game = pyspiel.load_game(GAME)
    perfect_recall = pyspiel.IIGObservationType(perfect_recall=True)
    public_only = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                             private_info=pyspiel.PrivateInfoType.NONE)
    private_only = pyspiel.IIGObservationType(perfect_recall=False, public_info=False,
                                              private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER)
    for kind in (public_only, private_only):
        assert game.make_py_observer(kind) is None
    assert game.make_py_observer(perfect_recall).tensor is None  # the record: a string only
    assert game.make_py_observer() is not None
    assert game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False)) is not None
    with pytest.raises(ValueError, match="take no parameters"):
        game.make_py_observer(None, {"x": 1})


def test_the_kept_playthrough_replays_exactly(tmp_path):
    _flags_parsed()
    path = tmp_path / "playthrough.txt"
    path.write_text(lzma.decompress(KEPT.read_bytes()).decode("utf-8"), encoding="utf-8")
    original, new = generate_playthrough.replay(str(path))
    assert original.startswith(f"game: {GAME}\n")
    assert new == original


def main() -> int:
    """Write the kept playthrough anew (after a deliberate change of the game)."""
    _flags_parsed()
    text = generate_playthrough.playthrough(GAME, action_sequence=None, seed=SEED)
    KEPT.write_bytes(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    print(f"wrote {KEPT} ({len(text):,} characters, {KEPT.stat().st_size:,} bytes compressed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
