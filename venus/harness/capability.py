"""Capabilities: plain Python functions with a contract the harness can enforce.

Above the harness data types (`workitem`, `context`). The `capability` decorator turns a
typed function, sync or async, into a `Capability`: name, description (first docstring
paragraph), input schema (pydantic model built from the parameters' type hints), output
schema (from the return hint), timeout, `RetryPolicy`, side effects, idempotency-key rule
and default delivery policy. Arguments are validated before anything runs; whatever the
function returns is validated against its output schema and normalized to a
`venus.events.WorkResult` (``summary`` and ``citations`` are taken from the output when it
has them). Pydantic stays here, at the I/O boundary of user code.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

from venus.errors import CapabilityDefinitionError
from venus.events import Citation, DeliveryPolicy, WorkResult
from venus.harness.context import CapabilityContext

__all__ = [
    "ArgumentsInvalid", "Capability", "CapabilityRegistry", "MalformedOutput", "RetryPolicy",
    "capability",
]

IdempotencyRule = Callable[[dict[str, Any]], str]
FollowUp = Callable[[dict[str, Any], WorkResult], "dict[str, Any] | None"]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry a failed attempt.

    ``attempts`` counts the first try. Only retryable failures are retried: a
    `venus.errors.CapabilityFailure` raised with ``retryable=True``, an exception of a
    type in ``retry_on``, or a timeout when ``on_timeout``. Side-effecting capabilities
    are never re-run with the same idempotency key, whatever this says.
    """

    attempts: int = 1
    backoff: float = 1.0  # seconds before the second attempt
    multiplier: float = 2.0
    max_backoff: float = 30.0
    on_timeout: bool = True
    retry_on: tuple[type[BaseException], ...] = ()

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        return min(self.max_backoff, self.backoff * self.multiplier ** (attempt - 1))


class ArgumentsInvalid(ValueError):
    """Arguments do not match a capability's input schema (recorded, nothing runs)."""


class MalformedOutput(ValueError):
    """A capability returned something its output schema does not allow."""


class Capability:
    """A registered function and its contract. Calling it calls the function directly."""

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None,
                 description: str | None = None, timeout: float | None = 30.0,
                 retry: RetryPolicy | None = None, side_effects: bool = False,
                 idempotency_key: IdempotencyRule | None = None,
                 policy: DeliveryPolicy = DeliveryPolicy.WHEN_FLOOR_FREE,
                 refresh_on_new_evidence: bool = False, perishable: bool = True,
                 follow_up: FollowUp | None = None) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        self.description = description or _first_paragraph(fn.__doc__) or self.name
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.side_effects = side_effects
        self.policy = DeliveryPolicy(policy)
        self.refresh_on_new_evidence = refresh_on_new_evidence
        self.perishable = perishable  # False: results never go stale (reminders)
        # A standing request: once a result is delivered, the harness asks for the same
        # capability again with the arguments this returns (None: the request ends).
        self.follow_up = follow_up
        self._key_rule = idempotency_key
        self.is_async = inspect.iscoroutinefunction(fn)
        self.input_model, self._context_param, returns = _contract(fn, self.name)
        self._output = TypeAdapter(returns)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Capability({self.name!r}, timeout={self.timeout}, side_effects={self.side_effects})"

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema()

    @property
    def output_schema(self) -> dict[str, Any]:
        return self._output.json_schema()

    def describe(self) -> dict[str, Any]:
        """The contract as JSON: what a frontend or model needs to call it."""
        return {"name": self.name, "description": self.description,
                "input_schema": self.input_schema, "output_schema": self.output_schema,
                "timeout": self.timeout, "side_effects": self.side_effects}

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Checked, coerced arguments as JSON-compatible values, or `ArgumentsInvalid`."""
        try:
            model = self.input_model.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}"
                                 for e in exc.errors())
            raise ArgumentsInvalid(f"arguments for {self.name!r} are invalid: {problems}") from None
        return model.model_dump(mode="json")

    def idempotency_key(self, arguments: dict[str, Any]) -> str:
        if self._key_rule is not None:
            return str(self._key_rule(arguments))
        return canonical_key(self.name, arguments)

    async def invoke(self, arguments: dict[str, Any], context: CapabilityContext) -> WorkResult:
        """Run once with validated ``arguments``; tool exceptions propagate to the caller."""
        kwargs = dict(self.input_model.model_validate(arguments))
        if self._context_param:
            kwargs[self._context_param] = context
        if self.is_async:
            value = await self.fn(**kwargs)
        else:
            value = await context.clock.run_sync(lambda: self.fn(**kwargs))
        return self.normalize(value)

    def normalize(self, value: Any) -> WorkResult:
        if isinstance(value, WorkResult):
            return value
        try:
            checked = self._output.validate_python(value)
        except ValidationError as exc:
            raise MalformedOutput(
                f"{self.name!r} returned output that does not match its return type: "
                f"{exc.errors()[0]['msg']}"
            ) from None
        data = self._output.dump_python(checked, mode="json")
        return WorkResult(ok=True, summary=_summary(checked, data), data=data,
                          citations=_citations(checked))


class CapabilityRegistry:
    """The capabilities a harness can route to, by name."""

    def __init__(self, capabilities: list[Capability | Callable[..., Any]] = ()) -> None:
        self._by_name: dict[str, Capability] = {}
        for cap in capabilities:
            self.register(cap)

    def register(self, cap: Capability | Callable[..., Any], **contract: Any) -> Capability:
        """Add a `Capability` (or a plain function, with ``contract`` keywords)."""
        if not isinstance(cap, Capability):
            cap = Capability(cap, **contract)
        if cap.name in self._by_name:
            raise CapabilityDefinitionError(
                f"a capability named {cap.name!r} is already registered; pick another name"
            )
        self._by_name[cap.name] = cap
        return cap

    def get(self, name: str) -> Capability | None:
        return self._by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[Capability]:
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)

    def describe(self) -> list[dict[str, Any]]:
        return [cap.describe() for cap in self]


def capability(fn: Callable[..., Any] | None = None, **contract: Any):
    """Decorator: ``@capability`` or ``@capability(timeout=5, side_effects=True, ...)``.

    The keywords are those of `Capability`. The decorated name is the `Capability`; it
    still calls the function when called directly.
    """
    if fn is not None:
        return Capability(fn, **contract)
    return lambda f: Capability(f, **contract)


def canonical_key(name: str, arguments: dict[str, Any]) -> str:
    """A stable short hash of a capability name and its (JSON) arguments."""
    text = json.dumps([name, arguments], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _contract(fn: Callable[..., Any], name: str) -> tuple[type[BaseModel], str | None, Any]:
    try:
        hints = get_type_hints(fn, include_extras=True)
    except (NameError, TypeError, AttributeError) as exc:  # unresolvable annotations
        raise CapabilityDefinitionError(
            f"cannot read the type hints of capability {name!r} ({exc}); import the types "
            f"its annotations name"
        ) from None
    fields: dict[str, Any] = {}
    context_param = None
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise CapabilityDefinitionError(
                f"capability {name!r} takes *{param.name}; list its arguments explicitly"
            )
        hint = hints.get(param.name)
        if hint is CapabilityContext:
            context_param = param.name
            continue
        if hint is None:
            raise CapabilityDefinitionError(
                f"parameter {param.name!r} of capability {name!r} has no type hint; "
                f"add one so its arguments can be validated"
            )
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (hint, default)
    model = create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    return model, context_param, hints.get("return", Any)


def _first_paragraph(doc: str | None) -> str:
    return inspect.cleandoc(doc).split("\n\n")[0].replace("\n", " ") if doc else ""


def _summary(value: Any, data: Any) -> str:
    if isinstance(value, str):
        return value
    summary = getattr(value, "summary", None)
    if summary is None and isinstance(value, dict):
        summary = value.get("summary")
    if summary is not None:
        return str(summary)
    return json.dumps(data, default=str)[:200]


def _citations(value: Any) -> tuple[Citation, ...]:
    cites = getattr(value, "citations", None)
    if cites is None and isinstance(value, dict):
        cites = value.get("citations")
    if not cites:
        return ()
    return tuple(c if isinstance(c, Citation) else Citation(**dict(c)) for c in cites)
