"""Reintegration: is a finished result still worth saying, and how, and when?

Pure functions over harness data (no I/O, no clock): the harness calls them at each chunk
boundary. `check_freshness` compares the evidence snapshot fixed at the request with the
conversation now and returns a `Verdict` with a reason; `spoken_text` words the reply
for a verdict; `may_speak` applies the delivery policy to the floor state.
"""

from __future__ import annotations

from dataclasses import dataclass

from venus.events import DeliveryPolicy, ErrorCategory, Verdict
from venus.harness.workitem import WorkItem

__all__ = ["Conversation", "FreshnessPolicy", "check_freshness", "may_speak", "spoken_text"]


@dataclass(frozen=True)
class FreshnessPolicy:
    """Thresholds of the freshness check.

    A result older than ``revise_after_s`` or after ``revise_after_turns`` further user
    utterances is framed as an answer to the earlier request (REVISE); one older than
    ``drop_after_s`` is dropped. Items the frontend retained are never revised or dropped
    for age. ``max_refreshes`` bounds re-runs on newer evidence.
    """

    revise_after_s: float = 60.0
    revise_after_turns: int = 2
    drop_after_s: float = 900.0
    max_refreshes: int = 1


@dataclass(frozen=True)
class Conversation:
    """What the conversation looks like now, as far as freshness is concerned."""

    time: float
    user_turns_since: int  # user utterances recorded after the request
    memory_version: int | None
    refresh_on_new_evidence: bool = False
    perishable: bool = True  # False for results that never go stale (a reminder)


def check_freshness(item: WorkItem, now: Conversation,
                    policy: FreshnessPolicy = FreshnessPolicy()) -> tuple[Verdict, str]:
    """Decide what to do with a finished item: deliver, revise, retry, replace or drop."""
    if item.superseded_by is not None:
        return Verdict.REPLACE, f"the request was superseded by {item.superseded_by}"
    error = item.result.error if item.result else None
    if error is not None and error.category is ErrorCategory.CANCELLED:
        return Verdict.DROP, "the work was cancelled"
    age = now.time - item.snapshot.time
    keep = item.retained or not now.perishable
    if not keep and age > policy.drop_after_s:
        return Verdict.DROP, f"stale: requested {age:.0f}s ago"
    if _newer_evidence(item, now) and item.refreshed < policy.max_refreshes:
        return Verdict.RETRY, (f"newer evidence: memory v{item.snapshot.memory_version} "
                               f"-> v{now.memory_version}")
    if not keep and (age > policy.revise_after_s
                              or now.user_turns_since >= policy.revise_after_turns):
        return Verdict.REVISE, (f"the conversation moved on ({age:.0f}s, "
                                f"{now.user_turns_since} user turns since the request)")
    return Verdict.DELIVER, "fresh"


def spoken_text(item: WorkItem, verdict: Verdict) -> str:
    """The words that deliver ``item`` under ``verdict``."""
    result = item.result
    summary = result.summary if result else ""
    if result is not None and not result.ok:
        summary = f"I couldn't finish that ({item.capability}): {summary}"
    if verdict is Verdict.REVISE:
        return f"About what you asked earlier: {summary}"
    return summary


def may_speak(policy: DeliveryPolicy, *, assistant_speaking: bool, user_speaking: bool) -> bool:
    """Whether a result under ``policy`` may start playing now."""
    if policy is DeliveryPolicy.INTERRUPT:
        return True
    if policy is DeliveryPolicy.SILENT:
        return False
    return not assistant_speaking and not user_speaking


def _newer_evidence(item: WorkItem, now: Conversation) -> bool:
    then = item.snapshot.memory_version
    return (now.refresh_on_new_evidence and then is not None and now.memory_version is not None
            and now.memory_version > then)
