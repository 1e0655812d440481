"""What a detector may do with the run it watches: emit events, name things, add notes.

Detectors get this narrow view instead of the session, so a check cannot depend
on how the session keeps its state (hooks, probes, private counters), and a test
can hand a detector any object with these few members.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch
    from torch import nn

    from sanitizer.core.events import Event
    from sanitizer.core.session import Sanitizer


class Sink:
    """A session's events, names and notes, as detectors see them."""

    def __init__(self, session: Sanitizer) -> None:
        self._session = session

    # ------------------------------------------------------------------ output
    def emit(self, kind: str, step: int | None, message: str, **fields: Any) -> Event | None:
        """Record an event of `kind` (None when that check is off)."""
        return self._session.emit(kind, step, message, **fields)

    @property
    def static_loss_scale(self) -> float | None:
        """S of the last `(loss * S).backward()` (a static loss scale by hand, S >= 2), else None."""
        return self._session.static_loss_scale

    def note(self, line: str) -> None:
        """A remark for the report's notes (not a problem of the script)."""
        self._session.notes.append(line)

    # -------------------------------------------------------------------- time
    @property
    def step(self) -> int:
        """The step being accumulated now (numbered from 1)."""
        return self._session.step

    @property
    def crashed(self) -> str | None:
        """When an exception of the script ended the run (` in step 43`, ` after step 30, the
        last optimizer step`: see `crash_time`); None for a halt, an interrupt, an exit status,
        a collective that lost its peer, an error while setting up, or a normal end."""
        from sanitizer.core.ending import crash_time

        ending = self._session.ending
        crashed = isinstance(ending, dict) and ending.get("how") == "exception" and not ending.get("peer_lost")
        return (crash_time(ending) or None) if crashed else None

    @property
    def completed_steps(self) -> int:
        return self._session.steps

    def optimizer_stepped(self, optimizer: Any) -> bool:
        """Whether `optimizer` has ended a step of this run."""
        return self._session.has_stepped(optimizer)

    @property
    def device(self) -> str | None:
        """Where the trained parameters live (`cpu`, `cuda:0`), once a step showed them."""
        return self._session.device

    # ------------------------------------------------------------------- names
    def module_of_slot(self, slot: int) -> nn.Module | None:
        """The module behind a slot of a step record's forward trail."""
        return self._session.module_of_slot(slot)

    def module_name(self, module: nn.Module) -> str | None:
        """As in `model.named_modules()` (the class name for a module of no model)."""
        return self._session.module_name(module)

    def slot_name(self, slot: int) -> str | None:
        return self._session.slot_name(slot)

    def slot_is_own(self, slot: int) -> bool:
        """The slot holds a value a module's own code computed and handed one of its
        children (`torch.log(x)` before `self.fc(...)`), not the module's output."""
        return self._session.slot_is_own(slot)

    def param_name(self, param: torch.Tensor) -> str | None:
        """As in `model.named_parameters()`."""
        return self._session.param_name(param)

    def param_label(self, param: torch.Tensor) -> str:
        """Its name, or for a tensor no model holds and no top-level variable of the
        script names, `<unnamed (shape)>`: what a message shows."""
        return self.param_name(param) or f"<unnamed {tuple(param.shape)}>"

    def nonfinite_write(self, param: torch.Tensor) -> str | None:
        """`file:line` where the script wrote a NaN or Inf into `param` by hand
        (`w[0, 0] = float("nan")`, `w.fill_(inf)`), when nothing wrote it since; else None."""
        return self._session.nonfinite_write(param)

    def nonfinite_write_in(self, param: torch.Tensor, step: int) -> str | None:
        """`file:line` where the script wrote a NaN or Inf into `param` by hand during
        `step`, whatever wrote it since; else None."""
        return self._session.nonfinite_write_in(param, step)

    def param_module_name(self, param: torch.Tensor) -> str | None:
        return self._session.param_module_name(param)

    def common_module_name(self, params: list[torch.Tensor]) -> str | None:
        """The outermost module whose parameters are all among `params`, of those holding
        them all (`discriminator` for a GAN's discriminator optimizer), None when they
        share no named module or are a whole model that no prefix names. The innermost
        one holding them all is where their names part, and may be a part of the model
        that holds nothing else: GPT-2's `transformer`, when the output layer is tied to
        the embedding and so adds no parameter of its own."""
        names = [name.split(".")[:-1] for name in map(self.param_name, params) if name]
        if not names or len(names) < len(params):
            return None
        parts = os.path.commonprefix(names)  # the longest list of parts all share
        modules = {name: module for prefix, root in self.model_roots()
                   for name, module in root.named_modules(prefix=prefix)}
        held = {id(p) for p in params}
        while parts:
            outer = modules.get(".".join(parts[:-1]))
            if outer is None or any(id(p) not in held for p in outer.parameters()):
                break
            parts = parts[:-1]
        return ".".join(parts) or None

    def was_called(self, module: nn.Module) -> bool:
        """Whether `module`'s forward ran at all during the run, gradients or not."""
        return module in self._session.tracer.called

    def last_called_step(self, module: nn.Module) -> int | None:
        """The step at which `module`'s forward last ran, None when it never ran."""
        return self._session.tracer.called.last_step(module)

    def uses_functional_dropout(self, module: nn.Module) -> bool:
        """Whether `module`'s own code applies dropout as a function, off in eval mode
        (`F.dropout(x, p, training=self.training)`)."""
        return module in self._session.tracer.functional_dropout

    def param_owner(self, param: torch.Tensor) -> nn.Module | None:
        return self._session.index.param_owner(param)

    # ------------------------------------------------------------------ models
    def model_roots(self) -> list[tuple[str, nn.Module]]:
        """The top-level models of the run, with the prefix their names carry."""
        return list(self._session.index.roots)

    def named_parameters(self) -> list[tuple[str, torch.Tensor]]:
        """Every parameter of the run's models."""
        return self._session.index.named_parameters()

    def free_parameters(self) -> list[tuple[str, torch.Tensor]]:
        """The `nn.Parameter`s, and the plain leaf tensors that require grad, the script
        holds in variables of its own (a CLIP temperature), by their names there; some may
        be parameters of a model too. Not plain tensors used as data: given to a model (a
        probe image) or to `torch.autograd.grad` (a PINN's collocation points)."""
        from torch import nn

        from sanitizer.core.naming import free_parameters

        return [(name, tensor) for name, tensor in free_parameters()
                if isinstance(tensor, nn.Parameter) or not self._session.used_as_data(tensor)]

    def master_copies(self, params: list[torch.Tensor]) -> dict[int, bool]:
        """Of `params` (model parameters no optimizer holds), those an optimizer steps
        a copy of (fp32 master weights, see core/masters.py), by id: whether each holds
        its copy's values now (copied back after the last step)."""
        from sanitizer.core.masters import same_values

        masters = self._session.masters
        if any(masters.master_of(p) is None for p in params):
            self._session.find_master_copies()
        found = {}
        for param in params:
            master = masters.master_of(param)
            if master is not None:
                found[id(param)] = same_values(param, master)
        return found

    def optimizer_params(self) -> set[int]:
        """ids of the parameters some optimizer of the run updates: one alive when the
        model was indexed, or one that stepped since (built later, for a second stage)."""
        return self._session.optimizer_param_ids()
