"""Built-in capabilities: what real users ask a video assistant to do in the background.

Above `venus.harness` (they are ordinary registered functions). `builtin_capabilities()`
returns them for a `venus.harness.Harness` or `venus.runtime.Session`:

* ``search_memory(query, k)``: the best-matching moments of the video so far;
* ``summarize_range(start, end, sentences)``: an extractive summary of a time range;
* ``make_quiz(start, end, questions)``: fill-in-the-blank questions from a time range;
* ``calculate(expression)``: safe arithmetic (ast-based, no eval);
* ``set_timer(seconds, message)``: a reminder that fires later in session time;
* ``watch(condition, every_time)``: alert when what is said or shown matches ("tell me
  when ...").
"""

from venus.capabilities.memory_tools import (
    MemoryHit,
    QuizAnswer,
    QuizQuestion,
    RangeSummary,
    SearchAnswer,
    make_quiz,
    search_memory,
    summarize_range,
)
from venus.capabilities.utility import Calculation, Reminder, calculate, evaluate, set_timer
from venus.capabilities.watch import WatchAlert, WatchEvidence, watch
from venus.harness.capability import Capability

__all__ = [
    "Calculation", "MemoryHit", "QuizAnswer", "QuizQuestion", "RangeSummary", "Reminder",
    "SearchAnswer", "WatchAlert", "WatchEvidence", "builtin_capabilities", "calculate",
    "evaluate", "make_quiz", "search_memory", "set_timer", "summarize_range", "watch",
]


def builtin_capabilities() -> list[Capability]:
    """The built-in capabilities, ready to register."""
    return [search_memory, summarize_range, make_quiz, calculate, set_timer, watch]
