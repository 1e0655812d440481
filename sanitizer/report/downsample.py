"""Shrinking long series for drawing without losing their spikes."""

from __future__ import annotations

Point = tuple[float, float]


def downsample_minmax(points: list[Point], buckets: int) -> list[Point]:
    """At most about `2 * buckets + 2` points: the lowest and highest of each bucket.

    Points are split into `buckets` runs of equal length; each run keeps its
    minimum and maximum in their original order, so a one-step spike survives
    any amount of downsampling. The first and last points are always kept.
    """
    if buckets < 1 or len(points) <= 2 * buckets + 2:
        return list(points)
    kept = {0, len(points) - 1}
    size = len(points) / buckets
    for bucket in range(buckets):
        start, stop = int(bucket * size), int((bucket + 1) * size)
        if start >= stop:
            continue
        indices = range(start, stop)
        kept.add(min(indices, key=lambda i: points[i][1]))
        kept.add(max(indices, key=lambda i: points[i][1]))
    return [points[i] for i in sorted(kept)]


def downsample_segments(segments: list[list[Point]], buckets: int) -> list[list[Point]]:
    """Downsample a gapped line, sharing the bucket budget in proportion to length."""
    total = sum(len(segment) for segment in segments)
    if total == 0:
        return []
    return [
        downsample_minmax(segment, max(1, round(buckets * len(segment) / total)))
        for segment in segments
    ]
