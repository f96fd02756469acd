"""A language model in a seat: :class:`LLMBot`, a bot (``act(observation, action_mask)``) that
asks an OpenAI-compatible endpoint for each decision.

Each decision is one conversation (the model keeps no memory between decisions; its view does):

1. the system message: what BORDERS is and the rules a player needs, generated from the rules'
   own text (:mod:`.rules_text`), and the reply's form;
2. the user message: the seat's view (``observe_text``'s text, or with ``view="json"``
   ``observe_json``'s dict) read from the observation vector alone, so the model sees exactly
   what the seat may know; in a tournament, the other seats' decisions since its last one as
   this seat saw them (:meth:`LLMBot.witness`: a packed card stays hidden) and the table talk;
   and last, in the default mode, the legal actions as a JSON array of
   ``{"id": ..., "action": ...}`` objects (:func:`~.protocol.legal_list`; ``legal="none"``
   leaves the list out: the model names an action's text; ``structured=True`` also asks the
   endpoint for a reply constrained to a JSON schema whose action is one of the legal ids);
3. the reply is parsed by :func:`~.protocol.parse_reply`, which never guesses. A failure is
   told to the model with its reason and it is asked again, up to ``retries`` times; then the
   ``fallback`` bot (default ``random``) plays the decision, and the decision is marked.

**Table talk** (``talk=True``): the model may add a short public message to its action
(``{"action": ..., "talk": "..."}``, at most :data:`~.protocol.MAX_TALK_CHARS` characters). A
tournament says it to every other seat that listens (:meth:`LLMBot.hear`): each language
model's next prompt shows the messages said since its last decision, before its legal actions.
Bots ignore it, and the game's state, its rules and the environments never see it.

So the action taken is always the parse of the model's last reply or a marked fallback. After
each decision :attr:`LLMBot.last_note` holds what a game record adds to the decision's line:
``{"tries": n}`` (and ``"talk"`` when the reply said something), or for a fallback
``{"tries": n, "fallback": "random", "failure": "<the last reason>"}``. :attr:`LLMBot.stats`
counts decisions, replies legal at the first try, retries, fallbacks, seconds and tokens.

A refusal by the backend (:class:`~.client.BackendError`: a wrong key, an unknown model, an
endpoint that cannot be reached, a 429 or 5xx past the client's retries) is never a bad reply:
it propagates and ends the run.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from ..agents.base import Bot
from ..checks import as_choice, as_int, as_seed
from ..game.text_view import json_to_text
from ..game.views import describe
from ..rules.actions import NUM_ACTIONS
from ..rules.observation import O_SEAT, OBS_SIZE
from ..rules.state import MAX_PLAYERS
from .client import ChatClient
from .protocol import MAX_TALK_CHARS, legal_list, parse_reply
from .rules_text import rules_summary
from .transcript import ReplayClient

#: How the legal actions are given: a JSON array of ``{"id", "action"}`` objects in the last
#: user message (the default), or not at all (the model names an action's text).
LEGAL_MODES = ("list", "none")
#: The view's forms: ``observe_text``'s text or ``observe_json``'s dict.
VIEWS = ("text", "json")
#: The longest failure reason a record keeps.
MAX_REASON_CHARS = 300
#: The most decisions of the other seats a prompt lists (the latest ones).
MAX_EVENTS = 60

_PREAMBLE = """You are a player of BORDERS, a card game of smuggling and bluffing for 3 to 8 \
players. In the rules below the inspecting player is called the "agent"; the table calls that \
player the inspector (badge A, and B with 6 or more players). Your goal is the highest score at \
the end of the game.

The game is played as a sequence of decisions, one player at a time; haggling and deals are \
actions like any other (offers of gold or goods, accepted or refused), and so are the \
announcement, packing the crate, inspecting and the action cards. At each of your decisions you \
get your view of the table and choose exactly one of your legal actions.

# Rules
"""

_REPLY = """
# Your reply
Think if you like, then end your reply with one JSON object: {{"action": {example}}}{talk}. \
Name exactly one action; it must be one of the legal actions you are given."""

_TALK = (""" You may add a short public message to the table, seen by every player: \
{"action": ..., "talk": "..."} (at most %d characters).""" % MAX_TALK_CHARS)


@dataclass
class LLMStats:
    """A seat's figures over its decisions (:class:`LLMBot`)."""

    decisions: int = 0
    legal_first: int = 0  # decisions whose first reply named a legal action
    retries: int = 0  # replies asked for again, in all
    fallbacks: int = 0
    seconds: float = 0.0  # waiting for the endpoint, in all
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_dict(self) -> dict:
        """The figures and their shares, JSON-ready."""
        d = self.decisions
        return {**self.__dict__,
                "legal_first_pct": round(100 * self.legal_first / d, 2) if d else None,
                "mean_seconds": round(self.seconds / self.requests, 4) if self.requests else None}


class LLMBot(Bot):
    """A seat played by the model ``model`` at the OpenAI-compatible ``base_url`` (module
    docstring).

    Args:
        model: the model's name as the endpoint knows it.
        base_url: the API's root (``http://127.0.0.1:8000/v1``).
        seed: the fallback bot's seed (the model's replies are the endpoint's).
        retries: how many times a failed reply is told its reason and asked again.
        fallback: the bot name that plays a decision the model failed (``random``, ``honest``,
            ...: :func:`borders_sim.agents.make`).
        legal: ``"list"`` (the legal actions in the last user message) or ``"none"``.
        view: ``"text"`` or ``"json"``.
        talk: whether the model is invited to add a public message to its action.
        structured: ask the endpoint for a reply constrained to a JSON schema (its action one
            of the legal ids: :meth:`schema`), where it supports ``response_format``; the
            parse reads the reply all the same.
        tools: ask for the reply as a call of the function tool ``act`` whose arguments are
            that schema's object (:meth:`tool`), where the endpoint supports tool calls; the
            call's arguments go through the same parse.
        replay: a directory of recorded transcripts to answer from instead of the endpoint
            (:mod:`.transcript`: the seat is found by its seed, each request checked).
        client: a :class:`~.client.ChatClient` to use (default: one made from ``model``,
            ``base_url`` and ``client_options``).
        client_options: :class:`~.client.ChatClient`'s options (``timeout``,
            ``http_retries`` of transport errors and busy answers, ``backoff``, ``max_tokens``, ``max_total_tokens``, ``temperature``).

    Raises:
        ValueError: a bad option (named).
    """

    def __init__(self, model: str, base_url: str, seed: int = 0, retries: int = 2,
                 fallback: str = "random", legal: str = "list", view: str = "text",
                 talk: bool = False, structured: bool = False, tools: bool = False,
                 replay: str | os.PathLike | None = None,
                 client: ChatClient | None = None, **client_options) -> None:
        from ..agents.bots import make  # (the agents import this package by name)

        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"llm seat: model must be a model's name, got {model!r}")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"llm seat: base_url must be an http:// or https:// URL, got "
                             f"{base_url!r}")
        self.model, self.base_url = model, base_url
        self.name = f"llm:{model}"
        self.retries = as_int(retries, "retries", lo=0, hi=20)
        self.legal_mode = as_choice(legal, "legal", LEGAL_MODES)
        self.view = as_choice(view, "view", VIEWS)
        self.talk = bool(talk)
        self.structured = bool(structured)
        self.tools = bool(tools)
        if self.structured and self.tools:
            raise ValueError("llm seat: structured (a JSON-schema reply) and tools (a tool "
                             "call) are two ways to ask for the same object: choose one")
        self.fallback_name = fallback
        self.fallback = make(fallback, as_seed(seed))
        if replay is not None:
            client = ReplayClient(replay, as_seed(seed), model, base_url)
        self.client = client if client is not None else ChatClient(model, base_url,
                                                                   **client_options)
        self.stats = LLMStats()
        self.last_note: dict | None = None
        self.last_messages: list[dict] = []
        self.heard: list[tuple[int, str]] = []  # table talk since this seat's last decision
        self.witnessed: list[str] = []  # the other seats' decisions since then, as seen here
        #: every request of this bot and its reply (:mod:`.transcript`: a game's record keeps
        #: it beside the trace)
        self.system = self.system_message()
        self.transcript = {"model": model, "base_url": base_url, "bot_seed": as_seed(seed),
                           "system": self.system, "requests": []}

    def system_message(self) -> str:
        """The system message of every decision (module docstring)."""
        return system_text(self.legal_mode, self.talk)

    def user_message(self, observation: np.ndarray, legal: list[int]) -> tuple[str, list]:
        """The user message of a decision and its legal ``(id, text)`` pairs."""
        text, pairs = seat_view(observation, legal, self.view, self.legal_mode)
        if self.witnessed:
            shown = self.witnessed[-MAX_EVENTS:]
            skipped = len(self.witnessed) - len(shown)
            text += ("\n\nWhat the other seats did since your last decision"
                     + (f" (the last {len(shown)} of {len(self.witnessed)})" if skipped else "")
                     + ":\n" + "\n".join(f"  {line}" for line in shown))
        if self.heard:
            said = "\n".join(f"  p{seat}: {json.dumps(words)}" for seat, words in self.heard)
            text += f"\n\nTable talk since your last decision (public; it binds no one):\n{said}"
        if self.legal_mode == "list":
            text += legal_text(pairs)
        else:
            text += "\n\nName one of your legal actions by its exact text."
        return text, pairs

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action the model's reply names, or after ``retries`` failed replies the
        fallback bot's, marked (module docstring).

        Raises:
            BackendError: the endpoint refused or could not be reached (the run ends).
            ValueError: an observation or mask of the wrong shape, or a mask with no action.
        """
        obs = np.asarray(observation, dtype=np.float32)
        mask = np.asarray(action_mask)
        if obs.shape != (OBS_SIZE,) or mask.shape != (NUM_ACTIONS,):
            raise ValueError(f"{self.name} seat: expected an observation of shape ({OBS_SIZE},) "
                             f"and a mask of shape ({NUM_ACTIONS},), got {obs.shape} and "
                             f"{mask.shape}")
        legal = [int(a) for a in np.flatnonzero(mask)]
        if not legal:
            raise ValueError(f"{self.name} seat: the action mask allows no action")
        text, pairs = self.user_message(obs, legal)
        self.heard, self.witnessed = [], []
        messages = [{"role": "system", "content": self.system},
                    {"role": "user", "content": text}]
        s = self.stats
        s.decisions += 1
        for attempt in range(self.retries + 1):
            ids = [a for a, _ in pairs]
            done = self.client.complete(messages, self.schema(ids) if self.structured else None,
                                        [self.tool(ids)] if self.tools else None)
            waited = round(done.seconds, 4)  # (as the transcript keeps it: a replay's figures)
            self.transcript["requests"].append({
                "decision": s.decisions - 1, "try": attempt, "messages": messages[1:],
                "reply": done.text, "prompt_tokens": done.prompt_tokens,
                "completion_tokens": done.completion_tokens, "seconds": waited})
            s.requests += 1
            s.seconds += waited
            s.prompt_tokens += done.prompt_tokens
            s.completion_tokens += done.completion_tokens
            reply = parse_reply(done.text, pairs)
            if reply.ok:
                s.legal_first += attempt == 0
                self.last_note = {"tries": attempt + 1}
                if reply.talk and self.talk:
                    self.last_note["talk"] = reply.talk
                self.last_messages = messages + [{"role": "assistant", "content": done.text}]
                return int(reply.action)
            if attempt < self.retries:
                s.retries += 1
                messages = messages + [{"role": "assistant", "content": done.text},
                                       {"role": "user", "content": retry_text(reply.failure)}]
        s.fallbacks += 1
        self.last_note = {"tries": self.retries + 1, "fallback": self.fallback_name,
                          "failure": _cut(reply.failure)}
        self.last_messages = messages + [{"role": "assistant", "content": done.text}]
        return int(self.fallback.act(obs, mask))

    def hear(self, seat: int, words: str) -> None:
        """Table talk: ``seat`` said ``words`` (shown in this seat's next prompt, quoted as a
        JSON string)."""
        self.heard.append((int(seat), str(words)[:MAX_TALK_CHARS]))

    def decision_schema(self, legal: list[int]) -> dict:
        """The JSON schema of a reply: an object whose ``action`` is one of the ``legal`` ids
        (and with talk on, an optional ``talk`` string)."""
        properties: dict = {"action": {"type": "integer", "enum": legal}}
        if self.talk:
            properties["talk"] = {"type": "string", "maxLength": MAX_TALK_CHARS}
        return {"type": "object", "properties": properties, "required": ["action"],
                "additionalProperties": False}

    def schema(self, legal: list[int]) -> dict:
        """The ``response_format`` of a structured request (:meth:`decision_schema`)."""
        return {"type": "json_schema", "json_schema": {
            "name": "decision", "strict": not self.talk, "schema": self.decision_schema(legal)}}

    def tool(self, legal: list[int]) -> dict:
        """The function tool ``act`` of a tool-call request, its parameters
        :meth:`decision_schema`."""
        return {"type": "function", "function": {
            "name": "act", "description": "Take your decision: one of the legal actions, by id.",
            "parameters": self.decision_schema(legal)}}

    def witness(self, seat: int, action: str) -> None:
        """Seat ``seat`` took ``action`` (its text as this seat saw it): listed in this seat's
        next prompt."""
        self.witnessed.append(f"p{int(seat)}: {action}")

    def figures(self) -> dict:
        """The seat's counters (:class:`LLMStats`), which a tournament sums by bot name."""
        return dict(self.stats.__dict__)

    def __repr__(self) -> str:
        return f"LLMBot(model={self.model!r}, base_url={self.base_url!r})"


def system_text(legal_mode: str = "list", talk: bool = False) -> str:
    """The system message of a seat (module docstring): what BORDERS is, the rules, and the
    reply's form (an id in ``legal_mode="list"``, an action's text otherwise; the talk with
    ``talk``)."""
    example = "<id>" if legal_mode == "list" else '"<the action\'s text>"'
    return (_PREAMBLE + rules_summary()
            + _REPLY.format(example=example, talk=_TALK if talk else ""))


def seat_view(observation: np.ndarray, legal: list[int], view: str = "text",
              legal_mode: str = "list") -> tuple[str, list[tuple[int, str]]]:
    """The view of the seat whose ``observation`` this is (``observe_text``'s text, or
    ``observe_json``'s dict with ``view="json"``), read from the vector alone, and its legal
    ``(id, text)`` pairs; in ``legal_mode="list"`` the view leaves its legal actions out (the
    prompt gives them last, as :func:`legal_text`)."""
    seat = int(np.argmax(observation[O_SEAT:O_SEAT + MAX_PLAYERS]))
    described = describe(observation, seat, legal)
    pairs = [(item["id"], item["action"]) for item in described["legal_actions"]]
    if legal_mode == "list":
        described = {**described, "legal_actions": []}
    text = json_to_text(described) if view == "text" else json.dumps(described)
    return text, pairs


def legal_text(pairs: list[tuple[int, str]]) -> str:
    """The legal actions as the prompt ends with them: a JSON array of ``{"id", "action"}``."""
    return f"\n\nYour legal actions (JSON):\n{legal_list(pairs)}"


def retry_text(failure: str) -> str:
    """What a model is told after a reply that named no legal action."""
    return (f"Your reply could not be used: {failure}. Reply again, ending with one JSON "
            f"object naming one legal action.")


def _cut(reason: str) -> str:
    return reason if len(reason) <= MAX_REASON_CHARS else reason[:MAX_REASON_CHARS - 3] + "..."
