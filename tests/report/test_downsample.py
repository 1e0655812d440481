from hypothesis import given
from hypothesis import strategies as st

from sanitizer.report.downsample import downsample_minmax, downsample_segments

values = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=3000)


@given(values, st.integers(1, 200))
def test_extremes_order_and_size_survive(ys, buckets):
    points = [(float(i), y) for i, y in enumerate(ys)]
    kept = downsample_minmax(points, buckets)
    assert len(kept) <= 2 * buckets + 2
    assert min(y for _, y in kept) == min(ys)
    assert max(y for _, y in kept) == max(ys)
    assert [x for x, _ in kept] == sorted({x for x, _ in kept})
    assert kept[0] == points[0] and kept[-1] == points[-1]
    assert set(kept) <= set(points)


def test_a_one_step_spike_in_twenty_thousand_points_is_kept():
    points = [(float(i), 1.0) for i in range(20_000)]
    points[12_345] = (12_345.0, 900.0)
    kept = downsample_minmax(points, 100)
    assert (12_345.0, 900.0) in kept
    assert len(kept) <= 202


def test_segments_share_the_budget_by_length():
    long = [(float(i), float(i % 7)) for i in range(10_000)]
    short = [(20_000.0 + i, 1.0) for i in range(4)]
    first, second = downsample_segments([long, short], 100)
    assert 100 < len(first) <= 202
    assert second == short  # tiny segments get at least one bucket and are kept whole
    assert downsample_segments([], 10) == []
