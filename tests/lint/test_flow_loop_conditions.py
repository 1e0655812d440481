"""Flow keeps what a loop-invariant condition decided across iterations: the
`if use_amp:` of one iteration and the `else:` of the next cannot both run."""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.flow import Facts, Flow
from trainlint.registry import by_code
from trainlint.semantic import SemanticModel
from trainlint.testing import found_marks


def _fallback_after_amp(source: str) -> bool:
    """Whether some path runs `fallback()` after `amp()` ran in an earlier iteration."""
    module = cst.parse_module(source)
    seen: list[bool] = []

    def transfer(facts: Facts, node: cst.CSTNode) -> Facts:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            if node.func.value == "amp":
                return facts | {"amp"}
            if node.func.value == "fallback":
                seen.append("amp" in facts)
        return facts

    Flow(SemanticModel("loop.py", source, module), transfer).run(module)
    return any(seen)


def test_invariant_condition_is_kept_across_iterations() -> None:
    source = "for x in xs:\n    if self.use_amp:\n        amp()\n    else:\n        fallback()\n"
    assert not _fallback_after_amp(source)


def test_condition_over_a_loop_variable_is_not_kept() -> None:
    source = "for x in xs:\n    if x > 0:\n        amp()\n    else:\n        fallback()\n"
    assert _fallback_after_amp(source)


def test_condition_reassigned_in_the_loop_is_not_kept() -> None:
    source = "for x in xs:\n    if flag:\n        amp()\n    else:\n        fallback()\n    flag = not flag\n"
    assert _fallback_after_amp(source)


def test_condition_with_a_call_is_not_kept() -> None:
    source = "for x in xs:\n    if should_scale():\n        amp()\n    else:\n        fallback()\n"
    assert _fallback_after_amp(source)


def test_clip_in_float32_path_of_accumulating_loop_is_not_after_scaled_backward() -> None:
    source = (
        "import torch\n"
        "class Trainer:\n"
        "    def train_epoch(self, loader):\n"
        "        for i, batch in enumerate(loader):\n"
        "            loss = self.model(batch)\n"
        "            if self.use_amp:\n"
        "                self.scaler.scale(loss).backward()\n"
        "            else:\n"
        "                loss.backward()\n"
        "            if (i + 1) % self.accum != 0:\n"
        "                continue\n"
        "            if self.use_amp:\n"
        "                self.scaler.unscale_(self.optimizer)\n"
        "            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "            if self.use_amp:\n"
        "                self.scaler.step(self.optimizer)\n"
        "                self.scaler.update()\n"
        "            else:\n"
        "                self.optimizer.step()\n"
    )
    assert found_marks(by_code()["TL101"], source) == set()
