"""Built-in utility capabilities: safe arithmetic and a timer/reminder in session time.

``calculate`` parses the expression with `ast` and evaluates only numbers, arithmetic
operators and a few math functions: no ``eval``, no names, no attribute access, and
bounded exponents so "9**9**9" cannot hang the harness. ``set_timer`` waits on the
session's clock (simulated or wall) and its result never goes stale.
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from venus.errors import CapabilityFailure
from venus.events import DeliveryPolicy
from venus.harness.capability import capability
from venus.harness.context import CapabilityContext

__all__ = ["Calculation", "Reminder", "calculate", "evaluate", "set_timer"]

MAX_TIMER_S = 24 * 3600.0
_MAX_EXPONENT = 10_000
_MAX_MAGNITUDE = 1e300

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_FUNCTIONS = {"sqrt": math.sqrt, "abs": abs, "round": round, "min": min, "max": max,
              "log": math.log, "log10": math.log10, "exp": math.exp, "sin": math.sin,
              "cos": math.cos, "tan": math.tan, "floor": math.floor, "ceil": math.ceil}
_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}


@dataclass(frozen=True)
class Calculation:
    summary: str
    expression: str
    value: float


@dataclass(frozen=True)
class Reminder:
    summary: str
    message: str
    due: float  # session time it fired


@capability(timeout=2.0)
def calculate(expression: Annotated[str, Field(min_length=1, max_length=200)]) -> Calculation:
    """Evaluate an arithmetic expression such as "(3 + 4) * 2 ^ 3" or "sqrt(2) / 2"."""
    value = evaluate(expression)
    shown = int(value) if float(value).is_integer() and abs(value) < 1e15 else round(value, 10)
    return Calculation(f"{expression.strip()} = {shown}", expression, float(value))


@capability(timeout=None, perishable=False, policy=DeliveryPolicy.WHEN_FLOOR_FREE)
async def set_timer(seconds: Annotated[float, Field(gt=0, le=MAX_TIMER_S)],
                    context: CapabilityContext,
                    message: Annotated[str, Field(max_length=200)] = "Time's up!") -> Reminder:
    """Remind the user of something after a number of seconds of session time."""
    await context.clock.sleep(seconds)
    due = context.snapshot.time + seconds
    return Reminder(f"Reminder: {message}", message, due)


def evaluate(expression: str) -> float:
    """The value of an arithmetic expression, or `CapabilityFailure` naming the problem."""
    text = expression.replace("^", "**").replace("×", "*").replace("÷", "/")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise CapabilityFailure(f"{expression!r} is not an arithmetic expression") from None
    try:
        value = _eval(tree.body)
    except (ZeroDivisionError, OverflowError, ValueError, TypeError) as exc:
        raise CapabilityFailure(f"cannot calculate {expression!r}: {exc}") from None
    if isinstance(value, complex) or not math.isfinite(value) or abs(value) > _MAX_MAGNITUDE:
        raise CapabilityFailure(f"{expression!r} has no finite real value")
    return value


def _eval(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        return _bounded(_BINARY[type(node.op)](left, right))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS and not node.keywords):
        return _bounded(_FUNCTIONS[node.func.id](*(_eval(a) for a in node.args)))
    raise CapabilityFailure(f"only numbers, + - * / // % ** and {', '.join(_FUNCTIONS)} are "
                            f"allowed in a calculation (found {type(node).__name__})")



def _check_power(base: Any, exponent: Any) -> None:
    # Refuse before computing: a huge integer power would block the event loop.
    if isinstance(exponent, complex) or abs(exponent) > _MAX_EXPONENT:
        raise ValueError(f"exponent {exponent} is too large")
    if not isinstance(base, complex) and abs(base) > 1 and exponent * math.log10(abs(base)) > 300:
        raise ValueError("the result would be astronomically large")


def _bounded(value: Any) -> Any:
    if isinstance(value, (int, float)) and abs(value) > _MAX_MAGNITUDE:
        raise ValueError("the result is too large")
    return value
