"""One small least-recently-used store, for every cache of the explorers (frames, views, figures, series)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable


class LRU:
    """At most `size` values by key; reading or storing a key makes it the newest, storing past `size` drops the
    oldest. `get` returns None for a missing key (values are never None)."""

    def __init__(self, size: int):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"size: expected a positive integer, got {size!r}")
        self.size = size
        self._items: OrderedDict[Hashable, object] = OrderedDict()

    def get(self, key: Hashable):
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: Hashable, value) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def values(self) -> list:
        """The values, oldest first (reading them makes none the newest)."""
        return list(self._items.values())

    def clear(self) -> None:
        self._items.clear()
