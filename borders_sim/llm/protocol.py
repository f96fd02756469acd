"""One decision between the table and a language model: the legal actions as the prompt lists
them (:func:`legal_list`), and the model's reply read back (:func:`parse_reply`).

**The reply** is a JSON object ``{"action": <id or action string>, "talk": "<optional>"}``,
which reasoning text may precede or follow (a fenced ```` ```json ```` block is read the same).
The parse never guesses: a reply maps to exactly one legal action, or it is a failure whose
reason says why, one line, to be shown to the model when it is asked again:

* ``"action"`` an int is an action id (a string of digits, ``"17"``, is read as one; no action
  string is all digits); it must be legal now;
* ``"action"`` a string is an action's text exactly as the list gives it (spaces at its ends
  ignored); case, look-alike letters, a prefix or a synonym are unknown strings, never matched;
* several JSON objects with ``"action"`` must name the same action, else the reply names two
  actions and fails (objects without ``"action"`` are ignored, and so is an object inside
  another object or an array: ``{"reply": {"action": 3}}`` names none);
* no JSON object with ``"action"``, an empty reply, a reply over :data:`MAX_REPLY_CHARS`
  characters, a bool, float, null, list or object as the action, or a ``"talk"`` that is not a
  string of at most :data:`MAX_TALK_CHARS` characters: each a failure with its reason.

>>> legal = [(3, "pass"), (17, "announce 2 havana")]
>>> parse_reply('I will pass. {"action": "pass"}', legal)
Reply(action=3, talk=None, failure=None)
>>> parse_reply('{"action": 5}', legal).failure
'action 5 is not legal now (the legal ids: 3, 17)'
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

#: The longest reply read (longer ones fail unread: a model that rambles is told so).
MAX_REPLY_CHARS = 20_000
#: The longest table talk a decision may carry.
MAX_TALK_CHARS = 280


@dataclass(frozen=True)
class Reply:
    """A reply read: the legal ``action`` it names and its ``talk`` (None without), or the
    ``failure`` (its reason, one line) with ``action`` None."""

    action: int | None
    talk: str | None = None
    failure: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the reply named a legal action."""
        return self.failure is None


def legal_list(legal: Sequence[tuple[int, str]]) -> str:
    """The legal actions as the default prompt gives them: a JSON array of ``{"id": ...,
    "action": ...}`` objects, in id order."""
    return json.dumps([{"id": int(a), "action": text} for a, text in sorted(legal)])


def _objects(text: str) -> list[dict]:
    """Every outermost JSON object in ``text``, in order, reasoning text around them skipped (an
    object inside another object or inside an array is not one of them)."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while True:
        starts = [k for k in (text.find("{", at), text.find("[", at)) if k >= 0]
        if not starts:
            return found
        at = min(starts)
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            at += 1
            continue
        if isinstance(value, dict):
            found.append(value)
        at = end


def _action(value: object, ids: dict[int, str], by_text: dict[str, int]) -> int | str:
    """The legal id ``value`` names, or the failure's reason (a str)."""
    shown = ", ".join(map(str, sorted(ids)))
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return (f"action must be a legal id or a legal action's text, got "
                f"{json.dumps(value)[:80]}")
    if isinstance(value, int):
        if value in ids:
            return value
        return f"action {value} is not legal now (the legal ids: {shown})"
    text = value.strip()
    if text in by_text:
        return by_text[text]
    return f"action {json.dumps(value)[:80]} is none of the legal actions' texts"


def parse_reply(text: str, legal: Sequence[tuple[int, str]]) -> Reply:
    """The legal action the reply ``text`` names, and its talk, or the failure (module
    docstring). ``legal``: the ``(id, action text)`` pairs legal now."""
    if not isinstance(text, str) or not text.strip():
        return Reply(None, failure="the reply is empty")
    if len(text) > MAX_REPLY_CHARS:
        return Reply(None, failure=f"the reply has {len(text):,} characters, more than "
                                   f"{MAX_REPLY_CHARS:,}")
    ids = {int(a): t for a, t in legal}
    by_text = {t: a for a, t in ids.items()}
    named = [obj for obj in _objects(text) if "action" in obj]
    if not named:
        return Reply(None, failure='the reply holds no JSON object with "action"')
    actions, talk = [], None
    for obj in named:
        found = _action(obj["action"], ids, by_text)
        if isinstance(found, str):
            return Reply(None, failure=found)
        actions.append(found)
        if "talk" in obj and obj["talk"] is not None:
            talk = obj["talk"]
    if len(set(actions)) > 1:
        return Reply(None, failure=f"the reply names {len(set(actions))} different actions "
                                   f"({', '.join(ids[a] for a in dict.fromkeys(actions))})")
    if talk is not None and (not isinstance(talk, str) or len(talk) > MAX_TALK_CHARS):
        return Reply(None, failure=f"talk must be a string of at most {MAX_TALK_CHARS} "
                                   f"characters")
    return Reply(actions[0], talk=talk or None)
