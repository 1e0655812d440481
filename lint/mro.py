"""Python's method resolution order (C3), as plain data: for the classes of one file
(`trainlint.analysis.summarize`) and for classes across the project's modules
(`trainlint.project`). Nothing here imports LibCST."""

from __future__ import annotations

from collections import Counter
from typing import Callable, Hashable, Iterable, Sequence, TypeVar

Class = TypeVar("Class", bound=Hashable)


def c3_merge(sequences: list[tuple[Class, ...]]) -> list[Class] | None:
    """Python's C3 merge: take the first head of a sequence that is in no sequence's
    tail, drop it everywhere, again; None where no head can be taken. Each sequence is
    read once (a start per sequence, a count of the tails each class is in)."""
    starts = [0] * len(sequences)
    in_tails = Counter(owner for sequence in sequences for owner in sequence[1:])
    merged: list[Class] = []
    while True:
        heads = [sequence[start] for sequence, start in zip(sequences, starts) if start < len(sequence)]
        if not heads:
            return merged
        head = next((owner for owner in heads if not in_tails[owner]), None)
        if head is None:
            return None
        merged.append(head)
        # in no tail, `head` is only ever a head: dropping it moves those sequences on
        for index, sequence in enumerate(sequences):
            if starts[index] < len(sequence) and sequence[starts[index]] == head:
                starts[index] += 1
                if starts[index] < len(sequence):
                    in_tails[sequence[starts[index]]] -= 1


def c3_order(cls: Class, ancestors: Iterable[Class], bases: Callable[[Class], Sequence[Class]],
             orders: dict[Class, tuple[Class, ...] | None]) -> tuple[Class, ...] | None:
    """The C3 order of `cls`, whose lineage (itself included) is `ancestors`: each
    class's merged from its bases' (no recursion, however long the chain), and kept in
    `orders`, as a chain of subclasses asks for each; None where Python would refuse
    the class (no consistent order, its own or a base's, or a cycle of bases)."""
    pending = [owner for owner in reversed(list(ancestors)) if owner not in orders]
    while pending:
        ready = [owner for owner in pending if all(base in orders for base in bases(owner))]
        if not ready:
            return None  # a cycle of bases
        for owner in ready:
            direct = tuple(bases(owner))
            known = [orders[base] for base in direct]
            merged = None if None in known else c3_merge([*known, direct])  # type: ignore[list-item]
            orders[owner] = None if merged is None else (owner, *merged)
        pending = [owner for owner in pending if owner not in orders]
    return orders[cls]
