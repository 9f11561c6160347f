"""The prompt protocol for models not trained with the control tokens.

Above `base`. A model trained for full duplex emits ``<|listen|>`` / ``<|speak|>`` /
``<|turn_eos|>`` on its own; any other chat model is told the protocol in the system
prompt and then held to it:

* local models (`TransformersBackend`) by a **constrained choice**: after each second
  the three control tokens' logits are compared and the highest wins, so the model can
  only ever answer with a control token; only after ``<|speak|>`` does it generate free
  text, which stops at ``<|turn_eos|>``, at the end-of-turn token, or after a few tokens;
* remote models (`OpenAICompatibleBackend`) by **parsing**: the reply must start with a
  control token (``parse_control`` also accepts the bare word, e.g. ``listen``, because
  some servers strip special tokens); a reply with no token is taken as speech when it
  has text and as ``<|listen|>`` when empty.

Every second is one user message (`chunk_message_text`): its time, the user's words
and notes; images ride along as the model's image parts. The assistant's answer to
that message is its control token (plus the reply text when speaking), so the running
context reads like a transcript the model can continue.
"""

from __future__ import annotations

import re

from venus.backends.base import CONTROL_TOKENS, ChunkInput
from venus.events import ControlToken

__all__ = ["SYSTEM_PROMPT", "assistant_message_text", "chunk_message_text", "parse_control",
           "system_prompt"]

SYSTEM_PROMPT = (
    "You are {name}, a live assistant that sees the user's camera and hears them in real "
    "time, and can talk while listening. The conversation arrives one second at a time: "
    "each user message is one second, with its time, the camera frame for that second, "
    "and the words the user said in it ('(silence)' if none). Answer every second with "
    "exactly one control token first:\n"
    "<|listen|> stay silent: the user is talking, is talking to someone else, it is "
    "background noise or a short 'mm-hmm', or nothing needs saying;\n"
    "<|speak|> speak now or keep speaking: follow it with the next few words of your "
    "reply (one short sentence at most);\n"
    "<|turn_eos|> your turn is over: you have said what you had to say.\n"
    "If the user interrupts you with a question or 'wait', stop (<|listen|>) and then "
    "answer the new question. Keep spoken replies short and plain."
)
"""The system prompt of the protocol; ``{name}`` is the assistant's name."""

# Servers that strip special tokens leave "listen" or "[speak]"; accept those, but not
# a sentence that merely starts with the word ("Listen, the answer is...").
_BRACKETED = re.compile(r"^\s*(?:<\|?|\[|\()\s*(listen|speak|turn[_ ]?eos)\s*(?:\|?>|\]|\))\s*",
                        re.IGNORECASE)
_BARE = re.compile(r"^\s*(listen|speak|turn[_ ]?eos)\s*[.!]?\s*$", re.IGNORECASE)


def system_prompt(name: str = "Venus", extra: str = "") -> str:
    """The protocol's system prompt for an assistant called ``name``, plus ``extra``."""
    text = SYSTEM_PROMPT.format(name=name)
    return f"{text}\n{extra.strip()}" if extra.strip() else text


def chunk_message_text(chunk: ChunkInput) -> str:
    """The text of one second's user message (images are separate parts)."""
    words = " ".join(chunk.words.split()) or "(silence)"
    lines = [f"[{chunk.start:.0f}s-{chunk.end:.0f}s] user: {words}"]
    if chunk.assistant_speaking:
        lines.append("(your own voice is playing)")
    lines += [f"note: {n}" for n in chunk.notes if n.strip()]
    return "\n".join(lines)


def assistant_message_text(token: ControlToken, text: str = "") -> str:
    """What the assistant 'said' for one second, as the context records it."""
    return f"{token.value} {text.strip()}".strip() if text.strip() else token.value


def parse_control(reply: str) -> tuple[ControlToken | None, str]:
    """The control token a reply starts with (None if none) and the text after it.

    A ``<|turn_eos|>`` after the reply text ends the text there.
    """
    reply = reply.lstrip()
    token: ControlToken | None = None
    for value in CONTROL_TOKENS:
        if reply.startswith(value):
            token, reply = ControlToken(value), reply[len(value):]
            break
    else:
        match = _BRACKETED.match(reply) or _BARE.match(reply)
        if match:
            word = match.group(1).lower().replace(" ", "_")
            token = {"listen": ControlToken.LISTEN, "speak": ControlToken.SPEAK}.get(
                word, ControlToken.TURN_EOS)
            reply = reply[match.end():]
    for value in CONTROL_TOKENS:  # a later token ends the spoken text
        cut = reply.find(value)
        if cut >= 0:
            reply = reply[:cut]
    return token, " ".join(reply.split())
