"""The loss diverged: it blew up far above its early level, or it climbs steadily.

Two rules, neither waiting for a long history:

- blow-up: the loss reaches 10 times its early level (the highest of the first
  5 losses that were not themselves a blow-up). In the first 20 steps one loss
  is enough, when it is also 5 times the median of all the losses before it (a
  noisy loss whose first batches were lucky keeps a low early level), so a warm-up blow-up at step 2 is reported as step 2 (the spike
  check needs 20 steps of history) once the 10 losses after it (or those
  before the run ended; a run that ends on the blow-up itself needs it as rare
  as 1 in 1,001 for the noise of batches of two against the largest of the few
  losses before it: 1,000 times a single loss; on batches of up to 4 items, or
  of a size not known, 43 times the larger of two and 16 times the largest of
  three; with four losses before it or more, or two or three on larger batches,
  no more than the blow-up itself) show that training did not come back: none fell below
  0.8 times the early level (a network killed by the blow-up sits at chance;
  one that recovers trains on below where it started), unless the blow-up was
  one outlier batch: the next loss is back at the early level and the median
  of those after it is no higher than the early losses', or the loss is that
  noisy: once the blow-up's own steps are over, the losses after it come back
  within twice the early level and go half as high as the blow-up again (a
  regression on noisy targets in batches of 4), but not when one of them goes 10
  times past the blow-up: it blew up again, no noise swings that far beyond the
  level it jumped to (a Hamiltonian network at a rate of 1e3: 0.84, 1188, then
  between 0.836 and 1e12), or, 5 losses or more, spread so
  widely that their own upper tail reaches the blow-up at odds of 1 in 10,000
  (`tail_reach`: a regression on x..x^4 features in batches of 8 whose lucky
  first loss was 30 times below its third) while their lower tail reaches within
  twice the early level at odds of 1 in 100 (`low_reach`). When the losses after
  it reach either way by their own spread (down within twice the early level, or
  up to the blow-up), the early level may have been one lucky batch of theirs:
  10 more losses are waited for, and a loss among them under 0.8 times the early
  level, or all 20 swinging as above, clears it (the same regression: 0.85, then
  43 at step 2, 3 to 48 for ten steps, under 0.85 at step 16). Where the loss is a mean
  cross-entropy over C classes (its input's shape, seen on the loss call), a
  network that predicts nothing scores its chance level ln(C): while the
  median of the last 5 losses after the blow-up is 0.8 times that or more,
  neither one loss under 0.8 times the early level nor the noisy-loss rules
  clear it (a network a rate 100 times too high damaged: 2.3, 43, then near 2.3,
  dipping under 1.9), and a loss straight back at an early level that was
  chance is an outlier batch only if it trains on: judged after 50 losses (the
  median of the last 10 under that of the first 10 by 5 noise sigmas of such a
  difference; fewer than 20 in all: not judged). A loss that went on rising
  gradually past the blow-up (the median of the 10 losses after it twice the
  blow-up or more: a contrastive loss whose negative queue starts random has a
  tiny first loss, then rises 30 to 150 times as real keys fill the queue) is
  judged only after 50 losses, unless the blow-up itself was 100 times the early
  level (10 times past the blow-up's own threshold, reached from under it in one
  loss: such a rise crosses 10 times its start on its way up, 30 to 50 times at
  its first step up; a transformer at a learning rate of 5 jumps 220 times at
  once, rises on, then drifts down, hundreds of times above its start: a blow-up
  when the 10 losses after it are in), or unless the loss is a class-indexed
  cross-entropy whose early level is ln 2 or more: it started where an untrained
  classifier does, at chance for two classes or more, not tiny by construction,
  and a rise 10 times past that is no warm-up of its own (an LSTM language model
  at a learning rate of 20 jumps 89 times, rises on and drifts down, still 150
  times above its start): when it trains down from its peak by then (the
  median of its last 10 losses under 0.8 times the highest median of 10 losses
  in a row since the blow-up, and under that of the 10 before them, yet still
  twice the early level or more, not fallen to a start that was chance): then the
  rise was the loss's own warm-up, and the judgement starts again from there; a run
  that ends before those 50 losses is too short to judge such a rise: nothing is
  reported, unless a loss after it was 10 times the blow-up's (it blew up again).
  Later the median of the last 10 losses must be that high, so that a single
  outlier batch stays a `loss_spike`; the blow-up is then dated at the first of
  the unbroken run of losses that high.
- plateau: the median of the last 50 losses is at least 5 times the early
  level (a learning rate so high that the loss jumps at step 3 and stays there
  for hundreds of steps, below the 10 times of a blow-up, before it recovers
  part of the way): reported at the first loss that high since the loss was
  last under twice the early level, unless the last 10 losses come back to the
  early level or their median is under 0.8 times that of the highest 10 of
  the window (training down again). A loss
  twice the least early loss or more (the jump itself) never joins the early
  level; but at step 20 an early level of fewer than 5 losses that the losses so
  far reach down to by their own spread (`low_reach` at odds of 1 in 100) was one
  lucky batch of theirs, not a level the loss jumped from: it becomes their median.
- climb: the medians of consecutive blocks of 8 losses rose 4 times in a row,
  the last is at least twice the loss at its lowest (the least median of 3
  neighbouring blocks), higher than that by a tenth of the early level (a loss
  that converged near zero may wander) and by 5 noise sigmas of a block median
  (measured from the steps between neighbouring blocks: a noisy plateau drifts),
  and beyond where the losses at the lowest reach by their own spread
  (`_block_reach`: a heavy-tailed loss, a regression on x..x^4 features in
  batches of 8, has block medians that rise 4 times from 0.98 to 4.0 and fall
  back; its blocks reach 4 to 6 times their median, a smooth loss's 1.4). Such a
  climb is reported, at its own step, once the next block's median rises past
  it, or two blocks later when neither fell under half of it, or when the run
  or its optimizer ends first, or the loss blows up past it (also within the
  climb's own span of steps after it fell back: a learning rate growing 10% a
  step); a block under half of it drops it (the same
  regression's block medians rise 4 times from 0.09 to 2.0 and fall back to 1.06
  and 0.74 by themselves). A climb that one jump made (8 times its lowest in up to
  JUMP_SPAN losses, come back from slowly, whose block medians rose by noise the 3
  blocks before) says so (`_jump`): the step of the first loss that rose three quarters
  of the way in the climb's largest rise within JUMP_SPAN losses, and that loss (the
  jump 0.3, 1.35, 2.4 is dated at the loss 2.4), and the step it began at (a rise over 6
  losses, a setback spread over a few batches, says its steps: 300-305). Each block keeps its largest such rise
  as the losses arrive, so a jump is dated at any step of a long run and across losses
  skipped or non-finite around it. Blocks are merged two by two as the run grows (an
  odd newest block waits for the next merge): memory stays bounded and a slow climb
  over a long run is seen at its own pace.

Past the warm-up, two or more losses 10 times the early level or more that run,
unbroken, into an Inf or NaN loss are a blow-up too, reported at the first of them
(one outlier batch just before a corrupt one is not): a run
that stops at its first non-finite loss (early stopping, a crash) never shows
the 10 high losses the median needs; so are two or more such losses that run,
unbroken, into a crash (the script raised on the blown-up values: its own guard, an
index computed from them), reported when the run ends. A divergence the loss was
still at when the script crashed (its last loss non-finite, or as high as the rule
that found it asks) says so (`diverged_at_crash`): the diagnosis names it as what the
crash followed. A blow-up's message names the learning
rate's rise when the optimizer's rate (its first group's) grew 10 times or more
over the steps just before it and through it (a schedule or a callback gone wrong).

A warm-up blow-up reported because the loss had not come back 10 losses later
is watched on: when the run ends with the median of its last 10 losses below 0.8
times the early level, the event says so (the step the loss first fell back
under it, and where it ended): a blow-up the run recovered from, slowly.

A loss at or below zero has no scale to judge by, and when several optimizers
take turns (a GAN), each loss is meant to rise against the other: not judged.
An optimizer that replaces the one before it (k-fold cross-validation, a
fine-tuning phase after pre-training), or a parameter group added to the
optimizer whose first step moves the loss at once (`add_param_group` of a new head
whose loss term joins the total), starts the judgement again from its own first
losses; it also ends the watch of a blow-up reported before it (the losses after
it are not the diverged run's). Layers unfrozen into the same objective (a group
added, the loss where it was) change nothing. After a divergence, an optimizer of
a new model (the next configuration of a sweep, the next fold) is judged on its
own: it may diverge too; one that trains on the diverged model is not.
"""
from __future__ import annotations

import math
import weakref
from collections import deque
from itertools import dropwhile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, TypeVar

from sanitizer.core.events import Event
from sanitizer.core.loss_calls import CLASS_INDEXED
from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector
from sanitizer.detectors.stats import MAD_TO_SIGMA, TAIL_ODDS, low_reach, median, tail_reach
from sanitizer.report.formatting import format_number

if TYPE_CHECKING:
    from torch import Tensor

    from sanitizer.core.sink import Sink

EARLY = 5  # losses that set the early level
BLOWUP = 10.0  # times the early level
QUICK = 20  # steps during which one loss is enough for a blow-up...
ABOVE_TYPICAL = 5.0  # ...when it is this many times the median of all the losses before it
RECENT = 10  # losses whose median must blow up after that
PLATEAU = 5.0  # times the early level...
PLATEAU_STEPS = 50  # ...for the median of this many losses
PLATEAU_EVERY = 10  # judged every this many steps
FALLING = 0.8  # a plateau whose last losses' median is under this share of its highest is training down
EARLY_SPREAD = 2.0  # a loss this many times the least early loss is no early loss (it jumped)
RECOVERY = 10  # losses after a warm-up blow-up that may show training came back...
RECOVERED = 0.8  # ...by falling below this share of the early level
# odds per loss at which the losses after a warm-up blow-up may reach down to the early level by
# their own spread: then it may have been a lucky batch of theirs, and RECOVERY more losses may
# show the loss come back under it
LUCKY_ODDS = 0.01
CLIMBED = 2.0  # losses after a warm-up blow-up whose median is this many times it rose on, gradually...
CLIMB_WAIT = 50  # ...and are judged after this many losses (trained down from their peak, or not)
# a warm-up blow-up this many times its early level (BLOWUP times past BLOWUP) jumped there in one
# loss: no gradual rise, whatever the losses after it do
JUMP = BLOWUP * BLOWUP
# a class-indexed cross-entropy this high at its start is at chance for two classes or more
# (an untrained classifier's level): not tiny by construction, so it has no warm-up rise
CHANCE = math.log(2)
TAIL_SAMPLE = 5  # losses after a warm-up blow-up, at least, whose own tail may reach it (noise)
BLOCK = 8  # losses per block at the start
RISES = 4  # block medians rising in a row
CLIMB = 2.0  # the last block at least this many times the lowest one
MIN_RISE = 0.1  # ... and above it by this share of the early level
MAX_BLOCKS = 64  # then blocks are merged two by two
# a jump may take this many losses: a rise is read from the lowest of this many losses before one
# (0.3 -> 1.35 -> 2.4 is one jump, and so is a rise 8 times over 6 even steps; a steady climb, 40
# steps or more as the climb rule sees one, gains a fifth of itself in 8, never the half a jump needs)
JUMP_SPAN = BLOCK
# a jump began at the first loss that rose this share of the way from the lowest (noise around
# the lowest loss, a tenth of a jump 8 times high, does not date it)
JUMP_START = 0.1
LOW_SPAN = 3  # neighbouring blocks whose median is the loss at its lowest
SIGNIFICANT = 5.0  # the rise, in noise sigmas of a block median
# a climb is reported once a later block median rises past its last, or after this many blocks
# that stay above FELL_BACK times it; a block under that fell back (the series' own wandering)
CLIMB_BLOCKS = 2
FELL_BACK = 0.5
MEDIAN_SIGMA = math.sqrt(math.pi / 2)  # a median of n normal draws has this many sigmas / sqrt(n)
# high losses in a row before an Inf/NaN loss that make a blow-up of it: one outlier
# batch before a corrupt one, or before a batch whose labels are all ignored, is none
RUN_TO_NAN = 2
LR_STEPS = 5  # steps before a blow-up whose learning rate it is compared with...
LR_RISE = 10.0  # ...and named when the rate grew this many times since
TURNS, NEW, GREW = "turns", "new", "grew"  # optimizers take turns; a new objective; a group added
JUMPED = 2.0  # a loss this many times the latest ones' median (or under its inverse) moved with a change
# a warm-up blow-up that ends its run is judged only when the noise of the tiniest batches (two
# items) jumps that far at odds under this: 1 in 1001, a loss 10 ** 3 times a single one before it
NOISE_ODDS = 1 / (1 + BLOWUP ** 3)
# losses before it, at most, against which that noise is weighed; with more, the early level rests
# on several losses and the blow-up rule alone judges it
NOISE_LOSSES = 3
# items per batch, at most, whose mean squared error jumps BLOWUP times the larger of two others
# at odds over NOISE_ODDS (1 in 680 for 4 items, 1 in 6,000 for 6): larger batches are weighed
# against a single loss only
TINY_BATCH = 4


class DivergenceDetector(Detector):
    name = "divergence"
    kinds = ("divergence",)
    judges_loss_level = True

    def __init__(self) -> None:
        self.reported_step: int | None = None
        # a reported warm-up blow-up, watched for a late recovery: (event, its finding, early level)
        self._watched: tuple[Event, str, float] | None = None
        self._recovered_step: int | None = None
        self._optimizers: set[int] = set()
        self._latest: int | None = None  # the optimizer seen first most recently
        self._groups: int | None = None  # how many parameter groups it had at its latest step
        self._turns = False  # an earlier optimizer stepped again after a later one came
        # the parameters the latest optimizer trains, by id; and whether it trains a model of
        # its own (none of the parameters of the optimizer before it)
        self._params: dict[int, weakref.ref[Tensor]] = {}
        self._new_model = True
        self._last: float | None = None  # the latest loss judged or watched, non-finite too
        # the divergence reported, and the loss at or above which the run is still diverged
        self._diverged: tuple[Event, float] | None = None
        self._start()

    def _start(self) -> None:
        """Judge from the next loss on, as at the start of the run."""
        self.early: list[float] = []
        self.block_medians: list[float] = []
        # how far each block's own losses reach above its median, as a factor (`_block_reach`)
        self.block_reaches: list[float] = []
        # each block's largest rise over up to JUMP_SPAN losses (`_Rise`), the open block's apart:
        # they date a jump at any step of a long run, whatever losses were skipped around it
        self._block_rises: list[_Rise | None] = []
        self._rise: _Rise | None = None
        # the latest losses put in blocks, with their steps: the span a rise is read over
        self._recent: deque[tuple[int, float]] = deque(maxlen=JUMP_SPAN + 1)
        self.block_size = BLOCK
        self._block: list[float] = []
        self._window: deque[float] = deque(maxlen=PLATEAU_STEPS)  # the latest losses
        # the first loss of the current excursion PLATEAU times above the early level (step,
        # loss, where), until a loss comes back under EARLY_SPREAD times that level
        self._first_high: tuple[int, float, str | None] | None = None
        self._steps = 0
        self._seen: list[float] = []  # the first QUICK losses, all of them
        self._early_judged = False  # whether the early level was judged against the series' spread
        self._pending: _BlowUp | None = None  # a warm-up blow-up, until the losses after it judge it
        # past the warm-up: the first of the latest losses, all BLOWUP times the early level,
        # until one is not (reported if the run of them ends in a non-finite loss)
        self._rising: _BlowUp | None = None
        self._lrs: deque[float | None] = deque(maxlen=LR_STEPS)  # of the steps before this one
        # a climb found, until the next blocks show whether it stands (`_follow_climb`); and the
        # latest one dropped because the loss fell back
        self._climb: _Climb | None = None
        self._dropped: _Climb | None = None

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        loss = record.loss
        if record.partial or record.skipped or loss is None:
            return
        lrs_before, lr = list(self._lrs), record.lr
        self._lrs.append(lr)
        self._last = loss
        if not math.isfinite(loss):
            rising = self._rising if self._rising is not None and self._rising.high >= RUN_TO_NAN else None
            blow_up = self._pending or (rising if self.reported_step is None else None)
            if blow_up is not None:  # the blow-up went on to Inf or NaN: no coming back
                blow_up.nonfinite_at = record.step
                blow_up.lr_to = lr if lr is not None else blow_up.lr_to
                self._report_blow_up(sink, blow_up)
            return
        change = self._follow(record)
        if change == GREW:
            # a group added with a loss term of its own moves the loss at once (a new
            # objective); layers unfrozen into the same objective leave it where it was
            change = NEW if self._jumped(loss) else None
        if change == NEW and self._pending is not None and not _too_few_to_judge(self._pending):
            self._report_blow_up(sink, self._pending)  # the last objective's, still pending when it stopped
        if change == NEW and self._climb is not None:
            self._report_climb(sink, self._climb)  # the last objective's climb, standing when it stopped
        if self.reported_step is not None:
            if change is None:
                self._watch(record.step, loss)
                return
            self._end_watch()
            if change != NEW or not self._new_model:
                return
            self.reported_step = None  # a new model's optimizer: judged on its own
            self._diverged = None
        if change == TURNS:
            return
        if change == NEW:
            self._start()
        self._steps += 1
        self._window.append(loss)
        pending = self._pending
        if pending is not None:
            pending.after.append(loss)
            if loss < RECOVERED * pending.level and not _at_chance(pending):
                self._pending = None  # training came back: a transient, not a divergence
            elif self._steps - pending.steps >= (CLIMB_WAIT if pending.climbed or pending.deferred else
                                                 RECOVERY * (1 + pending.waited)):
                self._judge_pending(sink, pending)
            return
        level = max(self.early) if self.early and min(self.early) > 0 else None
        seen = self._seen
        if len(seen) < QUICK:
            seen.append(loss)
        if self._steps >= QUICK and not self._early_judged:
            self._early_judged = True
            if self._lucky_early():
                # the early level was a lucky batch of the series: taken again as its typical level
                self.early = [median(self._after_early())]
                level = self.early[0]
        lr_from = next((rate for rate in lrs_before if rate is not None), None)
        if level is not None and self._steps > QUICK:
            if loss < BLOWUP * level:
                self._rising = None
            elif self._rising is None:
                self._rising = _BlowUp(record.step, self._steps, loss, level, _loss_site(record), False,
                                       lr_from=lr_from, lr_to=lr)
            else:
                self._rising.lr_to = lr
                self._rising.high += 1
        if level is not None and self._blown_up(loss, level) and (
                self._steps > QUICK or loss >= ABOVE_TYPICAL * median(seen[:-1])):
            blow_up = _BlowUp(record.step, self._steps, loss, level, _loss_site(record), self._steps > QUICK,
                              lr_from=lr_from, lr_to=lr, from_chance=level >= CHANCE and _class_indexed(record),
                              chance=_chance(record),
                              noise_odds=_noise_odds(loss, list(self._window)[:-1], record.batch_items))
            rising = self._rising
            if blow_up.sustained and rising is not None:
                # dated at the first of the unbroken run of high losses, whose learning rate is
                # compared with the one a few steps before it (by now the window holds the
                # raised rate only); the median crossed at this step
                blow_up = _BlowUp(rising.step, rising.steps, rising.loss, level, rising.where, True,
                                  lr_from=rising.lr_from, lr_to=lr, judged=record.step)
            if blow_up.sustained:
                self._report_blow_up(sink, blow_up)
            else:
                self._pending = blow_up
            return
        if len(self.early) < EARLY and (not self.early or loss < EARLY_SPREAD * min(self.early)):
            self.early.append(loss)
        if level is not None and loss >= PLATEAU * level:
            self._first_high = self._first_high or (record.step, loss, _loss_site(record))
        elif level is None or loss < EARLY_SPREAD * level:
            self._first_high = None
        plateau = self._plateau(level) if level is not None and self._steps % PLATEAU_EVERY == 0 else None
        if plateau is not None:
            self._report_blow_up(sink, plateau)
        elif self._block_closed(record.step, loss) and level is not None:
            self._follow_climb(record, sink, level)

    def _after_early(self) -> list[float]:
        """The losses so far (QUICK or more, the latest PLATEAU_STEPS) but the early ones."""
        others = list(self._window)
        for loss in self.early:
            if loss in others:
                others.remove(loss)
        return others

    def _lucky_early(self) -> bool:
        """At the end of the warm-up, the early level rests on fewer than EARLY losses (the
        others were twice its least or more) and the rest of the losses so far reach down
        to it by their own spread at LUCKY_ODDS per loss (`low_reach`): it may have been a lucky
        batch of theirs (a heavy-tailed regression whose first loss was 0.85, its next ones 3 to
        48), not a level the loss jumped from (a learning rate so high that it jumps at step 3
        and stays there: those losses' spread is far narrower)."""
        early = self.early
        if not early or len(early) >= EARLY or min(early) <= 0 or self._steps > PLATEAU_STEPS:
            return False  # (past PLATEAU_STEPS losses, after a warm-up blow-up judged late: not judged)
        reach = low_reach(self._after_early(), odds=LUCKY_ODDS)
        return reach is not None and reach <= max(early)

    def _plateau(self, level: float) -> _BlowUp | None:
        window = self._window
        if self._first_high is None or len(window) < PLATEAU_STEPS or median(list(window)) < PLATEAU * level:
            return None
        losses = list(window)
        recent = losses[-RECENT:]
        chunks = [median(losses[i:i + RECENT]) for i in range(0, len(losses), RECENT)]
        if min(recent) <= level or median(recent) < FALLING * max(chunks):
            # back at the early level now and then (noise), or training down from the jump
            # (a contrastive loss whose queue starts random rises, then falls): no plateau
            return None
        step, loss, where = self._first_high
        return _BlowUp(step, self._steps, loss, level, where, sustained=False, plateau=True)

    def _follow(self, record: StepRecord) -> str | None:
        """TURNS when optimizers take turns (then nothing is judged any more); NEW when
        the step starts a new objective (an optimizer that replaces the one before);
        GREW when a parameter group was added to it since its last step; None otherwise."""
        optimizer, groups = record.optimizer_id, record.param_groups
        if optimizer is None or self._turns:
            return TURNS if self._turns else None
        if optimizer == self._latest:
            grew = groups is not None and self._groups is not None and groups > self._groups
            self._groups = groups
            return GREW if grew else None
        if optimizer in self._optimizers:
            self._turns = True
            return TURNS
        self._optimizers.add(optimizer)
        latest, self._latest, self._groups = self._latest, optimizer, groups
        self._new_model = not any(self._trained_before(param) for param in record.training_params)
        self._params = {id(param): weakref.ref(param) for param in record.training_params}
        return NEW if latest is not None else None

    def _trained_before(self, param: Tensor) -> bool:
        """Whether the optimizer before the latest trained `param` (by identity: a freed
        model's parameter id may be given to a new one)."""
        ref = self._params.get(id(param))
        return ref is not None and ref() is param

    def _jumped(self, loss: float) -> bool:
        """`loss` is far from the latest losses' level (either way)."""
        recent = list(self._window)[-RECENT:]
        level = median(recent) if recent else None
        return level is not None and level > 0 and (loss > JUMPED * level or loss * JUMPED < level)

    def _blown_up(self, loss: float, level: float) -> bool:
        value = loss if self._steps <= QUICK else median(list(self._window)[-RECENT:])
        return value >= BLOWUP * level

    def _block_closed(self, step: int, loss: float) -> bool:
        self._block.append(loss)
        self._recent.append((step, loss))
        rise = _span_rise(self._recent)
        if rise is not None and (self._rise is None or rise.size > self._rise.size):
            self._rise = rise
        if len(self._block) < self.block_size:
            return False
        self.block_medians.append(median(self._block))
        self.block_reaches.append(_block_reach(self._block))
        self._block_rises.append(self._rise)
        self._block, self._rise = [], None
        if len(self.block_medians) > MAX_BLOCKS:
            self.block_medians = _merged(self.block_medians, _mean)
            self.block_reaches = _merged(self.block_reaches, _mean)
            self._block_rises = _merged(self._block_rises, lambda a, b: max(a, b, key=_rise_size))
            self.block_size *= 2
        return True

    def _climbing(self, level: float) -> bool:
        last = self.block_medians[-(RISES + 1):]
        if len(last) <= RISES or any(later <= earlier for earlier, later in zip(last, last[1:])):
            return False
        lowest = self.lowest()
        # how much block medians wander by noise alone: from the steps between neighbours
        steps = [abs(later - earlier) for earlier, later in zip(self.block_medians, self.block_medians[1:])]
        noise = MAD_TO_SIGMA * median(steps) / math.sqrt(2)
        rise = last[-1] - lowest
        # the losses at the lowest reach this far by their own spread: a block median there is noise
        reach = lowest * median(self.block_reaches[self._lowest_at():][:LOW_SPAN])
        return (last[-1] >= CLIMB * lowest and rise >= MIN_RISE * level and rise >= SIGNIFICANT * noise
                and last[-1] > reach)

    def lowest(self) -> float:
        """The loss at its lowest: the least median of 3 neighbouring blocks (one lucky block is noise)."""
        start = self._lowest_at()
        return median(self.block_medians[start:start + LOW_SPAN])

    def _lowest_at(self) -> int:
        """The first of the 3 neighbouring blocks whose median is the least."""
        blocks = self.block_medians
        return min(range(max(len(blocks) - LOW_SPAN, 0) + 1), key=lambda i: median(blocks[i:i + LOW_SPAN]))

    def _watch(self, step: int, loss: float) -> None:
        if self._watched is None:
            return
        self._window.append(loss)
        if self._recovered_step is None and loss < RECOVERED * self._watched[2]:
            self._recovered_step = step

    def on_end(self, sink: Sink) -> None:
        if self._climb is not None and self.reported_step is None:
            self._report_climb(sink, self._climb)  # still standing when the run ended
        # a warm-up blow-up still pending: the run ended before RECOVERY losses came after it,
        # judged on those there are; or one the loss rose on from, judged on CLIMB_WAIT losses
        if self._pending is not None and not _too_few_to_judge(self._pending):
            self._judge_pending(sink, self._pending, ended=True)
        crashed = getattr(sink, "crashed", None)  # when an exception of the script ended the run
        rising = self._rising
        if crashed is not None and rising is not None and rising.high >= RUN_TO_NAN and self.reported_step is None:
            # high losses in a row that the script crashed on (its own NaN guard, an index
            # computed from them) before the median of RECENT could show them
            rising.crashed = crashed
            self._report_blow_up(sink, rising)
        self._end_watch()
        diverged, last = self._diverged, self._last
        if crashed is not None and diverged is not None and last is not None and (
                not math.isfinite(last) or last >= diverged[1]):
            diverged[0].extra["diverged_at_crash"] = True

    def _end_watch(self) -> None:
        """The watch of a reported warm-up blow-up ends (with the run, or with the
        optimizer or parameter groups that diverged): the event says when it recovered."""
        watched, self._watched = self._watched, None
        if watched is None or self._recovered_step is None:
            return
        event, finding, level = watched
        end = median(list(self._window)[-RECENT:])
        if end < RECOVERED * level:
            event.message = (f"{finding}; it fell back under that level only at step {self._recovered_step} and "
                             f"ended at {format_number(end)}: a blow-up the run recovered from, slowly")
            event.extra["recovered_step"] = self._recovered_step

    def _judge_pending(self, sink: Sink, pending: _BlowUp, ended: bool = False) -> None:
        """A warm-up blow-up, once the losses after it are in: one outlier batch, after
        which the loss is straight back at its early level (at once, and their median
        no higher than the early losses'), stays a spike; anything else diverged."""
        after = pending.after
        if (not pending.climbed and not pending.from_chance and len(after) >= RECOVERY
                and self._steps - pending.steps < CLIMB_WAIT
                and median(after) >= CLIMBED * pending.loss and pending.loss < JUMP * pending.level):
            # the loss went on rising well past the blow-up, step by step (a contrastive loss
            # whose negative queue starts random: a tiny first loss, then up as real keys fill
            # it): judged after CLIMB_WAIT losses, by whether it trained down from its peak.
            # Such a rise crosses BLOWUP times its start on its way up (30 to 50 times at its
            # first step up); a loss JUMP times its start at once came from under BLOWUP times
            # in one step: a blow-up (a learning rate of 5 for a transformer), not judged so; nor
            # is a class-indexed cross-entropy that started at chance (ln 2 or more, as untrained
            # classifiers start): its start was not tiny by construction
            pending.climbed = True
            return
        if pending.climbed:
            if _training_down(after) and median(after[-RECENT:]) >= EARLY_SPREAD * pending.level:
                # the rise was the loss's own warm-up (its first losses were tiny by construction):
                # judged from here on as from a start, at the level it trains down from
                self._start()
            else:  # stuck up, or fallen back to a start that was chance: no outlier, no noise
                self._report_blow_up(sink, pending)
            return
        at_chance = _at_chance(pending)
        if pending.deferred or (after and after[0] <= pending.level and median(after) <= median(self.early)):
            # straight back at the early level: one outlier batch; but one back at the chance
            # level of its cross-entropy may be a network the blow-up killed, predicting
            # nothing: an outlier only if it trains on from there, judged after CLIMB_WAIT losses
            if at_chance and not pending.deferred and not ended:
                pending.deferred = True
            elif not at_chance or len(after) < 2 * RECENT or _trains_on(after):
                self._pending = None  # trains on (or too few losses to tell)
            else:
                self._report_blow_up(sink, pending)
            return
        again = _blew_up_again(pending)
        if again is not None:
            # back down, then BLOWUP times past the blow-up: no noise swings so far beyond the
            # level it jumped to (a Hamiltonian network at a rate of 1e3: 0.84, 1188, then
            # between a dead 0.836 and 1e12)
            self._report_blow_up(sink, pending, again)
            return
        if not at_chance and self._noisy(pending):
            # a loss at its chance level or above after the blow-up is a damaged network's,
            # not the noise of a regression whose first losses were lucky
            self._pending = None
            return
        if not at_chance and not ended and not pending.waited and (
                self._reaches_early(pending) or self._swings(pending)):
            # the losses after it reach down to the early level or up to the blow-up by their own
            # spread: RECOVERY more losses may show it come back under the early level, or show
            # the spread of a heavy-tailed loss whose first batch was lucky
            pending.waited = True
            return
        self._report_blow_up(sink, pending)

    def _reaches_early(self, pending: _BlowUp) -> bool:
        """The losses after a warm-up blow-up (once its own steps are over) reach down to the
        early spread, EARLY_SPREAD times the early level, by their own spread at LUCKY_ODDS per
        loss (`low_reach`): the early level, of one batch or a few, may have been a lucky one of
        theirs (a heavy-tailed regression whose first loss was 0.85 then swings between 3 and 48,
        down to 0.52 at step 16, under 0.8 times it). The loss falling under RECOVERED times it within
        RECOVERY more losses shows it; one that does not is reported as before."""
        rest = _settled(pending)
        reach = low_reach(rest, odds=LUCKY_ODDS) if len(rest) >= TAIL_SAMPLE else None
        return bool(rest) and min(min(rest), reach if reach is not None else math.inf) <= EARLY_SPREAD * pending.level

    def _noisy(self, pending: _BlowUp) -> bool:
        """The losses after a warm-up blow-up swing as a noisy loss's do."""
        rest = _settled(pending)
        if rest and min(rest) <= EARLY_SPREAD * pending.level and max(rest) >= pending.loss / 2:
            # once the blow-up's own steps are over, the losses come back to the early spread
            # and go half as high as the blow-up again: the spread of a noisy loss (a
            # regression on noisy targets, tiny batches), no jump
            return True
        # the losses after it reach down to the early spread (by their own spread: the early
        # level may be one lucky batch of theirs) and swing so widely that their own tail
        # reaches the blow-up: a heavy-tailed loss (a regression on x**4 features in batches
        # of 8) whose first losses were lucky, no jump
        return self._swings(pending) and self._reaches_early(pending)

    def _swings(self, pending: _BlowUp) -> bool:
        """The losses after a warm-up blow-up (once its own steps are over), TAIL_SAMPLE or
        more, swing so widely that their own tail (`tail_reach`) reaches the blow-up."""
        rest = _settled(pending)
        reach = tail_reach(rest) if len(rest) >= TAIL_SAMPLE else None
        return reach is not None and pending.loss <= reach

    def _report_blow_up(self, sink: Sink, blow_up: _BlowUp, again: tuple[int, float] | None = None) -> None:
        """`again`: (how many losses after it, the loss) where it blew up again after falling back."""
        climb, dropped = self._climb, self._dropped
        if climb is None and dropped is not None and blow_up.step - dropped.step <= dropped.span:
            climb = dropped  # fell back for a block or two, then blew up within the climb's own span
        if climb is not None and climb.step <= blow_up.step and blow_up.loss > climb.peak:
            # a climb found first, held for the next blocks (or dropped just before), that the
            # loss rose on past: the divergence started there (a learning rate that grows 10%
            # a step: block medians rise to 5.2 at step 72, fall to 1.0, blow up from step 109)
            self._pending = self._rising = None
            self._report_climb(sink, climb)
            return
        self._pending = self._rising = self._climb = self._dropped = None
        self.reported_step = blow_up.step
        later = self._steps - blow_up.steps
        after = (f" and the median of its last {PLATEAU_STEPS} losses is above {format_number(PLATEAU)} times "
                 "that level" if blow_up.plateau else
                 f" and the median of the last {RECENT} losses was that high by step {blow_up.judged}"
                 if blow_up.judged is not None and blow_up.judged != blow_up.step else
                 f" and its last {RECENT} losses stay that high" if blow_up.sustained else
                 f" and the loss was non-finite at step {blow_up.nonfinite_at}" if blow_up.nonfinite_at else
                 f" and the script crashed{blow_up.crashed}" if blow_up.crashed is not None else
                 f" and it blew up again to {format_number(again[1])} at step {blow_up.step + again[0]}, after "
                 "falling back" if again is not None else
                 " and the run ended there" if later == 0 else
                 f" and the loss did not come back in the {later} step{'s' * (later > 1)} after it")
        loss, level = blow_up.loss, blow_up.level
        finding = (f"loss {format_number(loss)} is {format_number(loss / level)} times its early level "
                   f"{format_number(level)}{after}{_chance_note(blow_up)}")
        rule = "plateau" if blow_up.plateau else "blow-up"
        lr_from, lr_to = blow_up.lr_from, blow_up.lr_to
        rose = lr_from is not None and lr_to is not None and lr_from > 0 and lr_to >= LR_RISE * lr_from
        cause = (f", while the learning rate rose from {format_number(lr_from)} to {format_number(lr_to)} "
                 "(param_groups[0]['lr'])" if rose else "")
        scale = getattr(sink, "static_loss_scale", None)  # `(loss * S).backward()`: the advice names S
        event = sink.emit("divergence", blow_up.step, f"{finding}{cause}: training diverged",
                          where=blow_up.where, value=loss,
                          extra={"baseline": level, "rule": rule, **({"lr": [lr_from, lr_to]} if rose else {}),
                                 **({"chance": blow_up.chance} if _chance_note(blow_up) else {}),
                                 **({"static_loss_scale": scale} if scale else {})})
        if event is not None:
            self._diverged = (event, (PLATEAU if blow_up.plateau else BLOWUP) * level)
        if event is not None and not blow_up.sustained and not blow_up.plateau:
            self._watched = (event, finding, level)
            self._window.clear()

    def _follow_climb(self, record: StepRecord, sink: Sink, level: float) -> None:
        """A block just closed: a climb found before is reported once the block median goes
        on rising past it, or after CLIMB_BLOCKS blocks that neither rise past it nor fall back
        under FELL_BACK times it (a heavy-tailed loss's block medians rise four times in a row
        and fall back by themselves); one that falls back is dropped. A new climb is held so."""
        climb, last = self._climb, self.block_medians[-1]
        if climb is not None:
            climb.blocks += 1
            if last < FELL_BACK * climb.peak:
                self._climb, self._dropped = None, climb  # fell back: the series' own wandering
            elif last > climb.peak or climb.blocks >= CLIMB_BLOCKS:
                self._report_climb(sink, climb)
            return
        if self._climbing(level):
            self._dropped = None
            span = (RISES + 1) * self.block_size
            self._climb = _Climb(record.step, _loss_site(record), level, self.lowest(), last, span,
                                 jump=self._jump(self.lowest(), last))

    def _jump(self, lowest: float, peak: float) -> tuple[int, float, int] | None:
        """(step, loss, first step) of the jump a climb just found rose by, when it was one. Of the climb's
        blocks, the largest rise (`_Rise`: to a loss from the lowest of the JUMP_SPAN losses
        before it) must start within a quarter of the climb above its lowest and date a loss
        three quarters of the climb or more above it; the blocks before the rise's own all
        within that quarter (but the one just before it, which may hold the jump), those after
        it all that high (a loss that jumps 8 times at once
        and comes back slowly over 200 steps: its block medians may rise by noise the three
        blocks before the jump's). Returns the rise's dated loss, the first past three quarters
        of the rise, and its step. None for a rise spread over more steps, which goes
        through the blocks between."""
        medians, rises = self.block_medians[-(RISES + 1):], self._block_rises[-(RISES + 1):]
        at = max(range(len(rises)), key=lambda i: _rise_size(rises[i]))
        rise = rises[at]
        low, high = lowest + (peak - lowest) / 4, lowest + 3 * (peak - lowest) / 4
        # the block just before the rise's own may hold the jump, in part or whole: a rise is
        # read over a block's span of losses and kept by the block of the loss it was read to
        if (rise is None or rise.before > low or rise.after < high or any(block > low for block in medians[:max(at - 1, 0)])
                or any(block < high for block in medians[at + 1:])):
            return None
        return rise.step, rise.after, rise.start

    def _report_climb(self, sink: Sink, climb: _Climb) -> None:
        """Report a climb at the step it was found."""
        self._climb = self._dropped = None
        self.reported_step = climb.step
        lowest, last = climb.lowest, climb.peak
        jump = ({"jump_step": climb.jump[0], "jump_loss": climb.jump[1], "jump_start": climb.jump[2]}
                if climb.jump is not None else {})
        event = sink.emit("divergence", climb.step, _climb_message(climb), where=climb.where, value=last,
                          extra={"baseline": climb.level, "lowest": lowest, "rule": "climb", **jump})
        if event is not None:
            self._diverged = (event, CLIMB * lowest)


def _climb_message(climb: _Climb) -> str:
    """What a climb's event says: a steady climb, or one loss's jump the loss is still near."""
    lowest, last = format_number(climb.lowest), format_number(climb.peak)
    if climb.jump is None:
        return (f"loss climbed steadily over the last {climb.span} steps, from {lowest} (its lowest) "
                f"to {last}: training is diverging")
    step, loss, start = climb.jump
    # a rise over several losses says where it began: the step to look at in the run's log
    began = f" over steps {start}-{step}" if start < step else ""
    return (f"loss jumped at step {step} from {lowest} (its lowest) to {format_number(loss)}{began}, "
            f"{format_number(loss / climb.lowest)} times that, and was still at {last} by step {climb.step}, "
            f"{format_number(climb.peak / climb.lowest)} times its lowest: a setback training has not recovered from")


@dataclass
class _Climb:
    step: int  # the step whose block closed the climb
    where: str | None
    level: float  # the early level then
    lowest: float  # the loss at its lowest then
    peak: float  # the last block median of the climb
    span: int  # the steps the rising blocks cover
    blocks: int = 0  # blocks closed since
    jump: tuple[int, float, int] | None = None  # (step, loss, first step) of the rise it made (`_jump`)


@dataclass
class _Rise:
    """A rise to a loss from the lowest of the JUMP_SPAN losses before it (losses not judged
    between them left out), dated at the first loss past it that rose three quarters of the way."""
    step: int  # the step of that loss
    before: float  # the lowest loss it rose from
    after: float  # that loss
    start: int  # the step of the first loss that rose JUMP_START of the way: where the rise began
    top: float  # the latest loss, the one the rise was read to

    @property
    def size(self) -> float:
        """The whole rise, to the latest loss: a rise read to a noisy high loss from within the
        jump (0.73 -> 2.97) is no larger than the one read from below it (0.19 -> 2.97)."""
        return self.top - self.before


def _span_rise(recent: deque[tuple[int, float]]) -> _Rise | None:
    """The rise to the latest of `recent` (step, loss) from the lowest loss before it, or None
    for the first loss. Dated at the first loss after the lowest that rose three quarters of the
    way: 300 for 0.3 -> 2.4 at step 300 however the losses after it wander, 301 for a jump
    that takes two losses, 0.3 -> 1.35 -> 2.4. It began at the first loss that rose JUMP_START
    of the way: 300 for both."""
    *earlier, (latest_step, latest) = recent
    if not earlier:
        return None
    low_at = min(range(len(earlier)), key=lambda i: earlier[i][1])
    before = earlier[low_at][1]
    if latest <= before:  # a fall: the latest loss's own
        return _Rise(latest_step, before, latest, latest_step, latest)
    since = earlier[low_at + 1:] + [(latest_step, latest)]
    top, bottom = before + 3 * (latest - before) / 4, before + JUMP_START * (latest - before)
    step, after = next(pair for pair in since if pair[1] >= top)
    start = next(pair[0] for pair in since if pair[1] >= bottom)
    return _Rise(step, before, after, start, latest)


def _rise_size(rise: _Rise | None) -> float:
    return rise.size if rise is not None else -math.inf


@dataclass
class _BlowUp:
    step: int
    steps: int  # losses judged up to it
    loss: float
    level: float
    where: str | None
    sustained: bool  # past the warm-up: the median of the last losses is that high already
    plateau: bool = False  # found by the plateau rule (then `step` is the first loss that high)
    after: list[float] = field(default_factory=list)  # the losses since a warm-up blow-up
    nonfinite_at: int | None = None  # the step a loss after a blow-up was Inf or NaN
    crashed: str | None = None  # when the script crashed (` in step 43`), right after its high losses
    lr_from: float | None = None  # the learning rate a few steps before it
    lr_to: float | None = None  # and at its latest step
    high: int = 1  # losses that high in a row, past the warm-up
    climbed: bool = False  # a warm-up blow-up the losses after it rose on from, gradually
    judged: int | None = None  # the step the median of the latest losses crossed, when later
    # a class-indexed cross-entropy whose early level is at chance for two classes or more
    from_chance: bool = False
    chance: float | None = None  # ln(classes) of the cross-entropy the loss is, when it is one
    deferred: bool = False  # judged after CLIMB_WAIT losses: back, but at that chance level
    waited: bool = False  # judged after 2 * RECOVERY losses: they reach down to the early spread
    noise_odds: float = 0.0  # in the warm-up: how likely the batches' noise alone jumps that far (`_noise_odds`)


def _chance(record: StepRecord) -> float | None:
    """ln(C) when every loss of the step is a mean cross-entropy over C classes."""
    calls = record.loss_calls
    counts = {call.classes if call is not None else None for call in calls}
    if len(calls) != len(record.losses) or len(counts) != 1:
        return None
    (count,) = counts
    return math.log(count) if count else None


def _at_chance(pending: _BlowUp) -> bool:
    """The latest losses after a warm-up blow-up sit at its loss's chance level or above:
    the median of the last EARLY of them is not under RECOVERED times it."""
    return pending.chance is not None and median(pending.after[-EARLY:]) >= RECOVERED * pending.chance


def _trains_on(after: list[float]) -> bool:
    """The median of the last RECENT losses is under that of the first RECENT by SIGNIFICANT
    noise sigmas of such a difference (`_median_gap_sigma`)."""
    return median(after[:RECENT]) - median(after[-RECENT:]) >= SIGNIFICANT * _median_gap_sigma(after)


def _median_gap_sigma(losses: list[float]) -> float:
    """The noise sigma of the difference of two medians of RECENT of `losses` (the noise
    measured from the steps between neighbouring losses; a median of n has 1.25 / sqrt(n)
    times their sigma)."""
    steps = [abs(later - earlier) for earlier, later in zip(losses, losses[1:])]
    return MAD_TO_SIGMA * median(steps) / math.sqrt(2) * MEDIAN_SIGMA / math.sqrt(RECENT) * math.sqrt(2)


def _chance_note(blow_up: _BlowUp) -> str:
    """What the message says when the losses after the blow-up sit at the chance level."""
    chance, after = blow_up.chance, blow_up.after[-RECENT:]
    if chance is None or not after or not RECOVERED <= median(after) / chance <= 1 / RECOVERED:
        return ""
    return (f"; its last {len(after)} losses sit at {format_number(median(after))}, near the chance level "
            f"ln({round(math.exp(chance))}) = {format_number(chance)} of its cross-entropy: the network predicts "
            "nothing")


def _noise_odds(loss: float, before: list[float], items: int | None) -> float:
    """The odds that `loss` is as many times the largest of the k losses `before` it by
    the noise of batches of two alone: a mean of two squared errors is an exponential
    draw, and the largest of k such draws is a sum of exponentials of rates 1 to k, so a
    draw r times it or more comes at odds of the product of j / (j + r) for j = 1 to k
    (ten times one other loss: 1 in 11; ten times the largest of three: 1 in 286).
    Weighed against a single loss whatever the batch (one loss is no level to diverge
    from), against two or three only on batches of TINY_BATCH `items` or fewer, or of a
    size not known (larger ones jump that far more rarely); otherwise, or with more than
    NOISE_LOSSES losses before it, 0: the blow-up rule alone judges it."""
    largest = max(before, default=0.0)
    larger_batch = items is not None and items > TINY_BATCH
    if largest <= 0 or len(before) > NOISE_LOSSES or (len(before) > 1 and larger_batch):
        return 0.0
    ratio = loss / largest
    return math.prod(j / (j + ratio) for j in range(1, len(before) + 1))


def _noise_at_end(pending: _BlowUp) -> bool:
    """A warm-up blow-up whose losses ended on it (no loss after it: the run or its
    objective stopped there), as likely as NOISE_ODDS or more to be its batches' noise
    against the few losses before it (`_noise_odds`): under 1000 times a single loss;
    on batches of TINY_BATCH items or fewer (or of a size not known), under 43 times the
    larger of two or 16 times the largest of three."""
    return not pending.after and pending.noise_odds > NOISE_ODDS


def _too_few_to_judge(pending: _BlowUp) -> bool:
    """A warm-up blow-up whose losses ended before they could tell it from noise or from
    a warm-up rise (`_noise_at_end`, `_unjudged_rise`): nothing is reported."""
    return _noise_at_end(pending) or _unjudged_rise(pending)


def _unjudged_rise(pending: _BlowUp) -> bool:
    """A warm-up blow-up the loss rose on from gradually, whose losses ended (with the
    run, or with their objective) before the CLIMB_WAIT losses that judge it: too few
    to tell a warm-up rise from a divergence. One the loss blew up from again (a loss
    BLOWUP times the blow-up's, a jump from a noisy start) needs no more."""
    return pending.climbed and max(pending.after) < BLOWUP * pending.loss


def _training_down(after: list[float]) -> bool:
    """The latest losses fell clearly from the highest of the losses since the jump and
    keep falling: their median is under FALLING times the highest median of RECENT losses
    in a row, below it by SIGNIFICANT noise sigmas of such a difference (a noisy plateau's
    medians of 10 swing 20% around it: the highest of many is no peak it trained down
    from), and under that of the RECENT before them."""
    if len(after) < 2 * RECENT:
        return False
    last, before = median(after[-RECENT:]), median(after[-2 * RECENT:-RECENT])
    peak = max(median(after[i:i + RECENT]) for i in range(len(after) - RECENT + 1))
    return last < FALLING * peak and peak - last >= SIGNIFICANT * _median_gap_sigma(after) and last < before


def _class_indexed(record: StepRecord) -> bool:
    """The step's losses are all class-indexed cross-entropies (`cross_entropy`, `nll_loss`)
    of a known kind (see `_chance`, which reads the same calls)."""
    calls = record.loss_calls
    return bool(calls) and all(call is not None and call.kind is not None and call.function in CLASS_INDEXED
                               for call in calls)


_Value = TypeVar("_Value")


def _merged(values: list[_Value], combine: Callable[[_Value, _Value], _Value]) -> list[_Value]:
    """Neighbouring blocks' values merged two by two by `combine`; an odd newest block is kept
    as it is (merged with the next one next time), so a jump in it is not lost."""
    merged = [combine(a, b) for a, b in zip(values[0::2], values[1::2])]
    return merged + values[2 * len(merged):]


def _mean(a: float, b: float) -> float:
    return (a + b) / 2


def _block_reach(block: list[float]) -> float:
    """How many times its median a block's median could reach by the spread of the block's
    own losses, at odds TAIL_ODDS: the losses' tail (`tail_reach`) at the odds per loss
    with which half the block's losses lie that far out at once. 1 without a scale."""
    centre = median(block)
    half = len(block) // 2
    reach = tail_reach(block, odds=_odds_per_loss(len(block), half)) if half else None
    return reach / centre if reach is not None and centre > 0 else 1.0


def _odds_per_loss(count: int, half: int) -> float:
    """The odds per loss with which `half` of `count` losses lie out at once at odds
    TAIL_ODDS: (TAIL_ODDS / C(count, half)) ** (1 / half), taken in logarithms, as blocks
    grow with the run and C(count, half) passes what a float holds (past 1030 losses)."""
    log_ways = math.lgamma(count + 1) - math.lgamma(half + 1) - math.lgamma(count - half + 1)
    return math.exp((math.log(TAIL_ODDS) - log_ways) / half)


def _loss_site(record: StepRecord) -> str | None:
    return next((site for site in record.loss_sites if site), None)


def _blew_up_again(pending: _BlowUp) -> tuple[int, float] | None:
    """(how many losses after a warm-up blow-up, the loss) of the first loss BLOWUP times the
    blow-up or more once its own steps are over; None if none."""
    settled = _settled(pending)
    start = len(pending.after) - len(settled)
    return next(((start + i + 1, loss) for i, loss in enumerate(settled) if loss >= BLOWUP * pending.loss), None)


def _settled(pending: _BlowUp) -> list[float]:
    """The losses after a warm-up blow-up once its own steps are over: from the first
    under BLOWUP times the early level on."""
    return list(dropwhile(lambda loss: loss >= BLOWUP * pending.level, pending.after))
