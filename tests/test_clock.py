"""The injectable clock: virtual time jumps, wall time is real, nothing else reads time."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

import venus
from venus import clock as clock_module
from venus.clock import Clock, SimulatedClock, SimulationStalledError, WallClock


def test_simulated_sleep_jumps_to_the_next_timer():
    clock = SimulatedClock()
    woke: list[tuple[str, float]] = []

    async def sleeper(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append((name, clock.now()))

    async def main() -> None:
        await asyncio.gather(sleeper("hour", 3600), sleeper("second", 1), sleeper("half", 0.5))

    clock.run(main())
    assert woke == [("half", 0.5), ("second", 1.0), ("hour", 3600.0)]
    assert clock.now() == 3600.0


def test_asyncio_timeouts_run_on_virtual_time():
    clock = SimulatedClock(start=100.0)

    async def main() -> float:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(clock.sleep(1000), timeout=5)
        return clock.now()

    assert clock.run(main()) == 105.0


def test_same_program_same_interleaving():
    def trace() -> list[str]:
        clock = SimulatedClock()
        out: list[str] = []

        async def worker(name: str, period: float) -> None:
            for _ in range(5):
                await clock.sleep(period)
                out.append(f"{name}@{clock.now():g}")

        async def main() -> None:
            await asyncio.gather(worker("a", 1.0), worker("b", 0.5), worker("c", 1.0))

        clock.run(main())
        return out

    assert trace() == trace()


def test_sleep_until_and_negative_sleep():
    clock = SimulatedClock()

    async def main() -> list[float]:
        await clock.sleep_until(7.5)
        first = clock.now()
        await clock.sleep(-3)
        await clock.sleep_until(2.0)  # in the past: returns at once
        return [first, clock.now()]

    assert clock.run(main()) == [7.5, 7.5]


def test_run_sync_is_inline_in_simulated_time():
    clock = SimulatedClock()

    async def main() -> tuple[int, float]:
        return await clock.run_sync(lambda a, b: a + b, 2, 3), clock.now()

    assert clock.run(main()) == (5, 0.0)


def test_waiting_on_a_simulated_clock_from_another_loop_is_refused():
    clock = SimulatedClock()
    with pytest.raises(RuntimeError, match="outside SimulatedClock.run"):
        asyncio.run(clock.sleep(1))


def test_nested_run_is_refused():
    clock = SimulatedClock()

    async def inner() -> None:
        pass

    async def main() -> None:
        clock.run(inner())

    with pytest.raises(RuntimeError, match="already running"):
        clock.run(main())


def test_stalled_simulation_raises(monkeypatch):
    monkeypatch.setattr(clock_module, "_STALL_SECONDS", 0.01)
    clock = SimulatedClock()

    async def main() -> None:
        await asyncio.get_running_loop().create_future()  # nobody will resolve it

    with pytest.raises(SimulationStalledError):
        clock.run(main())


def test_wall_clock_is_monotonic_and_runs_blocking_work_in_a_thread():
    import threading

    clock = WallClock()
    main_thread = threading.get_ident()

    async def main() -> tuple[float, float, int]:
        before = clock.now()
        await clock.sleep(0)
        worker = await clock.run_sync(threading.get_ident)
        return before, clock.now(), worker

    before, after, worker = clock.run(main())
    assert 0.0 <= before <= after
    assert worker != main_thread


def test_both_clocks_satisfy_the_protocol():
    assert isinstance(SimulatedClock(), Clock)
    assert isinstance(WallClock(), Clock)


# Waiting and session time go through the clock; a perf_counter stopwatch that only
# measures how long something took (benchmarks, CLI timings) is allowed.
_FORBIDDEN = {("time", "time"), ("time", "monotonic"), ("time", "sleep"), ("asyncio", "sleep")}


def test_nothing_in_venus_reads_time_except_the_clock():
    root = Path(venus.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        if path.name == "clock.py" and path.parent == root:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and (node.value.id, node.attr) in _FORBIDDEN):
                offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert offenders == []


def test_run_inside_a_running_loop_names_the_fix():
    async def main() -> None:
        async def nothing() -> None:
            pass

        with pytest.raises(RuntimeError, match="session.arun"):
            WallClock().run(nothing())
        with pytest.raises(RuntimeError, match="session.arun"):
            SimulatedClock().run(nothing())

    asyncio.run(main())
