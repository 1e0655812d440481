"""Names for modules and parameters, taken from the models the script builds.

The models are found once (and again only when a name is missing) by scanning
live objects for the outermost `nn.Module`s that hold the run's parameters:
those of the optimizers that stepped and of the modules seen in forward (a
GAN's generator runs before its optimizer first steps). Parameter-free modules
(losses, transforms) are not models: their names never become prefixes. A script
that froze its objects out of the collector (`gc.freeze()`) hides its models from
that scan; they are then looked for in the variables of the running code.
"""
from __future__ import annotations

import gc
import weakref
import sys
from itertools import compress, islice
from types import ModuleType
from typing import Iterable, Iterator

import torch
from torch import nn

from sanitizer.core import locations


class ModelIndex:
    def __init__(self) -> None:
        # held weakly, as the optimizers: a model the script drops goes
        self._roots: list[tuple[str, weakref.ref[nn.Module]]] = []
        # the optimizers alive at the last scan, held weakly: one the script drops (a fold's,
        # a sweep trial's) must go, with its parameters and state
        self._optimizers: weakref.WeakSet[torch.optim.Optimizer] = weakref.WeakSet()
        self._module_names: dict[int, str] = {}
        self._param_names: dict[int, str] = {}
        self._param_owner: dict[int, weakref.ref[nn.Module]] = {}
        # optimizers alive before the run (a notebook's earlier cell): they count only once they step
        self._stale = {id(obj) for obj in live_instances(torch.optim.Optimizer)[0]}

    def names_all(self, params: Iterable[torch.Tensor]) -> bool:
        return all(id(p) in self._param_names for p in params)

    def forget(self) -> None:
        """Let go of the modules the index holds, before the anchors of a new scan are
        taken: it must not keep one alive into it (a head the script replaced would
        stay a model of its own, and prefix every name)."""
        self._roots = []
        self._param_owner.clear()

    def refresh(self, anchor_params: Iterable[torch.Tensor], anchor_modules: Iterable[nn.Module]) -> None:
        anchor_modules = list(anchor_modules)
        modules, optimizers = live_instances(nn.Module, torch.optim.Optimizer)
        found = {id(module) for module in modules}
        if any(id(module) not in found for module in anchor_modules):
            # a module run forward that the scan missed: the script froze its objects out of the
            # collector (`gc.freeze()`); its models are those its variables reach. A layer found
            # only so is no model of its own: with no model reaching it, it stays unnamed.
            for _, module in _script_models():
                if id(module) not in found:
                    found.add(id(module))
                    modules.append(module)
        self._optimizers = weakref.WeakSet(optimizers)
        params = {id(p) for p in anchor_params}
        # the parameters of every optimizer built during the run too: a GAN's second model
        # is a model from the first step on, so names keep one form for the whole run; not
        # frozen ones (an optimizer over a teacher frozen with `requires_grad_(False)`)
        params.update(id(p) for opt in optimizers if id(opt) not in self._stale
                      for p in params_of(opt) if p.requires_grad)
        params.update(id(p) for module in anchor_modules for p in module.parameters(recurse=False))
        inner = {id(child) for module in modules for child in module._modules.values() if child is not None}
        roots = _outermost([module for module in modules if id(module) not in inner and _touches(module, params)],
                           params)
        self._roots = [(prefix, weakref.ref(root)) for prefix, root in _prefixed([unwrap_compiled(r) for r in roots])]
        self._rebuild()

    @property
    def roots(self) -> list[tuple[str, nn.Module]]:
        """The models found by the last scan that are still alive, with their prefixes."""
        return [(prefix, root) for prefix, ref in self._roots if (root := ref()) is not None]

    def _rebuild(self) -> None:
        self._module_names.clear()
        self._param_names.clear()
        self._param_owner.clear()
        for prefix, root in self.roots:
            for name, module in root.named_modules():
                self._module_names.setdefault(id(module), _join(prefix, name))
                for pname, param in module.named_parameters(recurse=False):
                    key = id(param)
                    if key not in self._param_names:
                        self._param_names[key] = _join(prefix, _join(name, pname))
                        self._param_owner[key] = weakref.ref(module)

    def module_name(self, module: nn.Module) -> str | None:
        return self._module_names.get(id(module))

    def param_name(self, param: torch.Tensor) -> str | None:
        return self._param_names.get(id(param))

    def param_owner(self, param: torch.Tensor) -> nn.Module | None:
        owner = self._param_owner.get(id(param))
        return owner() if owner is not None else None

    def named_parameters(self) -> list[tuple[str, torch.Tensor]]:
        seen: set[int] = set()
        named = []
        for prefix, root in self.roots:
            for name, param in root.named_parameters():
                if id(param) not in seen:
                    seen.add(id(param))
                    named.append((_join(prefix, name), param))
        return named

    def optimizer_params(self) -> set[int]:
        return {id(p) for opt in list(self._optimizers) for p in params_of(opt)}


def live_instances(*bases: type) -> list[list[object]]:
    """The live objects (those the garbage collector tracks) whose class derives
    from each of `bases`, in the collector's order: one pass over its objects that
    looks each one's class up in the set of the classes now deriving from `bases`
    (a scan runs over the hundreds of thousands of objects that importing torch
    makes; an `issubclass` call for each of them, once per base, cost several times
    as much). By `type()` rather than `isinstance()`: some objects compute
    `__class__` with side effects."""
    live = gc.get_objects()
    derived = [_derived(base) for base in bases]  # after the scan: a class made since has no instance in it
    wanted = set().union(*derived)
    try:
        found = list(compress(live, map(wanted.__contains__, map(type, live))))
    except TypeError:  # a class whose metaclass defines __eq__ without __hash__: look one by one
        found = [obj for obj in live if any(issubclass(type(obj), base) for base in bases)]
    del live
    return [[obj for obj in found if type(obj) in classes] for classes in derived]


def _derived(base: type) -> set[type]:
    """`base` and every class that derives from it, directly or not."""
    classes = {base}
    pending = [base]
    while pending:
        for subclass in type.__subclasses__(pending.pop()):
            if subclass not in classes:
                classes.add(subclass)
                pending.append(subclass)
    return classes


def unwrap_compiled(module: nn.Module) -> nn.Module:
    """The model a `torch.compile` wrapper (`OptimizedModule`) holds: names are the
    model's own (`l1.weight`, not `_orig_mod.l1.weight`), as the user wrote them."""
    while (type(module).__name__ == "OptimizedModule" and type(module).__module__.startswith("torch._dynamo")
           and isinstance(getattr(module, "_orig_mod", None), nn.Module)):
        module = module._orig_mod
    return module


def script_variable(tensor: torch.Tensor) -> str | None:
    """The name the script gives `tensor` (`w1` of a network written with bare
    tensors, a CLIP temperature `logit_scale`): a global of `__main__`, then a local
    of the user's frames now running, innermost first, or an attribute of one
    (`self.logit_scale` in a trainer's method: `logit_scale`); None when none does."""
    main = sys.modules.get("__main__")
    for name, value in list(vars(main).items()) if main is not None else ():
        if value is tensor and not name.startswith("_"):
            return name
    for name, value in _user_locals():
        if value is tensor:
            return name
        attributes = own_attributes(value)
        if type(attributes) is dict and not issubclass(type(value), (type, ModuleType)):
            for attribute, held in list(attributes.items()):
                if held is tensor and not attribute.startswith("_"):
                    return attribute
    return None


def free_parameters() -> list[tuple[str, torch.Tensor]]:
    """The `nn.Parameter`s that require grad which the script holds itself, and the
    plain leaf tensors that do (`temperature = torch.ones(1, requires_grad=True)`),
    named as `script_variable` names them (a CLIP temperature `logit_scale`, or
    `self.logit_scale` of a trainer): globals of `__main__`, the locals of the user's
    frames now running, and the attributes of those locals. Whether a module holds them
    too, or whether a plain one is data, is the caller's to ask."""
    main = sys.modules.get("__main__")
    held = [(name, value) for name, value in (list(vars(main).items()) if main is not None else ())
            if not name.startswith("_")]
    for name, value in _user_locals():
        held.append((name, value))
        attributes = own_attributes(value)
        if type(attributes) is dict and not issubclass(type(value), (type, ModuleType, nn.Module)):
            held += [(attribute, member) for attribute, member in list(attributes.items())
                     if not attribute.startswith("_")]
    found: dict[int, tuple[str, torch.Tensor]] = {}
    for name, value in held:
        if (issubclass(type(value), torch.Tensor) and value.requires_grad  # type: ignore[union-attr]
                and (issubclass(type(value), nn.Parameter) or value.is_leaf)):  # type: ignore[union-attr]
            found.setdefault(id(value), (name, value))  # type: ignore[arg-type]
    return list(found.values())


def _user_locals() -> Iterator[tuple[str, object]]:
    """The local variables of the user's frames now running, innermost first."""
    frame = sys._getframe(1)
    while frame is not None:
        if locations.is_user_file(frame.f_code.co_filename):
            yield from list(frame.f_locals.items())
        frame = frame.f_back


def model_variable(module: nn.Module) -> str | None:
    """What the script calls a model it does not train (a teacher): see `_variable_names`."""
    return _variable_names().get(id(module))


def params_of(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    """The parameters an optimizer updates, in its groups' order."""
    try:
        return [p for group in optimizer.param_groups for p in group["params"]]
    except Exception:  # an optimizer not fully built, or one that hides its groups
        return []


def _outermost(roots: list[nn.Module], params: set[int]) -> list[nn.Module]:
    """`roots` less those whose parameters of the run another root holds too: the
    Python module behind a `torch.jit.script` copy that a model holds, which torch
    keeps alive and which shares the copy's parameters, is no model of its own."""
    if len(roots) < 2:
        return roots
    held = [{id(p) for p in root.parameters()} & params for root in roots]
    return [root for index, root in enumerate(roots)
            if not any(other != index and held[index] <= held[other]
                       and (held[index] != held[other] or other < index) for other in range(len(roots)))]


def _touches(module: nn.Module, params: set[int]) -> bool:
    return any(id(p) in params for p in module.parameters())


def _prefixed(roots: list[nn.Module]) -> list[tuple[str, nn.Module]]:
    """One model keeps bare names (as `model.named_modules()`); several get a prefix."""
    if len(roots) <= 1:
        return [("", root) for root in roots]
    names = _variable_names()
    taken: set[str] = set()
    result = []
    for root in roots:
        prefix = names.get(id(root)) or class_name(root)
        while prefix in taken:
            prefix += "_"
        taken.add(prefix)
        result.append((prefix, root))
    return result


def _variable_names() -> dict[int, str]:
    """What the script calls its models: see `_script_models`."""
    names: dict[int, str] = {}
    for label, module in _script_models():
        names.setdefault(id(module), label)
    return names


def _script_models() -> Iterator[tuple[str, nn.Module]]:
    """The models the script's variables reach, with what it calls them: globals of
    `__main__`, then the locals of the user's frames now running, innermost first, and
    the attributes of those locals (`self.student` in a trainer's method: `student`)."""
    main = sys.modules.get("__main__")
    for name, value in list(vars(main).items()) if main is not None else ():
        yield from _modules_in(name, value)
    for name, value in _user_locals():
        yield from _reached_from(name, value)


def _reached_from(name: str, value: object) -> list[tuple[str, nn.Module]]:
    """The models a local variable reaches, with their names: what it holds
    (`self` and `cls` name nothing), then what an object or a module keeps as
    attributes (layers a module keeps in a plain list are not its submodules).
    Classes and imported modules reach nothing."""
    if issubclass(type(value), (type, ModuleType)):
        return []
    found = [] if name in ("self", "cls") else _modules_in(name, value)
    return found if type(value) in _CONTAINERS else found + _module_attributes(value)


_CONTAINERS = (list, tuple, dict)
_MAX_ITEMS = 256  # items of a plain container looked at for models


def _modules_in(name: str, value: object) -> list[tuple[str, nn.Module]]:
    """`value` when it is a module, or the modules a plain list, tuple or dict
    holds, named as the script reaches them (`layers.0` for `layers[0]`, and
    `models.student` for `models["student"]`): models kept outside any module
    (one optimizer per layer) have no name in a parent's `named_modules()`."""
    if issubclass(type(value), nn.Module):
        return [(name, value)]  # type: ignore[list-item]
    if type(value) is dict:
        items = [(key, item) for key, item in islice(value.items(), _MAX_ITEMS)  # type: ignore[attr-defined]
                 if type(key) is str]
    elif type(value) in (list, tuple):
        items = [(str(index), item) for index, item in enumerate(islice(value, _MAX_ITEMS))]  # type: ignore[call-overload]
    else:
        return []
    return [(f"{name}.{key}", item) for key, item in items if issubclass(type(item), nn.Module)]


def own_attributes(value: object) -> object:
    """`vars(value)`, or None where it has none or cannot be read (a proxy whose
    `__dict__` raises outside its context)."""
    try:
        return vars(value)
    except Exception:
        return None


def _module_attributes(value: object) -> list[tuple[str, nn.Module]]:
    """The modules an object (a trainer, an argument namespace) keeps as attributes,
    or in plain lists, tuples and dicts it keeps as attributes."""
    attributes = own_attributes(value)
    if type(attributes) is not dict:
        return []
    return [found for name, member in list(attributes.items()) if not name.startswith("_")
            for found in _modules_in(name, member)]


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix and name else prefix or name


def class_name(module: object) -> str:
    """The name of a module's class; a `torch.jit.script`ed module's is the class it
    was scripted from (`Net`, not `RecursiveScriptModule`)."""
    original = getattr(module, "original_name", None) if type(module).__name__ == "RecursiveScriptModule" else None
    return original if isinstance(original, str) and original else type(module).__name__
