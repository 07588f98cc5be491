"""Rate limits: a token bucket per WebSocket connection and per HTTP client address."""

from __future__ import annotations

import time
from collections import OrderedDict


class TokenBucket:
    """Allows ``burst`` messages at once, then ``rate`` per second on average.

    >>> bucket = TokenBucket(rate=0.001, burst=2)
    >>> [bucket.take() for _ in range(3)]
    [True, True, False]
    """

    __slots__ = ("_stamp", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._stamp = time.monotonic()

    def take(self) -> bool:
        """Spend one token; False (and nothing spent) when the bucket is empty."""
        stamp = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (stamp - self._stamp) * self.rate)
        self._stamp = stamp
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True


class AddressLimiter:
    """One bucket per client address, forgetting the least recently seen beyond ``size``."""

    def __init__(self, rate: float, burst: int, size: int = 4096) -> None:
        self.rate = rate
        self.burst = burst
        self.size = size
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, address: str) -> bool:
        """Spend one token of ``address``'s bucket; False when it is empty."""
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst)
            if len(self._buckets) > self.size:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(address)
        return bucket.take()
