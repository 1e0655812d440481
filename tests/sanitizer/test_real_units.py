"""Units behind the real-script fixes: norms in every dtype, the loss shapes
compared for validation, the divergence rules and which modules are models."""
from __future__ import annotations

import math
from typing import Any

import pytest
import torch

from loss_series import divergence_events
from sanitizer.core.probe import Gather, magnitude_ends, norms, norms_from_squares, squared_norms


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16, torch.float16])
def test_squared_norms_in_every_training_dtype(dtype: torch.dtype) -> None:
    tensors = [torch.full((4,), 3.0, dtype=dtype), torch.tensor([float("nan")], dtype=dtype)]
    gather = Gather()
    gather.add("grads", squared_norms(tensors))
    first, second = gather.read()["grads"]
    assert first == pytest.approx(36.0) and math.isnan(second)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_norms_of_complex_tensors_are_real_and_see_both_parts(dtype: torch.dtype) -> None:
    """|3+4j| = 5 in each of four values: a squared norm of 100. A NaN or Inf in the
    imaginary part alone is found; a conjugated view is measured as its values."""
    five = torch.full((4,), 3 + 4j, dtype=dtype)
    tensors = [five, five.conj(), torch.tensor([complex(1, float("nan"))], dtype=dtype),
               torch.tensor([complex(1, float("inf"))], dtype=dtype)]
    gather = Gather()
    gather.add("grads", squared_norms(tensors))
    square, conjugated, nan, inf = gather.read()["grads"]
    assert square == pytest.approx(100.0) and conjugated == pytest.approx(100.0)
    assert math.isnan(nan) and inf == math.inf
    assert norms_from_squares([five], [math.inf]) == [pytest.approx(10.0)]  # measured again, exactly
    assert [n.dtype.is_complex for n in norms(tensors, 1)] == [False] * 4
    gather = Gather()
    gather.add("ends", [end for tensor in tensors[2:] for end in magnitude_ends(tensor)])
    assert any(math.isnan(value) for value in gather.read()["ends"])


def test_float64_norms_keep_their_range() -> None:
    """1e30 is an ordinary float64 gradient; its square does not fit float32."""
    wide, narrow = torch.full((4,), 1e30, dtype=torch.float64), torch.ones(4)
    gather = Gather()
    gather.add("grads", squared_norms([narrow, wide]))
    assert gather.read()["grads"] == [pytest.approx(4.0), pytest.approx(4e60)]
    assert [n.dtype for n in norms([wide, narrow], 1)] == [torch.float64, torch.float32]


def test_values_are_read_exactly_whatever_their_dtype() -> None:
    values = [1 / 3, 65504.0, -2.5e-7, float("inf"), float("nan")]
    tensors = [torch.tensor(value, dtype=dtype) for dtype in (torch.float16, torch.bfloat16, torch.float32)
               for value in values] + [torch.tensor(1e300, dtype=torch.float64), torch.tensor(True)]
    gather = Gather()
    gather.add("mixed", tensors)
    read = gather.read()["mixed"]
    expected = [tensor.double().item() for tensor in tensors]
    assert [str(value) for value in read] == [str(value) for value in expected]


def test_only_outermost_modules_holding_the_runs_parameters_are_models() -> None:
    from torch import nn

    from sanitizer.core.naming import ModelIndex
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    generator = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    untouched = nn.Linear(2, 1)
    criterion, transform = nn.MSELoss(), nn.Sequential(nn.Identity())
    index = ModelIndex()
    index.refresh(list(net.parameters()), [criterion, transform, generator[0], net[0]])
    assert {id(root) for _, root in index.roots} == {id(net), id(generator)}
    assert index.module_name(net[2]).endswith(".2") and index.module_name(generator[1]).endswith(".1")
    assert index.module_name(criterion) is None and index.module_name(untouched) is None
    assert index.module_name(transform) is None


def test_one_model_keeps_the_names_of_its_named_modules() -> None:
    from torch import nn

    from sanitizer.core.naming import ModelIndex
    encoder, decoder = nn.Embedding(5, 4), nn.Linear(4, 5)
    model = nn.ModuleDict({"encoder": encoder, "decoder": decoder})
    index = ModelIndex()
    index.refresh([], [encoder, decoder, nn.CrossEntropyLoss()])
    assert [root for _, root in index.roots] == [model]
    assert index.module_name(decoder) == "decoder" and index.param_name(encoder.weight) == "encoder.weight"


def test_the_model_scan_finds_what_issubclass_finds_in_the_same_order() -> None:
    """Instances of classes derived at any depth, made before and after the classes it
    last saw, found as a scan that asks `issubclass` of every object finds them; an
    object whose `__class__` has side effects is never asked for it."""
    import gc

    from torch import nn

    from sanitizer.core.naming import live_instances

    asked = []

    class Deep(nn.Sequential):
        pass

    class Lying(nn.Linear):
        @property  # type: ignore[misc]
        def __class__(self):  # noqa: D401
            asked.append(self)
            return nn.Linear

    class MyOptimizer(torch.optim.SGD):
        pass

    net = Deep(nn.Linear(2, 2), Lying(2, 2))
    first = live_instances(nn.Module, torch.optim.Optimizer)

    class Later(Deep):  # a class made after the last scan
        pass

    later = Later(nn.Linear(2, 1))
    optimizers = [torch.optim.SGD(net.parameters(), lr=0.1), MyOptimizer(later.parameters(), lr=0.1)]
    modules, found_optimizers = live_instances(nn.Module, torch.optim.Optimizer)
    live = gc.get_objects()
    assert modules == [obj for obj in live if issubclass(type(obj), nn.Module)]
    assert found_optimizers == [obj for obj in live if issubclass(type(obj), torch.optim.Optimizer)]
    assert later in modules and net[1] in modules and all(any(o is opt for o in found_optimizers) for opt in optimizers)
    assert not any(obj is later for obj in first[0]) and not asked


def test_the_model_scan_finds_models_beside_a_class_that_cannot_be_hashed() -> None:
    """A live object whose class's metaclass defines `__eq__` without `__hash__` (its
    class cannot be looked up in a set) does not stop the scan: the models and
    optimizers are found all the same."""
    from torch import nn

    from sanitizer.core.naming import live_instances

    class Meta(type):
        def __eq__(cls, other: object) -> bool:
            return cls is other

        __hash__ = None  # type: ignore[assignment]

    class Odd(metaclass=Meta):
        pass

    odd = Odd()
    net = nn.Linear(2, 2)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    modules, optimizers = live_instances(nn.Module, torch.optim.Optimizer)
    assert any(obj is net for obj in modules) and any(obj is optimizer for obj in optimizers)
    assert not any(obj is odd for obj in modules)


@pytest.mark.parametrize(("kwargs", "kind"), [
    ({}, "cross_entropy"),
    ({"reduction": "sum"}, "cross_entropy"),
    ({"reduction": "none"}, None),
    ({"reduction": "sum", "weight": torch.ones(3)}, None),  # a weighted mean divides by the weights
    ({"weight": torch.ones(3)}, "cross_entropy weighted"),
    ({"label_smoothing": 0.1}, "cross_entropy label_smoothing=0.1"),
    ({"size_average": False}, None),
])
def test_loss_kinds(kwargs: dict[str, object], kind: str | None) -> None:
    from sanitizer.core.loss_calls import kind_of
    assert kind_of("cross_entropy", (torch.randn(4, 3), torch.tensor([0, 1, 2, 0])), kwargs) == kind


def test_loss_passed_options_by_position_has_no_kind() -> None:
    from sanitizer.core.loss_calls import kind_of
    assert kind_of("nll_loss", (torch.randn(4, 3), torch.tensor([0, 1, 2, 0]), None), {}) is None
    assert kind_of("gaussian_nll_loss", (torch.randn(4), torch.randn(4), torch.ones(4)), {}) == "gaussian_nll_loss"
    assert kind_of("kl_div", (torch.randn(4), torch.randn(4)), {"reduction": "sum"}) is None
    assert kind_of("kl_div", (torch.randn(4), torch.randn(4)), {"reduction": "batchmean"}) == "kl_div batchmean"


def test_summed_losses_become_per_element_means() -> None:
    from torch.nn import functional as F

    from sanitizer.core.loss_calls import per_element_mean
    logits, target = torch.randn(6, 4), torch.tensor([0, 1, -100, 3, 2, -100])
    summed = F.nll_loss(logits, target, reduction="sum")
    mean = per_element_mean("nll_loss", (logits, target), {"reduction": "sum"}, summed)
    assert mean.item() == pytest.approx(F.nll_loss(logits, target).item())
    prediction, wanted = torch.randn(5, 3), torch.randn(1, 3)  # broadcast target
    summed = F.mse_loss(prediction, wanted.expand(5, 3), reduction="sum")
    mean = per_element_mean("mse_loss", (prediction, wanted), {"reduction": "sum"}, summed)
    assert mean.item() == pytest.approx(F.mse_loss(prediction, wanted.expand(5, 3)).item())


def _divergence_steps(losses: list[float], optimizers: int = 1, ids: list[int] | None = None,
                      groups: list[int] | None = None, models: list[list[torch.Tensor]] | None = None,
                      classes: int | None = None) -> list[int]:
    """The steps of the divergence events of a run with these losses; `classes`: each is
    the mean cross-entropy over that many classes."""
    every = ids if ids is not None else [step % optimizers for step in range(1, len(losses) + 1)]
    return [event.step for event in divergence_events(losses, optimizer_id=every, param_groups=groups or 1,
                                                      models=models, classes=classes)]


def _noisy(levels: list[float], seed: int, noise: float = 0.3) -> list[float]:
    generator = torch.Generator().manual_seed(seed)
    factors = 1 + noise * (torch.rand(len(levels), generator=generator) * 2 - 1)
    return [level * float(factor) for level, factor in zip(levels, factors)]


def test_blow_up_in_warm_up_is_judged_at_its_step() -> None:
    assert _divergence_steps([1.6, 124.0, 330.0] + [1.7] * 100) == [2]
    assert _divergence_steps([1.6, 124.0, 330.0, 1.7]) == [2]  # the run ends before it could come back
    assert _divergence_steps([1.6, 1.5, 124.0]) == [3]


def test_a_loss_that_jumps_and_stays_several_times_up_is_a_divergence_at_its_jump() -> None:
    """makemore's transformer at lr=0.5: 3.5, 5.0, then 35 at step 3 (7 times the early
    level 5.0, under the 10 of a blow-up) and around 27 for 160 steps before it falls back
    to 2.7: reported at step 3 once 50 losses show it. Halved and later recovering, or
    rising 2 times at the start and then training down, it is not."""
    jumped = [3.5, 5.0, 35.0] + _noisy([27.0] * 160, seed=3) + [2.7] * 200
    assert _divergence_steps(jumped) == [3]
    assert _divergence_steps([3.5, 5.0] + _noisy([12.0] * 160, seed=3) + [2.7] * 200) == []
    rising_start = [1.0, 2.4, 2.3] + [2.2 * 0.99 ** i for i in range(300)]
    assert _divergence_steps(_noisy(rising_start, seed=4, noise=0.1)) == []


def test_a_plateau_says_it_is_one() -> None:
    (event,) = _divergence_events([3.5, 5.0, 35.0] + _noisy([27.0] * 160, seed=3))
    assert event.extra["rule"] == "plateau" and event.step == 3
    (event,) = _divergence_events([1.6, 124.0, 330.0] + [1.7] * 30)
    assert event.extra["rule"] == "blow-up"


def test_a_warm_up_blow_up_that_training_comes_back_from_is_no_divergence() -> None:
    """The siamese-network example at Adadelta's lr=1.0: 0.84, then 8.5 for three steps,
    then training goes on well below where it started."""
    losses = [0.841, 8.475, 8.666, 5.106, 1.18, 0.757, 0.744, 0.701, 0.542, 0.359, 0.373, 0.282]
    assert _divergence_steps(losses + [0.2] * 50) == []
    assert _divergence_steps([0.841, 8.475, 8.666] + [0.8] * 50) == [2]  # back to where it started is not back


def test_a_warm_up_blow_up_that_falls_back_and_blows_up_again_is_no_noise() -> None:
    """A Hamiltonian network at Adam's lr=1e3: 0.84, then 1188 at step 2 and 1.2e12 at step
    3; from there it swings between 0.836, where its saturated tanh units pass no gradient,
    and 1e5 to 1e13. Falling back near the early level and rising as high as the blow-up
    again is how a noisy loss swings (it still is, after a blow-up of several steps); ten
    times past the blow-up after falling back is none: the divergence is the blow-up at
    step 2. It was reported at step 35 against an early level of 1188, the losses' median."""
    dead = 0.836
    swinging = [0.841, 1188.0, 1.2e12, 3.0e5, 1.6e13, 1.9e7, 1.0, 6.4e8, 1.7e5, 2.4e5, dead, dead, 2.7e12]
    (event,) = _divergence_events(swinging + [dead, dead, 4.7e6] * 9)
    assert event.step == 2 and "it blew up again to 6.4e+8 at step 8, after falling back" in event.message, event
    assert _divergence_steps([0.841, 1188.0] + [1.0, 900.0] * 15) == []
    assert _divergence_steps([0.841, 1188.0, 1.2e12] + [1.0, 900.0] * 15) == []


def _divergence_events(losses: list[float], ids: list[int] | None = None,
                       groups: list[int] | None = None) -> list[Any]:
    """The divergence events of a run with these losses, as the session keeps them."""
    return divergence_events(losses, optimizer_id=ids or 1, param_groups=groups)


def test_a_warm_up_blow_up_that_turns_non_finite_says_so() -> None:
    """jcjohnson's two-layer net at a 1000 times larger learning rate: the loss blows up at
    step 2 and is Inf, then NaN, from step 3 on. The run goes on: it did not end there."""
    (event,) = _divergence_events([2.94e7, 1.08e16, math.inf] + [math.nan] * 40)
    assert event.step == 2 and "the loss was non-finite at step 3" in event.message, event.message
    (event,) = _divergence_events([2.94e7, 1.08e16])
    assert "the run ended there" in event.message


def test_a_warm_up_blow_up_the_run_recovers_from_later_says_so() -> None:
    """graykode's BERT at Adam's lr=1e-3: 28.7, then 306 at step 2, above its early level
    for 35 steps, then training on down to 6.4. The divergence stands (the loss did not
    come back within 10 steps), and says that the run recovered, and when."""
    events = _divergence_events
    falling = [120.0 * 0.95 ** i for i in range(120)]
    recovered = events([28.7, 306.0] + falling)
    assert [event.step for event in recovered] == [2]
    back_at = next(i for i, loss in enumerate(falling) if loss < 0.8 * 28.7) + 3
    assert recovered[0].extra["recovered_step"] == back_at
    assert f"fell back under that level only at step {back_at}" in recovered[0].message
    for stuck in ([28.7, 306.0] + [30.0] * 60,  # back to where it started is not back
                  [28.7, 306.0] + falling[:40] + [20.0] * 3 + [40.0] * 20):  # under it for a moment only
        (event,) = events(stuck)
        assert "recovered_step" not in event.extra and event.message.endswith("training diverged")


def test_one_outlier_batch_in_the_warm_up_is_no_divergence() -> None:
    """The loss is back at once and trains on, slowly: one bad batch, however short the run."""
    back = [3.66 - 0.004 * i for i in range(38)]
    assert _divergence_steps([3.68, 123.5] + back) == []
    assert _divergence_steps([3.68, 123.5] + back[:4]) == []  # the run ends before 10 losses came after it
    assert _divergence_steps([3.68, 123.5, 40.0] + back) == [2]  # two steps up: not one outlier
    assert _divergence_steps([3.68, 123.5] + [5.0] * 20) == [2]  # back below the blow-up, above the early level


def _noisy_regression_losses(seed: int, steps: int = 100) -> list[float]:
    """A linear model on targets with unit noise, in batches of 4: each loss is a
    mean of four squared noise draws, anywhere from 0.2 to 4."""
    generator = torch.Generator().manual_seed(seed)
    model = torch.nn.Linear(4, 1)
    with torch.no_grad():
        model.weight.copy_(torch.randn(1, 4, generator=generator) * 0.5)
        model.bias.zero_()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    inputs = torch.randn(800, 4, generator=generator)
    targets = 0.1 * inputs[:, :1] + torch.randn(800, 1, generator=generator)
    losses = []
    for step in range(steps):
        batch = slice(step * 4 % 800, step * 4 % 800 + 4)
        loss = torch.nn.functional.mse_loss(model(inputs[batch]), targets[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def test_a_cross_entropy_back_at_its_chance_level_after_a_blow_up_diverged() -> None:
    """A 10-class cross-entropy at chance, ln(10) = 2.3, thrown to 40 at step 2 and back at
    2.3 at once, where it stays: a network the blow-up killed, no outlier batch, once 50
    losses show it does not train on. One that trains on from there (slowly: 2.25 to 1.9 in
    50 steps), or that comes down over a few steps and on below chance, is an outlier
    batch. Without a class count (a loss of unknown kind) the same losses are one outlier
    batch in a loss that does not move: not judged so."""
    chance = math.log(10)
    stuck = [chance, 40.0] + _noisy([chance] * 60, seed=3, noise=0.02)
    events = divergence_events(stuck, optimizer_id=0, param_groups=1, classes=10)
    assert [event.step for event in events] == [2]
    assert "near the chance level ln(10) = 2.3 of its cross-entropy" in events[0].message, events
    assert events[0].extra["chance"] == pytest.approx(chance)
    assert _divergence_steps(stuck) == []
    slow = [chance, 40.0] + _noisy([2.25 * 0.996 ** i for i in range(60)], seed=3, noise=0.02)
    assert _divergence_steps(slow, classes=10) == []
    down = [chance, 40.0, 30.0, 15.0, 6.0, 3.0, 2.2, 1.9, 1.7, 1.5] + [1.4 * 0.98 ** i for i in range(60)]
    assert _divergence_steps(down, classes=10) == []
    # a damaged network dipping under 0.8 times its start now and then is no recovery
    damaged = [chance, 45.0, 40.0, 26.0, 28.0, 8.7, 13.8, 14.0, 4.3, 11.6, 5.6, 1.7] + _noisy([2.1] * 60, seed=4)
    assert _divergence_steps(damaged, classes=10) == [2]
    assert _divergence_steps(stuck[:14], classes=10) == []  # too few losses after it to tell


def test_a_noisy_loss_whose_first_batches_were_lucky_does_not_diverge() -> None:
    """Two first losses near 0.2, then the usual 0.2 to 4 of unit noise: the early level
    is low, but the losses come back to it and go as high again; no blow-up."""
    lucky = [0.206, 0.219, 1.887, 2.495, 2.823, 1.099, 0.679, 0.84, 3.792, 0.21, 1.013, 0.206, 1.757,
             0.289, 0.912, 2.985, 2.39, 0.301, 0.677, 1.278, 0.428, 1.906, 1.086, 0.848, 1.242]
    assert _divergence_steps(lucky + _noisy([1.0] * 200, seed=7, noise=0.8)) == []
    assert [seed for seed in range(30) if _divergence_steps(_noisy_regression_losses(seed))] == []
    # the same start, then a real blow-up that stays up: from the first loss 10 times up
    assert _divergence_steps(lucky[:4] + [40.0] * 30) == [4]


def test_a_loss_that_rises_from_a_low_start_then_trains_down_is_no_plateau() -> None:
    """A contrastive loss whose negative queue starts random: 0.16, rising to 1.4 in five
    steps as real keys fill it, then training down. A loss that stays up is a plateau."""
    rise = [0.159, 0.606, 0.706, 1.041, 1.028, 1.403]
    down = _noisy([1.25 * 0.988 ** i for i in range(150)], seed=5, noise=0.1)
    assert _divergence_steps(rise + down) == []
    assert _divergence_steps(rise + _noisy([1.25] * 150, seed=5, noise=0.1)) == [4]


def test_a_loss_that_rises_gradually_over_ten_times_then_trains_down_is_no_blow_up() -> None:
    """MoCo v1's temperature 0.07 with a random queue: a first loss of 0.003, then up 30 to 150
    times over a dozen steps as real keys fill the queue, then training down. A rise that
    stays up (stuck at chance) is a blow-up at its first step, as is a jump that trains down."""
    rise = [0.0032, 0.093, 0.197, 0.263, 0.330, 0.36, 0.39, 0.41, 0.43, 0.44, 0.45, 0.46, 0.46, 0.45]
    down = _noisy([0.44 * 0.985 ** i for i in range(120)], seed=2, noise=0.15)
    assert _divergence_steps(rise + down) == []
    assert _divergence_steps(rise + _noisy([0.45] * 120, seed=2, noise=0.15)) == [2]
    # the run ends, or a new optimizer starts, before the 50 losses that judge the rise: too short to judge
    assert _divergence_steps(rise + [0.45] * 10) == []
    assert _divergence_steps(rise + [0.45] * 10 + [2.3] * 30, ids=[1] * 24 + [2] * 30) == []
    assert _divergence_steps(rise[:6]) == [2]  # before the losses after it show a gradual rise
    assert _divergence_steps([0.0032] + [0.45] * 10 + down) == [2]  # a jump at once, whatever comes after
    # trains down from its peak, and later blows up for real: judged from where it trained down
    assert _divergence_steps(rise + down[:40] + [40.0] * 30) == [len(rise) + 41]


def test_a_jump_a_hundred_times_up_in_one_loss_is_no_warm_up_rise() -> None:
    """makemore's transformer at a learning rate of 5: 3.3, then 731 at step 2 (220 times),
    rising on to 2,400 and drifting down through 300 to 2,500. The losses after the jump
    rise past it, and train down later, as a contrastive loss's rise does; but that one
    crosses 10 times its start on its way up (30 to 50 times at its first step up), while
    this one jumps from under 10 to over 100 times in one loss: a blow-up at its step."""
    rise = [3.3, 731.0, 2384.0, 1894.0, 1438.0, 1122.0, 1826.0, 2100.0, 1667.0, 1932.0, 1495.0, 1916.0]
    down = _noisy([1500 * 0.985 ** i for i in range(70)], seed=3, noise=0.3)
    assert _divergence_steps(rise + down) == [2]
    # the same shape, its first step up 50 times its start (MoCo's): a warm-up rise that trains down
    assert _divergence_steps([rise[1] / 50] + rise[1:] + down) == []


def test_sustained_blow_up_late_but_not_a_single_outlier() -> None:
    falling = [2.3 * 0.98 ** i for i in range(100)]
    assert _divergence_steps(falling + [40.0] + falling[-1:] * 50) == []
    assert _divergence_steps(falling + [40.0] * 20) == [101]  # the first of them (judged at 106)
    assert _divergence_steps(falling + [40.0, 1.0] + [40.0] * 20) == [103]  # the unbroken run's first


def test_a_late_blow_up_names_the_learning_rate_rise_before_its_first_high_loss() -> None:
    """The rate rises 300-fold at step 151; the losses are that high from step 153 on, and
    the median of the last ones crosses a few steps later: by then every rate of the
    window before the judging step is the raised one. Dated at the first high loss."""
    losses = [2.4 * 0.97 ** i for i in range(150)] + [0.03, 4.8] + [4e4] * 20
    (event,) = divergence_events(losses, optimizer_id=None, param_groups=None,
                                 lr=[0.01 if step <= 150 else 3.0 for step in range(1, len(losses) + 1)])
    assert event.step == 153 and event.extra["lr"] == [0.01, 3.0], event
    assert "the median of the last 10 losses was that high by step 157" in event.message, event


@pytest.mark.parametrize("seed", range(10))
def test_a_climb_over_several_steps_to_a_noisy_plateau_far_above_the_early_level_diverged(seed: int) -> None:
    """The loss climbs over 12 steps from 2.3 to 40 times that, then stays there for 80
    steps, each loss within 40% of 92: diverged, at the first loss 10 times the early
    level. Judged as a gradual rise (a contrastive loss's warm-up), its medians of 10
    losses swing by noise: the highest of 70 of them was read as a peak it trained down
    from, and the run was judged again from its plateau (seed 5). A drop of the loss with
    the learning rate stays a healthy run."""
    early = _noisy([2.3] * 10, seed)
    climb = [2.3 * 40 ** ((k + 1) / 12) for k in range(12)]
    assert _divergence_steps(early + climb + _noisy([92.0] * 80, seed + 100, noise=0.4)) in ([18], [19])
    dropped = [2.3 * 0.995 ** i for i in range(300)] + [0.3 * 0.998 ** i for i in range(300)]
    assert _divergence_steps(_noisy(dropped, seed, noise=0.5)) == []


@pytest.mark.parametrize("seed", range(10))
def test_the_same_climb_trained_back_down_near_the_early_level_is_no_divergence(seed: int) -> None:
    """The same climb to 40 times 2.3, 20 steps at 92, then trained down over 60 steps to
    3.0 (1.3 times the early level) and noisy there: the loss came back, no divergence,
    whether or not one of its noisy losses dipped under 0.8 times the early level."""
    early = _noisy([2.3] * 10, seed)
    climb = [2.3 * 40 ** ((k + 1) / 12) for k in range(12)]
    down = [92.0] * 20 + [92.0 * (3.0 / 92.0) ** ((k + 1) / 60) for k in range(60)] + [3.0] * 60
    assert _divergence_steps(early + climb + _noisy(down, seed + 100, noise=0.4)) == []


def test_steady_climb_is_seen() -> None:
    climb = [0.5 * 1.02 ** i for i in range(200)]
    steps = _divergence_steps(_noisy([2.3 * 0.95 ** i for i in range(60)] + climb, seed=1))
    assert len(steps) == 1 and 60 < steps[0] <= 160
    (event,) = divergence_events(_noisy([2.3 * 0.95 ** i for i in range(60)] + climb, seed=1))
    assert event.message.startswith("loss climbed steadily") and "jump_step" not in event.extra, event


def _jump_back_slowly(seed: int, jump: bool = True, at: int = 300, steps: int = 600) -> list[float]:
    """A loss trained down from 2.3 to 0.3, that jumps at step `at` to 8 times that and comes
    back over 200 steps; each loss within 10%."""
    levels = [0.3 + 2.0 * math.exp(-step / 30) + (2.1 * math.exp(-(step - at) / 100) if jump and step >= at else 0)
              for step in range(1, steps + 1)]
    return _noisy(levels, seed, noise=0.1)


@pytest.mark.parametrize("seed", [18, 47])
def test_a_jump_come_back_from_slowly_is_named_a_jump_not_a_steady_climb(seed: int) -> None:
    """The loss at 0.3 jumps at step 300 to 8 times that and comes back over 200 steps. On
    these seeds the block medians before the jump's rose by noise three times in a row, and
    the jump's block made it four: the climb rule reports a real setback, but its message
    said the loss "climbed steadily over the last 40 steps". It names the jump now: the
    step, and the loss it jumped to. Without the jump, no divergence."""
    (event,) = divergence_events(_jump_back_slowly(seed))
    assert event.extra["rule"] == "climb" and event.extra["jump_step"] == 300, event
    assert event.message.startswith("loss jumped at step 300 from 0.29"), event.message
    assert "steadily" not in event.message and "times its lowest" in event.message, event.message
    assert divergence_events(_jump_back_slowly(seed, jump=False)) == []


@pytest.mark.parametrize(("seed", "at", "steps", "skipped"), [(6, 700, 1000, None), (18, 300, 600, 290)])
def test_a_jump_late_in_the_run_or_past_a_skipped_step_is_named_a_jump(seed: int, at: int, steps: int,
                                                                      skipped: int | None) -> None:
    """The same jump at step 700 of 1000, or at step 300 with a NaN loss at step 290: the climb
    rule reports it, and said the loss "climbed steadily": the latest losses it keeps no
    longer reach back over the climb's blocks (16 losses each past step 512), or no longer
    date each loss by its place once a loss was skipped. The jump is dated from each block's
    largest rise now. A steady climb from 0.3 to 8 times that over 400 steps, with a NaN loss
    10 steps before it is reported, still climbed steadily."""
    losses = _jump_back_slowly(seed, at=at, steps=steps)
    steady = _noisy([0.3 + 2.0 * math.exp(-step / 30) + 0.3 * (1.005 ** max(step - steps + 400, 0) - 1)
                     for step in range(1, steps + 1)], seed, noise=0.1)
    if skipped is not None:
        losses[skipped - 1] = math.nan
    (event,) = divergence_events(losses)
    assert event.extra["jump_step"] == at and event.message.startswith(f"loss jumped at step {at} from 0.2"), event
    (climb,) = divergence_events(steady)
    steady[climb.step - 10] = math.nan
    for event in (climb, *divergence_events(steady)):
        assert event.message.startswith("loss climbed steadily") and "jump_step" not in event.extra, event


def _trained_down(step: int) -> float:
    """A loss trained down from 2.3 to 0.3, creeping up by a hundred-thousandth a step."""
    return 0.3 + 2.0 * math.exp(-step / 30) + 1e-5 * step


@pytest.mark.parametrize("rise", [(2.1,), (1.05, 2.1), (0.7, 1.4, 2.1)])
def test_a_jump_that_takes_two_or_three_losses_is_named_a_jump(rise: tuple[float, ...]) -> None:
    """The loss at 0.3 jumps to 2.4 at step 300 in one loss, in two (0.3, 1.35, 2.4) or in
    three, and stays there: a jump, dated at the loss that reached the top (was: a jump of
    two losses "climbed steadily", no one rise from one loss to the next went from the
    lowest quarter to the top quarter of the climb). The same rise over 40 steps climbed
    steadily."""
    top = 300 + len(rise) - 1
    jump = [_trained_down(step) + (rise[min(step - 300, len(rise) - 1)] if step >= 300 else 0)
            for step in range(1, 500)]
    (event,) = divergence_events(jump)
    assert event.extra["jump_step"] == top and event.message.startswith(f"loss jumped at step {top} from 0.3"), event
    climb = [_trained_down(step) + 2.1 * min(max(step - 300, 0) / 40, 1) for step in range(1, 500)]
    (event,) = divergence_events(climb)
    assert event.message.startswith("loss climbed steadily") and "jump_step" not in event.extra, event


@pytest.mark.parametrize("at", [505, 512, 513, 516, 520, 521, 1028, 1034, 1040, 1046, 1049])
def test_a_jump_next_to_where_blocks_are_merged_is_dated(at: int) -> None:
    """A jump of the loss from 0.3 to 2.4 that stays, at steps around the first merge of
    blocks (the 65th block of 8 losses: steps 513-520) and the second (steps 1033-1048):
    merging 65 blocks two by two dropped the newest, and with it the jump's rise, so the jump
    "climbed steadily". The odd newest block is kept unmerged now."""
    losses = [_trained_down(step) + (2.1 if step >= at else 0) for step in range(1, at + 200)]
    (event,) = divergence_events(losses)
    assert event.extra["jump_step"] == at and event.message.startswith(f"loss jumped at step {at} from 0.3"), event


@pytest.mark.parametrize("seed", range(6))
def test_healthy_noisy_runs_do_not_diverge(seed: int) -> None:
    decaying = [0.3 + 2.0 * 0.99 ** i for i in range(3000)]
    assert _divergence_steps(_noisy(decaying, seed, noise=0.5)) == []
    plateau = [1.0] * 3000
    assert _divergence_steps(_noisy(plateau, seed + 10, noise=0.6)) == []


def test_losses_without_a_scale_or_taking_turns_are_not_judged() -> None:
    assert _divergence_steps([-1.0, -0.5, 3.0, 40.0] + [50.0] * 50) == []
    assert _divergence_steps([0.7, 5.0, 0.7, 9.0] * 20, optimizers=2) == []


def test_an_optimizer_that_replaces_the_last_is_judged_from_its_own_first_losses() -> None:
    """Folds of a cross-validation, each with a fresh model and optimizer: a fold that
    blows up is divergence at its step; a fresh fold starting far above where the last
    one ended is not. Optimizers taking turns stay unjudged."""
    fold = [2.3 * 0.97 ** i for i in range(100)]
    blown = [2.3, 2.2, 150.0] + [180.0] * 20
    assert _divergence_steps(fold + fold + blown, ids=[1] * 100 + [2] * 100 + [3] * 23) == [203]
    assert _divergence_steps(fold * 3, ids=[1] * 100 + [2] * 100 + [3] * 100) == []
    # the fold ended two steps after its blow-up: reported when the next optimizer starts
    assert _divergence_steps([2.3, 150.0, 160.0] + fold, ids=[1] * 3 + [2] * 100) == [2]
    # a GAN's optimizers: the second fold's blow-up comes after they took turns
    assert _divergence_steps([0.7, 0.9] * 20 + blown, ids=[1, 2] * 20 + [3] * 23) == []


def test_a_parameter_group_added_starts_the_judgement_again() -> None:
    """A second head added with `add_param_group` at step 41, its larger loss term joining
    the total from then on: 22 times the early level, falling steadily (no divergence).
    Layers unfrozen at step 41 with too high a rate, whose loss blows up from the next
    step on, still diverge."""
    first = [4.4 * 0.98 ** i for i in range(40)]
    falling = [97.0 * 0.98 ** i for i in range(60)]
    groups = [1] * 40 + [2] * 60
    assert _divergence_steps(first + falling, groups=groups) == []
    assert _divergence_steps(first + falling) == [41]  # the same losses without the new group
    assert _divergence_steps(first + [2.0] + [150.0] * 59, groups=groups) == [42]
    # layers unfrozen one group every 15 steps, the loss going on where it was: the early
    # level stays the run's, and a blow-up after the fourth group is judged against it
    unfreezing = [4.4 * 0.98 ** i for i in range(70)] + [400.0] * 20
    (event,) = _divergence_events(unfreezing, groups=[1 + i // 15 for i in range(90)])
    assert event.step == 71 and event.extra["baseline"] == 4.4, (event.step, event.extra)


def test_the_watch_of_a_blow_up_ends_with_its_optimizer() -> None:
    """A sweep: the second configuration blows up at its second step and is NaN to its end;
    the third, a fresh model and optimizer, trains well below the second's early level.
    That is no recovery of the second's."""
    fold = [13.5 * 0.97 ** i for i in range(40)]
    blown = [13.5, 3.8e4] + [math.nan] * 38
    (event,) = _divergence_events(fold + blown + fold, ids=[1] * 40 + [2] * 40 + [3] * 40)
    assert event.step == 42 and "recovered_step" not in event.extra, event.message
    assert event.message.endswith("the loss was non-finite at step 43: training diverged"), event.message


def test_after_a_divergence_a_new_model_is_judged_and_the_same_model_is_not() -> None:
    """A sweep, a fresh model and optimizer per configuration: the second and the fourth
    blow up, and both are reported. A new optimizer on the second's diverged model (a
    retry at a lower rate) whose loss jumps again: the same model's divergence, not
    reported again; a fresh model in its place is judged."""
    fold = [2.3 * 0.97 ** i for i in range(40)]
    blown = [2.3, 2.2, 150.0] + [180.0] * 37
    retry = [180.0, 170.0, 5000.0] + [6000.0] * 37
    models = [[torch.zeros(2, requires_grad=True)] for _ in range(4)]
    ids = [1] * 40 + [2] * 40 + [3] * 40 + [4] * 40
    sweep = [model for model in models for _ in range(40)]
    assert _divergence_steps(fold + blown + fold + blown, ids=ids, models=sweep) == [43, 123]
    retried = [models[0]] * 40 + [models[1]] * 80
    assert _divergence_steps(fold + blown + retry, ids=ids[:120], models=retried) == [43]
    assert _divergence_steps(fold + blown + retry, ids=ids[:120], models=sweep[:120]) == [43, 83]


def test_the_batch_is_the_first_tensor_of_numbers_with_a_batch_dimension_anywhere_in_the_call() -> None:
    """`model(input_ids=ids, attention_mask=mask)`, `model(None, x)`, `model({"image": x})`:
    a boolean mask or a 0-d timestep before it is no batch."""
    from sanitizer.core.inputs import batch_of
    ids, mask, images = torch.zeros(4, 7, dtype=torch.long), torch.ones(4, 7, dtype=torch.bool), torch.randn(4, 3)
    assert batch_of({"input_ids": ids, "attention_mask": mask}.values()) is ids
    assert batch_of({"attention_mask": mask, "input_ids": ids}.values()) is ids
    assert batch_of((None, images)) is images
    assert batch_of(({"image": images},)) is images
    assert batch_of((torch.tensor(3.0), [mask, images])) is images
    assert batch_of((None, "a caption")) is None


def test_only_parameters_that_hinge_terms_held_at_zero_alone_reach_are_put_down_to_them() -> None:
    """Cross-entropy plus a margin ranking term that every pair meets: the scorer only the
    ranking term reaches, not the encoder both reach. A margin missed, or a ReLU inside
    the model (units that died), explains nothing."""
    from torch import nn
    from torch.nn import functional as F

    from sanitizer.detectors.hinge_terms import inspect
    torch.manual_seed(0)
    encoder, head, scorer = nn.Linear(4, 8), nn.Linear(8, 3), nn.Linear(8, 1)
    hidden = torch.relu(encoder(torch.randn(16, 4)))
    scores, ones = scorer(hidden).squeeze(1), torch.ones(16)
    cross_entropy = F.cross_entropy(head(hidden), torch.zeros(16, dtype=torch.long))
    for met in (F.margin_ranking_loss(scores + 10, scores, ones, margin=0.1),
                F.relu(0.1 - 10 + scores - scores).mean(), (scores - scores - 10).clamp(min=0).sum()):
        inspection = inspect(cross_entropy + 0.5 * met)
        assert inspection is not None and inspection.held_at_zero() == {id(scorer.weight), id(scorer.bias)}
    missed = inspect(cross_entropy + F.margin_ranking_loss(scores - 10, scores, ones, margin=0.1))
    assert missed is not None and missed.held_at_zero() == set()
    assert inspect(cross_entropy + scorer(torch.relu(hidden - 100)).mean()) is None


class _LayerStack(torch.nn.Module):
    """Layers kept in a plain list, each trained by its own optimizer (forward-forward
    training): none of them is a submodule of the stack."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = [torch.nn.Linear(4, 4), torch.nn.Linear(4, 2)]
        self.heads = {"main": torch.nn.Linear(2, 1)}


def test_models_kept_in_plain_containers_are_named_as_the_script_reaches_them() -> None:
    from sanitizer.core.naming import ModelIndex
    stack = _LayerStack()
    optimizers = [torch.optim.SGD(layer.parameters(), lr=0.1) for layer in [*stack.layers, stack.heads["main"]]]
    index = ModelIndex()
    layer = stack.layers[1]  # a loop variable of the script names a layer less well than its place
    index.refresh([p for opt in optimizers for p in opt.param_groups[0]["params"]], [])
    assert {name for name, _ in index.roots} == {"layers.0", "layers.1", "heads.main"}, (index.roots, layer)
    assert index.param_name(stack.layers[1].bias) == "layers.1.bias"


def test_a_jump_at_step_two_that_ends_the_run_is_judged_only_when_far_beyond_noise() -> None:
    """A run of two steps (it crashed, or was that short) whose second loss is ten to a hundred
    times the first: with batches of two, that happens by chance one time in ten, and one
    earlier loss is no level. A jump of a thousand times or more is still a blow-up, and so
    is one from a level of two losses (`test_blow_up_in_warm_up_is_judged_at_its_step`)."""
    assert _divergence_events([0.012, 0.128]) == []
    assert _divergence_events([0.00638, 1.29]) == []
    (event,) = _divergence_events([0.01, 12.0])
    assert event.step == 2 and "the run ended there" in event.message, event.message


def test_a_jump_that_ends_the_run_is_judged_against_how_few_losses_came_before_it() -> None:
    """The third loss of a run that ends there, 12 times the larger of the first two (a
    regression in batches of two does that about once in a hundred): noise, as ten times a
    single loss is. The bar falls as losses come before it: 43 times the larger of two, 16
    times the largest of three, and from four losses on the plain ten times. A loss after
    the jump is more evidence: then the blow-up rule is unchanged."""
    assert _divergence_events([0.42, 0.61, 7.3]) == []
    (event,) = _divergence_events([0.42, 0.61, 30.0])
    assert event.step == 3 and "the run ended there" in event.message, event.message
    assert _divergence_events([0.5, 0.6, 0.55, 8.0]) == []
    assert [event.step for event in _divergence_events([0.5, 0.6, 0.55, 12.0])] == [4]
    assert [event.step for event in _divergence_events([0.5, 0.6, 0.55, 0.58, 6.1])] == [5]
    assert [event.step for event in _divergence_events([0.42, 0.61, 7.3, 7.0])] == [3]
