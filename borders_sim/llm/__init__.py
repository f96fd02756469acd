"""A language model at a seat: the spec ``llm:MODEL@URL`` and ``make("llm", model=...,
base_url=...)``, a bot that asks an OpenAI-compatible endpoint for each decision.

* :mod:`.seat`: :class:`LLMBot`, the seat (its prompt, its retries with the reason, its marked
  fallback, its figures);
* :mod:`.protocol`: the legal actions as the prompt lists them, and the parse of a reply that
  never guesses (a reply maps to exactly one legal action, or it is a failure with its reason);
* :mod:`.client`: the chat-completions call over ``httpx`` (the ``llm`` extra): the key from
  ``BORDERS_LLM_API_KEY`` or ``OPENAI_API_KEY``, timeouts, retries with backoff, a token ceiling;
  a backend's refusal ends the run in one line (:class:`BackendError`);
* :mod:`.rules_text`: the rules the prompt gives, generated from the rulings' text;
* :mod:`.local_server`: an OpenAI-compatible server on 127.0.0.1 whose "model" is a bot, for
  tests, examples and the harness's benchmark (no model, no network).

Seating one::

    from borders_sim.arena import run_tournament

    run_tournament(4, ["llm:qwen3-4b@http://127.0.0.1:8000/v1", "honest", "bluffer",
                       "strict"], games=10)
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable

from ..install_hints import needs
from .client import BackendError, ChatClient, Completion
from .protocol import MAX_REPLY_CHARS, MAX_TALK_CHARS, Reply, legal_list, parse_reply
from .seat import LLMBot, LLMStats

#: A spec: ``llm:MODEL@URL``, the URL an http(s) one (MODEL may hold ``:`` and ``/``, as
#: Ollama's ``qwen3:4b`` and hosted ``org/model`` names do).
SPEC = re.compile(r"llm:(?P<model>[^@\s]+)@(?P<url>https?://\S+)")

__all__ = ["BackendError", "ChatClient", "Completion", "LLMBot", "LLMStats", "MAX_REPLY_CHARS",
           "MAX_TALK_CHARS", "Reply", "bot_factory", "legal_list", "parse_reply", "parse_spec"]


def parse_spec(spec: str) -> tuple[str, str]:
    """``(model, base_url)`` of the spec ``llm:MODEL@URL``.

    Raises:
        ValueError: not of that form (the message shows the form and an example).
    """
    found = SPEC.fullmatch(spec) if isinstance(spec, str) else None
    if found is None:
        raise ValueError(f"bot {spec!r}: an llm seat is llm:MODEL@URL, e.g. "
                         "llm:qwen3-4b@http://127.0.0.1:8000/v1 (the URL of an OpenAI-compatible "
                         "API; the key comes from BORDERS_LLM_API_KEY or OPENAI_API_KEY)")
    return found["model"], found["url"]


def bot_factory(spec: str, **options) -> Callable[[int], LLMBot]:
    """The factory ``(seed) -> LLMBot`` of ``spec``: ``llm:MODEL@URL``, or ``llm`` with
    ``model`` and ``base_url`` among ``options`` (:func:`borders_sim.agents.make`); the other
    options are :class:`LLMBot`'s.

    Raises:
        ValueError: a bad spec or option (named).
    """
    if importlib.util.find_spec("httpx") is None:
        raise ValueError(needs(f"bot {spec!r}", "llm", "httpx"))
    if spec == "llm":
        missing = [name for name in ("model", "base_url") if name not in options]
        if missing:
            raise ValueError(f"make('llm', ...) needs {' and '.join(missing)}, e.g. "
                             "make('llm', model='qwen3-4b', base_url='http://127.0.0.1:8000/v1')")
    else:
        model, base_url = parse_spec(spec)
        options = {**options, "model": model, "base_url": base_url}
    LLMBot(seed=0, **options)  # (the options checked now, at the door)
    return lambda seed: LLMBot(seed=seed, **options)
