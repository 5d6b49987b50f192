"""Per-client limits of ``damier serve``: how fast one client may start new work.

A client is known by its player cookie and by its IP address; a limit holds for
each (a client that drops its cookie to get a fresh one is still one address).
:class:`RateLimit` is a token bucket per key: ``burst`` actions at once, then one
more every ``60 / per_minute`` seconds. Its memory is bounded: it forgets the
least recently seen keys beyond ``max_keys`` (a forgotten key starts with a full
bucket, which only ever lets a client do more, never less).

>>> clock = [0.0]
>>> limit = RateLimit(per_minute=60, burst=2, now=lambda: clock[0])
>>> limit.take("a"), limit.take("a"), limit.take("a")
(0.0, 0.0, 1.0)
>>> limit.take("b")           # another client has its own bucket
0.0
>>> clock[0] += 1.0
>>> limit.take("a")
0.0
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable

__all__ = ["RateLimit"]


class RateLimit:
    """``per_minute`` actions a minute per key, ``burst`` of them at once."""

    def __init__(self, *, per_minute: float, burst: int, max_keys: int = 10_000,
                 now: Callable[[], float] = time.monotonic) -> None:
        if per_minute <= 0 or burst < 1:
            raise ValueError("a rate limit needs per_minute > 0 and burst >= 1")
        self.per_minute = per_minute
        self.burst = burst
        self.max_keys = max_keys
        self._now = now
        self._buckets: collections.OrderedDict[str, tuple[float, float]] = \
            collections.OrderedDict()

    def take(self, key: str) -> float:
        """Takes one action for ``key``: 0.0 when allowed, else the seconds to wait
        before the next one is (nothing is taken then)."""
        now = self._now()
        rate = self.per_minute / 60.0
        tokens, last = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * rate)
        if tokens >= 1.0:
            self._buckets[key] = (tokens - 1.0, now)
            wait = 0.0
        else:
            self._buckets[key] = (tokens, now)
            wait = (1.0 - tokens) / rate
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return wait
