"""Which names of `torch.nn` are module classes: a rule reads a call of one as a new
module, and a file's class deriving from one as a model."""

from __future__ import annotations

import pytest

from trainlint.analysis.training import is_torch_nn_class


@pytest.mark.parametrize("name", ["torch.nn.Linear", "torch.nn.Module", "torch.nn.modules.conv.Conv2d",
                                  "torch.nn.parallel.DistributedDataParallel"])
def test_a_module_class_of_torch_nn_is_one(name: str) -> None:
    assert is_torch_nn_class(name)


@pytest.mark.parametrize("name", [None, "torch.nn.functional.relu", "torch.nn.init.zeros_", "torch.nn.Parameter",
                                  "torch.nn.Buffer", "torch.nn.parameter.UninitializedParameter",
                                  "torch.nn.utils.rnn.PackedSequence", "torch.Tensor", "torchvision.models.ResNet"])
def test_a_function_a_tensor_or_a_utility_is_none(name: str | None) -> None:
    assert not is_torch_nn_class(name)
