"""Answering a question from a memory: one seam, in the order a question goes through it.

Layers inside (bottom to top): ``wordlists`` (data) -> ``words`` (what a question asks
for, what a text holds) -> ``question`` (`Question`, parsed once) -> ``rank`` (the
`UnitRanker` seam, `DenseRanker`), ``moments``, ``rules`` (`RuleRanker`: the rules as
named features), ``blend`` (`RerankBlend`), ``encoded`` (`EncoderRanker`: another text
encoder for answers), ``reply`` (`ExtractiveAnswerer`), ``generative`` (`ServerAnswerer`:
a reply from an OpenAI-compatible server, kept to the evidence), ``source`` (the
`AnswerSource` port the store implements) and ``options`` -> ``pipeline`` (from a
question to an `Answer`). Below the store: `memory.store` imports this package, never the
reverse. How a question is answered, rule by rule, is in ``docs/answers.md``.
"""

from memory.answering.blend import RerankBlend
from memory.answering.encoded import EncoderRanker
from memory.answering.generative import ServerAnswerer
from memory.answering.options import AnswerOptions
from memory.answering.question import Question
from memory.answering.rank import DenseRanker, RankContext, Scores, UnitRanker
from memory.answering.reply import NOT_SEEN, ExtractiveAnswerer, Reply, ReplyWriter, lead_units
from memory.answering.rules import FEATURES, Feature, RuleRanker
from memory.answering.source import AnswerSource, Candidates

__all__ = ["FEATURES", "NOT_SEEN", "AnswerOptions", "AnswerSource", "Candidates",
           "DenseRanker", "EncoderRanker", "ExtractiveAnswerer", "Feature", "Question",
           "RankContext", "Reply", "ReplyWriter", "RerankBlend", "RuleRanker", "Scores",
           "ServerAnswerer", "UnitRanker", "lead_units"]
