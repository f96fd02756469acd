"""A language model at a seat (issue 57, landing in steps).

:mod:`.protocol` is the decision's protocol: the legal actions as the prompt lists them, and the
parse of a model's reply that never guesses (a reply maps to exactly one legal action, or it is a
failure with its reason).
"""

from .protocol import MAX_REPLY_CHARS, MAX_TALK_CHARS, Reply, legal_list, parse_reply

__all__ = ["MAX_REPLY_CHARS", "MAX_TALK_CHARS", "Reply", "legal_list", "parse_reply"]
