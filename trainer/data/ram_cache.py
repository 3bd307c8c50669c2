"""An in-RAM cache bounded by bytes, least recently used out first: :class:`ByteLRU`.

The data loader keeps one per process (each worker its own), over the memory-mapped cache: an item read
again comes back as the tensors made the first time, without touching the mapped pages or copying them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

DEFAULT_BYTES = 2 * 2**30
"""Default bound per process: 2 GiB (issue 18's data path)."""


class ByteLRU:
    """Values by key, holding at most ``max_bytes`` of them (by the sizes given to :meth:`put`).

    A value larger than the bound is not kept; ``max_bytes`` 0 keeps nothing.
    """

    def __init__(self, max_bytes: int = DEFAULT_BYTES) -> None:
        self.max_bytes, self.bytes = max_bytes, 0
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()

    def get(self, key: Hashable) -> Any | None:
        """The value kept for ``key`` (now the most recently used), or ``None``."""
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: Hashable, value: Any, size: int) -> None:
        """Keep ``value`` (``size`` bytes) under ``key``, dropping the least recently used until it fits."""
        if key in self._items:
            self.bytes -= self._items.pop(key)[1]
        if size > self.max_bytes:
            return
        while self.bytes + size > self.max_bytes:
            _, (_, dropped) = self._items.popitem(last=False)
            self.bytes -= dropped
        self._items[key] = (value, size)
        self.bytes += size

    def __len__(self) -> int:
        return len(self._items)
