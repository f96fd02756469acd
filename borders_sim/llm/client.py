"""The one call a language-model seat makes: an OpenAI-compatible chat completion.

``POST {base_url}/chat/completions`` with ``{"model", "messages", "temperature", "max_tokens"}``,
the protocol vLLM, llama.cpp's server, Ollama and hosted APIs serve, over ``httpx`` (the ``llm``
extra). The key is read from ``BORDERS_LLM_API_KEY``, else ``OPENAI_API_KEY`` (never from a spec,
an argument that is printed, or a record); without one no ``Authorization`` header is sent (a
local server needs none).

What can go wrong, and what it becomes:

* a transport error (refused connection, timeout, a reset), a ``429`` or a ``5xx``: retried up to
  ``http_retries`` times with exponential backoff (``backoff``, ``2 * backoff``, ...); past them, a
  :class:`BackendError`;
* any other status (``401``/``403`` a wrong key, ``404`` an unknown model or path, ``400``): a
  :class:`BackendError` at once;
* a ``200`` whose body is not a chat completion (no ``choices[0].message.content`` string): a
  :class:`BackendError` (the endpoint is not OpenAI-compatible);
* more tokens used than ``max_total_tokens`` over the client's life: a :class:`BackendError`.

A :class:`BackendError` is a failure of the run, never a bad reply: the seat does not turn it
into a fallback move (:mod:`.seat`). Its message is one line naming the endpoint and, where
there is one, the status code, last.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from ..checks import as_float, as_int
from ..install_hints import needs

#: The environment variables a key is read from, in order.
KEY_VARIABLES = ("BORDERS_LLM_API_KEY", "OPENAI_API_KEY")
#: Statuses worth another try: the backend is busy or failed this once.
RETRIED = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class BackendError(RuntimeError):
    """The endpoint refused or could not be reached: the run ends (one line, the endpoint named,
    the status code last where there is one)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Completion:
    """One reply: its ``text``, the tokens it cost (as the endpoint reports them; 0 where it
    does not), the seconds it took and the tries it needed (1 without a retry)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    tries: int


def api_key() -> str | None:
    """The key of :data:`KEY_VARIABLES`, the first one set and not empty, or None."""
    for name in KEY_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


class ChatClient:
    """Chat completions of ``model`` at ``base_url`` (module docstring).

    Args:
        model: the model's name as the endpoint knows it.
        base_url: the API's root, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is
            added).
        timeout: seconds one request may take.
        http_retries: further tries after a transport error, a 429 or a 5xx.
        backoff: seconds before the first retry (doubled before each next one).
        temperature: the sampling temperature sent (0: the model's most likely reply).
        max_tokens: the longest reply asked for (None: the endpoint's default).
        max_total_tokens: the tokens this client may use in all (None: no ceiling).

    Raises:
        ValueError: an option out of its range (named).
    """

    def __init__(self, model: str, base_url: str, timeout: float = 120.0, http_retries: int = 3,
                 backoff: float = 0.5, temperature: float = 0.0, max_tokens: int | None = 1024,
                 max_total_tokens: int | None = None) -> None:
        self.model, self.base_url = model, base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.timeout = as_float(timeout, "timeout", lo=0.001, hi=86400.0)
        self.http_retries = as_int(http_retries, "http_retries", lo=0, hi=20)
        self.backoff = as_float(backoff, "backoff", lo=0.0, hi=600.0)
        self.temperature = as_float(temperature, "temperature", lo=0.0, hi=2.0)
        self.max_tokens = None if max_tokens is None else as_int(max_tokens, "max_tokens", lo=1)
        self.max_total_tokens = (None if max_total_tokens is None
                                 else as_int(max_total_tokens, "max_total_tokens", lo=1))
        self.tokens_used = 0
        self._http = None

    def _client(self):
        if self._http is None:
            try:
                import httpx
            except ModuleNotFoundError as err:
                raise ModuleNotFoundError(needs("an llm seat", "llm", "httpx"),
                                          name="httpx") from err
            headers = {}
            key = api_key()
            if key is not None:
                headers["Authorization"] = f"Bearer {key}"
            self._http = httpx.Client(timeout=self.timeout, headers=headers)
        return self._http

    def complete(self, messages: list[dict], response_format: dict | None = None,
                 tools: list[dict] | None = None) -> Completion:
        """The model's reply to ``messages`` (``[{"role", "content"}, ...]``), constrained by
        ``response_format`` where given (OpenAI's ``{"type": "json_schema", ...}``, which vLLM,
        llama.cpp's server and Ollama honour too); with ``tools`` (OpenAI's function tools),
        the first one is the call asked for (``tool_choice``), and the reply's text is the
        arguments of the calls it made (its content where it made none).

        Raises:
            BackendError: the endpoint could not be reached or refused, past the retries
                (module docstring); the token ceiling was passed.
        """
        import httpx

        http = self._client()
        body = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if response_format is not None:
            body["response_format"] = response_format
        if tools:
            body["tools"] = tools
            body["tool_choice"] = {"type": "function",
                                   "function": {"name": tools[0]["function"]["name"]}}
        start = time.perf_counter()
        for attempt in range(self.http_retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                response = http.post(self.url, json=body)
            except httpx.HTTPError as err:
                if attempt == self.http_retries:
                    kind = type(err).__name__
                    raise BackendError(f"cannot reach {self.url} ({kind} after "
                                       f"{attempt + 1} tries)") from None
                continue
            if response.status_code == 200:
                break
            if response.status_code not in RETRIED or attempt == self.http_retries:
                tries = f" after {attempt + 1} tries" if attempt else ""
                raise BackendError(f"{self.url} refused model {self.model!r}{tries}: "
                                   f"{_why(response)}status {response.status_code}",
                                   response.status_code)
        return self._completion(response, time.perf_counter() - start, attempt + 1)

    def _completion(self, response, seconds: float, tries: int) -> Completion:
        try:
            data = response.json()
            message = data["choices"][0]["message"]
            calls = message.get("tool_calls") or []
            text = message["content"] if not calls else "\n".join(
                str(call["function"]["arguments"]) for call in calls)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise BackendError(f"{self.url} answered 200 without a chat completion "
                               "(choices[0].message.content or .tool_calls): is it "
                               "OpenAI-compatible?") from None
        if not isinstance(text, str):
            text = ""  # (a null content: a reply without an action)
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        prompt = _count(usage.get("prompt_tokens"))
        completion = _count(usage.get("completion_tokens"))
        self.tokens_used += prompt + completion
        if self.max_total_tokens is not None and self.tokens_used > self.max_total_tokens:
            raise BackendError(f"{self.url}: model {self.model!r} used {self.tokens_used:,} "
                               f"tokens, over the ceiling of {self.max_total_tokens:,}")
        return Completion(text, prompt, completion, seconds, tries)

    def close(self) -> None:
        """Close the connection pool (a later call opens another)."""
        if self._http is not None:
            self._http.close()
            self._http = None

    def __repr__(self) -> str:
        return f"ChatClient(model={self.model!r}, base_url={self.base_url!r})"


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _why(response) -> str:
    """The error message a refusal's body carries (OpenAI's ``{"error": {"message"}}``), cut to
    one short line and followed by ``; ``, or nothing."""
    try:
        error = response.json().get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        return ""
    if not isinstance(message, str) or not message.strip():
        return ""
    line = " ".join(message.split())
    return (line if len(line) <= 160 else line[:157] + "...") + "; "
