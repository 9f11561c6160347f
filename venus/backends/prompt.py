"""The prompt protocol for models not trained with the control tokens.

Above `base`. A model trained for full duplex emits ``<|listen|>`` / ``<|speak|>`` /
``<|turn_eos|>`` on its own; any other chat model is told the protocol in the system
prompt and then held to it:

* local models (`TransformersBackend`) by a **constrained choice**: after each second
  the three control tokens' logits are compared and the highest wins, so the model can
  only ever answer with a control token; only after ``<|speak|>`` does it generate free
  text, which stops at ``<|turn_eos|>``, at the end-of-turn token, or after a few tokens;
* remote models (`OpenAICompatibleBackend`) by **parsing** (`parse_control`), with a
  rule for each thing real models and servers do to the tokens (the table below);
  a reply with no token at all falls back to "speak when the user's turn ended and the
  reply is non-empty, else listen" (the backend knows the turn, the parser does not).

| case (example reply) | rule |
|---|---|
| token first (``<|speak|> Hi``) | that token; the text after it |
| token escaped or its brackets stripped by the server, the template or the model (``<speak>``, ``[speak]``, ``|speak|``, ``<|speak>``, ``&lt;|speak|&gt;``, ``\\<|speak|\\>``, ``**<|speak|>**``) | the same token |
| the bare word as the whole reply (``listen``, ``Speak.``) | that token; never a sentence that starts with the word (``Listen, the answer is...``) |
| token in the middle (``[3s-4s] assistant: <|speak|> Hi``) | the first token anywhere decides; the text before it is dropped (models echo the message framing there), the text after it is the reply |
| several tokens (``<|speak|> Hi <|turn_eos|>``) | the first decides; the next one ends the spoken text |
| other special tokens in the text (``<|im_end|>``) | removed from the spoken text |
| no token (``Sure, it is red.``, ``""``) | None: the fallback above decides |

Three more rules need the conversation, so the backend applies them
(`OpenAICompatibleBackend`): no token speaks only when the user's turn ended and the
reply has words (the fallback); words the assistant said in one of its last replies are
not spoken again (the token stands: small models copy their last reply every second);
``<|speak|>`` with no words at the end of the user's turn asks for the words in a second,
plain chat request without the protocol (small models emit the token and stop).

Every second is one user message (`chunk_message_text`): its time, the user's words
and notes; images ride along as the model's image parts. The assistant's answer to
that message is its control token (plus the reply text when speaking), so the running
context reads like a transcript the model can continue.
"""

from __future__ import annotations

import html
import re

from venus.backends.base import ChunkInput
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

# A control word between delimiters: the exact token, or what escaping and stripping
# leave of it (see the table in the module docstring).
_TOKEN = re.compile(r"(?:<\s*\|?|\[|\(|\|)\s*(listen|speak|turn[\s_-]?eos)\s*(?:\|?\s*>|\]|\)|\|)",
                    re.IGNORECASE)
_BARE = re.compile(r"^\s*(listen|speak|turn[\s_-]?eos)\s*[.!]?\s*$", re.IGNORECASE)
_SPECIAL = re.compile(r"<\|[^|<>\s]{1,40}\|>")
_ESCAPES = re.compile(r"\\(?=[<>|\[\]_])|\*\*|`")


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
    """The control token of a reply (None if none) and the text to speak, by the rules in
    the module docstring's table."""
    text = _ESCAPES.sub("", html.unescape(reply))
    match = _TOKEN.search(text)
    if match is None:
        bare = _BARE.match(text)
        return (_token(bare.group(1)), "") if bare else (None, _spoken(text))
    rest = text[match.end():]
    later = _TOKEN.search(rest)
    return _token(match.group(1)), _spoken(rest[:later.start()] if later else rest)


def _token(word: str) -> ControlToken:
    word = word.lower()
    return {"listen": ControlToken.LISTEN, "speak": ControlToken.SPEAK}.get(
        word, ControlToken.TURN_EOS)


def _spoken(text: str) -> str:
    return " ".join(_SPECIAL.sub(" ", text).split())
