"""Limits per client: token buckets (per connection, per address), open sockets per address,
and the address they count, which only a trusted proxy may name for someone else."""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Iterable

from taluva.engine.wording import Text, Tn

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_ADDRESS_CHARS = 64


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

    def retry_after(self) -> float:
        """Seconds until the next token (0 when there is one)."""
        return max(0.0, (1.0 - self._tokens) / self.rate) if self.rate > 0 else 3600.0


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

    def retry_after(self, address: str) -> float:
        """Seconds until ``address`` may try again."""
        bucket = self._buckets.get(address)
        return 0.0 if bucket is None else bucket.retry_after()


class ConnectionCounter:
    """How many connections each address holds open, up to ``limit`` each.

    >>> counter = ConnectionCounter(limit=1)
    >>> counter.open("192.0.2.1"), counter.open("192.0.2.1"), counter.open("192.0.2.2")
    (True, False, True)
    >>> counter.close("192.0.2.1"); counter.open("192.0.2.1")
    True
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: dict[str, int] = {}

    def open(self, address: str) -> bool:
        """Count one more connection of ``address``; False (nothing counted) at the limit."""
        count = self._open.get(address, 0)
        if count >= self.limit:
            return False
        self._open[address] = count + 1
        return True

    def close(self, address: str) -> None:
        """Forget one connection of ``address``."""
        count = self._open.get(address, 0) - 1
        if count > 0:
            self._open[address] = count
        else:
            self._open.pop(address, None)

    def count(self, address: str) -> int:
        """Connections ``address`` holds open now."""
        return self._open.get(address, 0)


def parse_networks(addresses: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or networks (``127.0.0.1``, ``10.0.0.0/8``, ``::1``); ValueError if one is
    neither.

    >>> [str(n) for n in parse_networks(["127.0.0.1", " 10.0.0.0/8 ", ""])]
    ['127.0.0.1/32', '10.0.0.0/8']
    """
    networks = []
    for text in addresses:
        text = text.strip()
        if text:
            networks.append(ipaddress.ip_network(text, strict=False))
    return tuple(networks)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


class TrustedProxies:
    """Which address a request counts as: the peer's own, unless the peer is a trusted proxy;
    then the nearest address in ``X-Forwarded-For`` that is not a trusted proxy.

    >>> proxies = TrustedProxies(["127.0.0.1"])
    >>> proxies.client("127.0.0.1", "198.51.100.7, 203.0.113.9")
    '203.0.113.9'
    >>> proxies.client("192.0.2.4", "203.0.113.9")
    '192.0.2.4'
    >>> TrustedProxies([]).client("127.0.0.1", "203.0.113.9")
    '127.0.0.1'
    """

    def __init__(self, addresses: Iterable[str] = ()) -> None:
        self.networks = parse_networks(addresses)

    def trusted(self, host: str) -> bool:
        """Whether ``host`` is one of the trusted proxies."""
        address = _ip(host)
        return address is not None and any(address in net for net in self.networks)

    def client(self, peer: str, forwarded_for: str | None) -> str:
        """The address to count for a connection from ``peer`` carrying ``forwarded_for``."""
        if not forwarded_for or not self.trusted(peer):
            return peer
        hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
        for hop in reversed(hops):
            if not self.trusted(hop):
                address = _ip(hop)
                return str(address) if address is not None else hop[:MAX_ADDRESS_CHARS]
        return hops[0][:MAX_ADDRESS_CHARS] if hops else peer


def wait_in_words(seconds: float) -> Text:
    """How long a refused client waits, as a person reads it: ``1 second``, ``25 seconds``,
    ``3 minutes`` (rounded up, so the time said is never too short)."""
    whole = max(1, math.ceil(seconds))
    if whole < 60:
        return Tn("{n} second", "{n} seconds", whole, n=whole)
    minutes = math.ceil(whole / 60)
    return Tn("{n} minute", "{n} minutes", minutes, n=minutes)
