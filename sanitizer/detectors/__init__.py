"""The checks: one detector class per module; `build_detectors` picks the enabled ones."""
from __future__ import annotations

from sanitizer.detectors.base import Detector
from sanitizer.detectors.built_in_forward import BuiltInForwardDetector
from sanitizer.detectors.clip_order import ClipOrderDetector
from sanitizer.detectors.dataloader_bound import DataloaderBoundDetector
from sanitizer.detectors.divergence import DivergenceDetector
from sanitizer.detectors.fitting import FittingDetector
from sanitizer.detectors.grad_underflow import GradUnderflowDetector
from sanitizer.detectors.memory_growth import MemoryGrowthDetector
from sanitizer.detectors.missing_set_epoch import MissingSetEpochDetector
from sanitizer.detectors.missing_zero_grad import MissingZeroGradDetector
from sanitizer.detectors.nonfinite import NonfiniteDetector
from sanitizer.detectors.nonfinite_buffer import NonfiniteBufferDetector
from sanitizer.detectors.param_not_in_optimizer import ParamNotInOptimizerDetector
from sanitizer.detectors.rank_divergence import RankDivergenceDetector
from sanitizer.detectors.saturation import SaturationDetector
from sanitizer.detectors.scale_collapse import ScaleCollapseDetector
from sanitizer.detectors.scheduler_order import SchedulerOrderDetector
from sanitizer.detectors.spikes import GradSpikeDetector, LossSpikeDetector
from sanitizer.detectors.tensor_leak import TensorLeakDetector
from sanitizer.detectors.train_in_eval_mode import TrainInEvalModeDetector
from sanitizer.detectors.unused_parameter import UnusedParameterDetector
from sanitizer.detectors.vanishing_grad import VanishingGradDetector

DETECTORS: tuple[type[Detector], ...] = (
    NonfiniteBufferDetector, NonfiniteDetector, LossSpikeDetector, GradSpikeDetector, GradUnderflowDetector,
    ScaleCollapseDetector, VanishingGradDetector, TensorLeakDetector, MemoryGrowthDetector,
    UnusedParameterDetector, ParamNotInOptimizerDetector, DataloaderBoundDetector, FittingDetector,
    RankDivergenceDetector, MissingSetEpochDetector, SchedulerOrderDetector, DivergenceDetector, SaturationDetector,
    TrainInEvalModeDetector, MissingZeroGradDetector, ClipOrderDetector, BuiltInForwardDetector,
)


def build_detectors(enabled_kinds: set[str]) -> list[Detector]:
    return [cls() for cls in DETECTORS if enabled_kinds.intersection(cls.kinds)]


__all__ = ["DETECTORS", "Detector", "build_detectors"]
