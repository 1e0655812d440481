"""Which variables hold a GradScaler, an optimizer, a scheduler, a sampler or a
DataLoader, judged by what they were built from.

Qualified names say what `torch.amp.GradScaler` is, not what `scaler` holds.
This module follows assignments (`scaler = torch.amp.GradScaler("cuda")`,
`self.scaler = ...`), parameters fed by call sites of the same file
(`train_one_epoch(model, loader, optimizer, scaler=scaler)`), return values of
builder functions, and unmistakable usage (`x.scale(loss).backward()` only
makes sense on a GradScaler). Anything else has no kind: rules stay silent on
what they cannot resolve.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Sequence

import libcst as cst

from trainlint.analysis.literals import number_value, string_value, subscript_key
from trainlint.analysis.scopes import (
    _BINDING_DECORATORS, Scope, _parameters, _statements, assigned_parts, bound_arguments, child_blocks, dotted_name,
    named_parameters, owning_class, receiver_method,
)
from trainlint.analysis.walk import only
from trainlint.semantic import SemanticModel
from trainlint.summaries import TORCH_KIND, item_position

if TYPE_CHECKING:
    from trainlint.summaries import Summary

GRAD_SCALER = "grad_scaler"
OPTIMIZER = "optimizer"
SCHEDULER = "scheduler"
SAMPLER = "sampler"
DATALOADER = "dataloader"

_GRAD_SCALERS = frozenset(
    {
        "torch.amp.GradScaler",
        "torch.cuda.amp.GradScaler",
        "torch.cpu.amp.GradScaler",
        "torch.distributed.fsdp.ShardedGradScaler",
    }
)
_OPTIMIZER_FACTORIES = frozenset(
    {
        "transformers.AdamW",
        "transformers.Adafactor",
        "transformers.optimization.AdamW",
        "transformers.optimization.Adafactor",
        "torch.distributed.optim.ZeroRedundancyOptimizer",
        "timm.optim.create_optimizer",
        "timm.optim.create_optimizer_v2",
    }
)
_OPTIMIZER_PACKAGES = ("torch.optim.", "apex.optimizers.", "bitsandbytes.optim.", "timm.optim.")
_SCHEDULER_FACTORIES = ("transformers.get_", "transformers.optimization.get_")
_INSTANTIATE = frozenset({"hydra.utils.instantiate"})
# the patterns that capture a name: `case opt:`, `case [first, *rest]:`, `case {"k": v, **others}:`
_CAPTURES = (cst.MatchAs, cst.MatchStar, cst.MatchMapping)

# builders of named tuple classes: `collections.namedtuple("Parts", ["optimizer", "scheduler"])`
_NAMED_TUPLES = frozenset({"collections.namedtuple", "typing.NamedTuple"})
# classes whose keyword arguments are the items they hold (`dict` itself: see `_builds_namespace`)
_NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace", "collections.OrderedDict",
                         "munch.Munch", "easydict.EasyDict", "addict.Dict"})
# `configure_optimizers` too: what minGPT's model and a LightningModule name the method
# (a value whose `.step()` is then called is the optimizer, whatever else it may return)
_FACTORY = re.compile(r"^_?(?:build|create|make|get|init|set|setup|configure|load)_(optimizers?|optim|lr_scheduler|scheduler)$")

# the nodes that bind a name other than by a plain assignment, and the field holding it (see
# `Receivers.only_assigned`)
_BINDING_FIELDS = {cst.AssignTarget: "target", cst.AnnAssign: "target", cst.AugAssign: "target",
                   cst.NamedExpr: "target", cst.For: "target", cst.CompFor: "target", cst.Del: "target",
                   cst.AsName: "name", cst.Param: "name", cst.NameItem: "name", cst.ImportAlias: "name",
                   cst.MatchAs: "name", cst.MatchStar: "name", cst.MatchMapping: "rest"}


def factory_kind(func: cst.BaseExpression) -> str | None:
    """`build_optimizer(cfg, model)`, `self.create_optimizer()`: a factory
    whose name says it makes an optimizer (or a scheduler)."""
    name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
    match = _FACTORY.match(name)
    if match is None:
        return None
    return SCHEDULER if "sched" in match.group(1) else OPTIMIZER


def _configured_kind(config: cst.BaseExpression) -> str | None:
    """What `hydra.utils.instantiate(cfg.optimizer, ...)` builds, read from the
    config entry's name."""
    last = (dotted_name(config) or "").rsplit(".", 1)[-1].lower()
    if last in ("optimizer", "optim", "opt"):
        return OPTIMIZER
    if last in ("scheduler", "lr_scheduler", "sched"):
        return SCHEDULER
    return None


def constructor_kind(qualified: str | None) -> str | None:
    """The kind of object a call of `qualified` returns, if it is one we track."""
    if qualified is None:
        return None
    last = qualified.rsplit(".", 1)[-1]
    if qualified in _GRAD_SCALERS:
        return GRAD_SCALER
    if qualified in ("torch.utils.data.DistributedSampler",):
        return SAMPLER
    if qualified == "torch.utils.data.DataLoader":
        return DATALOADER
    if qualified.startswith("torch.optim.lr_scheduler."):
        return SCHEDULER if last[:1].isupper() and not last.startswith("_") else None
    if qualified.startswith("torch.optim.swa_utils."):  # SWALR schedules; AveragedModel is a model
        return SCHEDULER if last == "SWALR" else None
    if qualified.startswith(_SCHEDULER_FACTORIES) and "schedule" in last:
        return SCHEDULER
    if qualified in _OPTIMIZER_FACTORIES:
        return OPTIMIZER
    if qualified.startswith(_OPTIMIZER_PACKAGES) and last[:1].isupper() and last != "Optimizer":
        return OPTIMIZER
    return None


# base classes a parameter may be annotated with (never constructed themselves)
_BASE_CLASSES = {"torch.optim.Optimizer": OPTIMIZER, "torch.optim.optimizer.Optimizer": OPTIMIZER,
                 "torch.optim.lr_scheduler.LRScheduler": SCHEDULER,
                 "torch.optim.lr_scheduler._LRScheduler": SCHEDULER}

# modules whose every class a file may look up by name is a scheduler (`getattr(lr_scheduler, name)`)
_SCHEDULER_MODULES = frozenset({"torch.optim.lr_scheduler"})


def subclassed_kind(ctx: SemanticModel, cls: cst.ClassDef) -> str | None:
    """The kind of the optimizer or scheduler base class `cls` names among its bases."""
    return next((kind for base in cls.bases
                 if (kind := _BASE_CLASSES.get(ctx.qualified_name(base.value) or "")) is not None), None)


# what a loop variable over a container of them holds (a sampler or a DataLoader taken
# from a list is not followed: the rules about them read how each one was built)
_LOOPED_KINDS = frozenset({OPTIMIZER, SCHEDULER, GRAD_SCALER})

_SAMPLER_SHUFFLE_POSITION = 3  # DistributedSampler(dataset, num_replicas, rank, shuffle, ...)


def sampler_shuffle(sampler: cst.Call) -> cst.BaseExpression | None:
    """The value a `DistributedSampler(...)` call passes for `shuffle`, keyword or
    positional; None when it is left to its default (which shuffles)."""
    value: cst.BaseExpression | None = None
    for arg in sampler.args:
        if arg.keyword is not None and arg.keyword.value == "shuffle":
            value = arg.value
    positional = [a for a in sampler.args if a.keyword is None and not a.star]
    if value is None and len(positional) > _SAMPLER_SHUFFLE_POSITION:
        value = positional[_SAMPLER_SHUFFLE_POSITION].value
    return value


@dataclass(frozen=True)
class Binding:
    """A variable: a name in the scope that binds it, or `self.attr` of a class."""

    owner: cst.CSTNode
    name: str


class Receivers:
    def __init__(self, ctx: SemanticModel) -> None:
        self.ctx = ctx
        self.kinds: dict[Binding, str] = {}
        # containers whose every item holds one kind (`optims = {"g": Adam(...)}`,
        # `self.optims[net] = Adam(...)`): what an item read from them holds
        self.item_kinds: dict[Binding, str] = {}
        # a dict written out with string keys, item by item: {"optimizer": ..., "scheduler": ...}
        self.keyed_kinds: dict[Binding, dict[str, str | None]] = {}
        self._keying: set[cst.FunctionDef] = set()  # functions whose returns are being read (see `_keyed_items`)
        self._sequences: set[Binding] = set()  # those of them that iterate over their items (a list, a tuple)
        # constructor call (DataLoader / DistributedSampler / ...) bound to each variable
        self.constructions: dict[Binding, list[cst.Call]] = {}
        # the builder calls whose returned tuple gives each variable its kind (`opt, sched = build(...)`)
        self.unpacked_builds: dict[Binding, list[cst.Call]] = {}
        # by function of the file: the kind of what it returns
        self._returns: dict[cst.FunctionDef, str] = {}
        self._tuple_returns: dict[cst.FunctionDef, list[str | None]] = {}  # kinds of a returned tuple's items
        # the items of the containers every return of a function gives (see `_held_items`)
        self._returned_items: dict[cst.FunctionDef, tuple[set[str | None], bool]] = {}
        # what a method reads as `self.attr` and its class does not assign is its base's (see `binding`)
        self._bases = _bases_in_file(ctx)
        # whether the file may build a named tuple class at all: looked up once, not per call
        self._names_tuples = any(word in ctx.source for word in ("namedtuple", "NamedTuple"))
        # classes of the file that subclass an optimizer or a scheduler (`class Muon(torch.optim.Optimizer)`),
        # also through another class of the file (`class CosineRestart(WarmRestart)`) or one of another
        # module of the project (`class LocalCosine(WarmupPoly)` of `from schedules import WarmupPoly`)
        self._class_kinds: dict[str, str] = {}
        for node in ctx.nodes_of(cst.ClassDef):
            kind = next((found for cls in _lineage(node, self._bases)  # type: ignore[arg-type]
                         if (found := self._subclassed_kind(cls)) is not None), None)
            if kind is not None:
                self._class_kinds.setdefault(node.name.value, kind)  # type: ignore[attr-defined]
        self._self_attributes: dict[cst.ClassDef, set[str]] = {}
        # attributes written on an object other than a method's own (`ev.sampler = t.sampler`)
        self._written_on_others: set[str] = set()
        self._spellings: dict[str, list[cst.Name | cst.Attribute]] | None = None  # see `spelled`
        self._binding_sites: dict[str, dict[Binding, list[tuple[cst.CSTNode, cst.CSTNode, cst.CSTNode]]]] = {}
        # each class of the file with the classes whose instances run its methods: itself and
        # those deriving from it (see `may_be_one_object`)
        self._derived: dict[cst.ClassDef, set[cst.ClassDef]] = {}
        for cls in self._bases:
            for ancestor in _lineage(cls, self._bases):
                self._derived.setdefault(ancestor, set()).add(cls)
        for target in _assignment_targets(ctx):
            root, attributes = _attribute_path(target)
            cls = self._class_of_self(root) if root is not None and attributes else None
            if cls is not None:
                self._self_attributes.setdefault(cls, set()).add(".".join(attributes))
            elif attributes:
                self._written_on_others.add(attributes[-1])
        self._lent = self._classes_lending_methods()
        # the assignments to variables, read once: the passes below only
        # learn more kinds of values
        self._pairs = list(self._assignments())  # (target, value) of every assignment, read once
        self._assigned = [
            (binding, value) for target, value in self._pairs if (binding := self.binding(target)) is not None
        ]
        self._values_of: dict[Binding, list[cst.BaseExpression]] = {}  # the same, by variable (see `assigned`)
        for binding, value in self._assigned:
            self._values_of.setdefault(binding, []).append(value)
        # `g_sched, d_sched = build_schedulers(...)`: (variable, call, position)
        self._unpacked = [
            (binding, value, index) for target, value in self._pairs
            if type(target) in (cst.Tuple, cst.List) and type(value) is cst.Call
            for index, element in enumerate(target.elements)  # type: ignore[attr-defined]
            if (binding := self.binding(element.value)) is not None
        ]
        self._collect_assignments()
        self._return_values = [  # what each `return` of each function of the file gives
            (func, [node.value for node in only(ctx.subtree(func.body), cst.Return)])  # type: ignore[attr-defined]
            for defs in ctx.scopes.functions.values() for func in defs
        ]
        self._collect_returns()
        self._collect_assignments()  # again: builders are now known
        self._collect_usage()
        for _ in range(2):
            self._collect_item_kinds()
            self._collect_returns()  # `opts = [...]; return opts` once `opts` is known
            self._collect_parameters()
            self._collect_assignments()  # `self.x = param` once the parameter is known
        self._collect_item_kinds()
        self._collect_loop_variables()

    # -- queries -----------------------------------------------------------
    def binding(self, expr: cst.BaseExpression) -> Binding | None:
        """The variable `expr` reads, if it is a plain name, `self.attr` or an attribute
        of one (`self.policy.optimizer`, the same object in every method of the class,
        and of its subclasses in the file that do not assign it)."""
        if type(expr) is cst.Name:
            scope = self._defining_scope(expr.value, self.ctx.scope_of(expr))
            return Binding(scope.node, expr.value) if scope is not None else None
        root, attributes = _attribute_path(expr)
        cls = self._class_of_self(root) if root is not None and attributes else None
        if cls is None:
            return None
        return Binding(self._owner_of(cls, attributes), ".".join(["self", *attributes]))

    def assigned(self, binding: Binding) -> list[cst.BaseExpression]:
        """Every value assigned to `binding` in the file (its parameters' arguments aside)."""
        return list(self._values_of.get(binding, ()))

    def header_bound(self, binding: Binding) -> list[cst.Name | cst.Attribute]:
        """The names a `for` target, a `with ... as` or a `case` pattern's capture of a part
        of the subject (`case [params, *rest]:`) binds to `binding`: bindings whose value the
        code does not spell (an item of the iterable, what `__enter__` returns, a part)."""
        return [node for node, _, parent in self.bound_at(binding) if type(parent) is cst.For
                or type(parent) is cst.AsName and type(self.ctx.parent(parent)) is cst.WithItem
                or type(parent) in _CAPTURES and not self._captures_subject(parent)]

    def only_assigned(self, binding: Binding) -> list[cst.BaseExpression] | None:
        """The values `binding` is assigned, when plain assignments to it (`name = value`,
        `name: T = value`, `self.attr = value`) alone are what bind it: no parameter, loop,
        comprehension or `with ... as` target, tuple unpacking, `global`, walrus, `del`,
        import or augmented assignment, nor a `case` pattern's capture of a part (`case [a,
        b]:`); None otherwise (it may hold anything). A case's capture of the whole subject
        (`case opt:`, `case SGD() as opt:` of `match optimizer:`) assigns it the subject."""
        for node, part, parent in self.bound_at(binding):
            if not (type(parent) in (cst.AssignTarget, cst.AnnAssign) and part is node or self._captures_subject(parent)):
                return None  # bound otherwise than by a plain `name = value`
        return self.assigned(binding) or None

    def wraps_current(self, model: Binding, wrapper: Binding) -> bool:
        """`wrapper`, whose every value is `model` moved or wrapped, holds the object that
        `model` holds wherever it is read: each assignment to `model`, and its import
        (DARTS's `import model_search as model` before `model = model.RNNModel(...)`), is
        followed, before anything may read `wrapper` (see `_may_read`), by a statement that
        assigns `wrapper` on every path (`model = torch.load(path)`, then `parallel_model =
        model.cuda()`), leaving no loop or `try` on the way. `model` is bound by nothing
        else but a parameter (no `global` rebinding in a function, no loop target, no
        `del`); `self.model` is written on no other object and by no other class that may
        share the object."""
        # a parameter's name is resolved where its `def` runs (`bound_at` lists it there):
        # it binds a variable of its own function, not this one
        sites = [site for site in self.bound_at(model) if type(site[2]) is not cst.Param]
        if not all(part is node and (type(parent) in (cst.AssignTarget, cst.AnnAssign, cst.ImportAlias) or (
                type(parent) is cst.AsName and type(self.ctx.parent(parent)) is cst.ImportAlias))
                   for node, part, parent in sites):
            return False
        if type(model.owner) is cst.ClassDef:
            attribute = model.name.removeprefix("self.")
            if not sites or "." in attribute or attribute in self._written_on_others or any(
                    other != model and other.name == model.name and self.may_be_one_object(other, model)
                    for other in self._binding_sites[attribute]):
                return False
        elif not sites and not (type(model.owner) is cst.FunctionDef and model.name in named_parameters(model.owner)):
            return False
        return all(self._assigned_next(node, wrapper) for node, _, _ in sites)

    def _assigned_next(self, node: cst.CSTNode, wrapper: Binding) -> bool:
        """The statement that binds `node`, or an `if` or `with` around it, is followed in
        its block by one that assigns `wrapper` on every path, and by nothing before it
        that may read `wrapper`."""
        statement = next(up for up in self.ctx.ancestors(node) if isinstance(up, cst.BaseStatement))
        while True:
            block = self.ctx.parent(statement)
            if type(block) not in (cst.IndentedBlock, cst.Module):
                return False
            following = block.body[[id(s) for s in block.body].index(id(statement)) + 1:]  # type: ignore[union-attr]
            for later in following:
                if self._assigns_on_every_path(later, wrapper):
                    return True
                if self._may_read(later, wrapper):
                    return False
            statement = self.ctx.parent(block)  # type: ignore[assignment]
            if type(statement) is cst.Else:
                statement = self.ctx.parent(statement)  # type: ignore[assignment]
            while type(statement) is cst.If and type(self.ctx.parent(statement)) is cst.If:
                statement = self.ctx.parent(statement)  # type: ignore[assignment]  # an `elif`
            if type(statement) not in (cst.If, cst.With):
                return False  # the end of its scope, or a loop's next pass, may read `wrapper` first

    def _assigns_on_every_path(self, statement: cst.CSTNode, wrapper: Binding) -> bool:
        """`statement` assigns `wrapper`: a plain assignment, or an `if` whose every branch
        does (see `_block_assigns`)."""
        if type(statement) is cst.SimpleStatementLine:
            return any(type(small) is cst.Assign and any(self.binding(t.target) == wrapper for t in small.targets)
                       or type(small) is cst.AnnAssign and small.value is not None and self.binding(small.target) == wrapper
                       for small in statement.body)
        if type(statement) is cst.If:
            orelse = statement.orelse
            return self._block_assigns(statement.body, wrapper) and (
                self._block_assigns(orelse.body, wrapper) if type(orelse) is cst.Else
                else orelse is not None and self._assigns_on_every_path(orelse, wrapper))
        return False

    def _block_assigns(self, block: cst.BaseSuite, wrapper: Binding) -> bool:
        """A statement of `block` assigns `wrapper` on every path, with nothing before it
        that may read it."""
        for statement in block.body if type(block) is cst.IndentedBlock else ():
            if self._assigns_on_every_path(statement, wrapper):
                return True
            if self._may_read(statement, wrapper):
                return False
        return False

    def _may_read(self, statement: cst.CSTNode, wrapper: Binding) -> bool:
        """`statement` reads (or binds) `wrapper`, calls a function of the file, hands
        `self` to a call (any of them may read it), or leaves the block (`return`,
        `raise`, `break`, `continue`: what runs next may)."""
        for node in self.ctx.subtree(statement):
            if type(node) in (cst.Return, cst.Raise, cst.Break, cst.Continue):
                return True
            if type(node) in (cst.Name, cst.Attribute) and self.binding(node) == wrapper:  # type: ignore[arg-type]
                return True
            if type(node) is cst.Call and (self.ctx.local_callee(node) is not None or any(
                    type(arg.value) is cst.Name and arg.value.value == "self" for arg in node.args)):  # type: ignore[attr-defined]
                return True
        return False

    def bound_at(self, binding: Binding) -> Iterator[tuple[cst.CSTNode, cst.CSTNode, cst.CSTNode]]:
        """Where `binding` is bound: (the name, what is bound: the name itself or the
        tuple or list it is unpacked into, as in `a, b = ...`, and the node that binds it)."""
        spelling = binding.name.rpartition(".")[2]
        if spelling not in self._binding_sites:
            self._binding_sites[spelling] = self._sites_spelled(spelling)
        yield from self._binding_sites[spelling].get(binding, ())

    def _sites_spelled(self, spelling: str) -> dict[Binding, list[tuple[cst.CSTNode, cst.CSTNode, cst.CSTNode]]]:
        """The binding sites (see `bound_at`) of every variable whose name ends in
        `spelling`, by variable: each name so spelled is resolved once, not once per
        variable asked about (a file of many classes each binding `self.sampler`)."""
        sites: dict[Binding, list[tuple[cst.CSTNode, cst.CSTNode, cst.CSTNode]]] = {}
        for node in self.spelled(spelling):
            part, parent = node, self.ctx.parent(node)
            while type(parent) in (cst.Element, cst.StarredElement, cst.Tuple, cst.List):  # `a, b = ...`
                part, parent = parent, self.ctx.parent(parent)
            field = _BINDING_FIELDS.get(type(parent))  # type: ignore[arg-type]
            if field is None or getattr(parent, field) is not part:
                continue
            binding = self.binding(node)
            if binding is not None:
                sites.setdefault(binding, []).append((node, part, parent))
        return sites

    def spelled(self, name: str) -> list[cst.Name | cst.Attribute]:
        """The names of the file that spell `name`, and the attributes so named (`x.name`,
        whose `name` is one of the names too), in the order of the tree's nodes: indexed
        once per file, as each variable asked about reads the nodes of one name."""
        if self._spellings is None:
            self._spellings = {}
            for node in self.ctx.nodes_of(cst.Name, cst.Attribute):
                spelling = node.value if type(node) is cst.Name else node.attr.value  # type: ignore[attr-defined]
                self._spellings.setdefault(spelling, []).append(node)  # type: ignore[arg-type]
        return self._spellings.get(name, [])

    def spelled_within(self, name: str, root: cst.CSTNode) -> Sequence[cst.Name | cst.Attribute]:
        """Those of `spelled(name)` under `root` (a function): a slice of the file's index,
        found by bisection, so that asking about the local of each of many functions
        reads only that function's names, not the file's."""
        spelled = self.spelled(name)
        order = self.ctx.order_index
        start = bisect_left(spelled, order(root), key=order)
        return spelled[start:bisect_right(spelled, self.ctx.subtree_end(root), key=order)]

    def aliases(self, binding: Binding) -> set[Binding]:
        """`binding` and the variables that hold the same object: bound with it in one
        assignment (`losses = all_losses = []`), assigned it as a plain reference
        (`scaler = self.scaler`, `(kept := losses)`), or it assigned from one."""
        same = {binding}
        shared = [value for bound, value in self._assigned if bound == binding]
        for bound, value in self._assigned:
            if any(value is other for other in shared):
                same.add(bound)  # `a = b = []`: one value node, two targets
            if type(value) in (cst.Name, cst.Attribute):
                source = self.binding(value)
                if source is not None and binding in (bound, source):
                    same |= {bound, source}
        for node in self.ctx.nodes_of(cst.NamedExpr):
            value = node.value  # type: ignore[attr-defined]
            if type(value) is cst.Name and self.binding(value) == binding:
                target = node.target  # type: ignore[attr-defined]
                same.add(self.binding(target) or Binding(node, target.value))  # a walrus's own name
        return same

    def same_object(self, first: cst.BaseExpression, second: cst.BaseExpression) -> bool | None:
        """Whether `first` and `second` hold one object, by what they read rather than how
        they are spelled (see `object_path`): True for one variable, its plain alias
        (`opt = self.optimizer`) or one literal item of one container (`opts["g"]`, `o =
        opts["g"]`); False for other variables (`self.optimizer` of two unrelated classes)
        or other items of one container (`opts["g"]`, `opts["d"]`); None when that cannot
        be told (`opts[i]` of a loop, a variable assigned twice, a loop target, a parameter
        rebound: see `object_path`)."""
        paths = self.object_path(first), self.object_path(second)
        if paths[0] is None or paths[1] is None:
            return None
        if paths[0] == paths[1]:
            return True
        (one, one_items), (other, other_items) = paths
        if one == other:
            return False if len(one_items) == len(other_items) and not items_may_match(one_items, other_items) else None
        both_attributes = type(one.owner) is type(other.owner) is cst.ClassDef
        return None if both_attributes and self.may_be_one_object(one, other) else False

    def object_path(self, expr: cst.BaseExpression, depth: int = 0) -> tuple[Binding, ObjectItems] | None:
        """`expr` as the variable its object is read from and the attributes and literal
        items read on the way (`opts["g"]`: `opts`, `("['g']",)`; an item picked by a
        parameter, `opts[name]`, by the parameter's binding), following variables
        plainly assigned one such reference alone (`o = opts["g"]`); None where a part is
        not one (`opts[i]` of a loop, a call) or a variable may hold more than one object:
        assigned more than once, or bound otherwise than by one plain assignment or as a
        parameter never rebound (a loop, `with` or `except` target, an import, a `match`
        case's capture of a part: `case [first, *rest]:`). A case's capture of the whole
        subject (`case opt:` of `match optimizer:`) is an assignment of the subject (see
        `only_assigned`)."""
        binding = self.binding(expr)
        if binding is not None:
            if next(self.bound_at(binding), None) is None:
                return binding, ()  # a parameter never rebound, or a variable the file never binds: one object
            if type(binding.owner) is cst.FunctionDef and binding.name in named_parameters(binding.owner):
                return None  # a parameter rebound: the argument, then what is assigned
            values = self.only_assigned(binding) or []
            if len(values) != 1 or depth >= _MAX_ALIAS_DEPTH:
                return None
            if type(values[0]) not in (cst.Name, cst.Attribute, cst.Subscript):
                return binding, ()  # `opt = torch.optim.SGD(...)`: the one object made there
            return self.object_path(values[0], depth + 1)
        if type(expr) is cst.Name:  # bound nowhere in the file: a global of another module's making, one object
            return Binding(self.ctx.module, expr.value), ()
        if type(expr) is cst.Attribute:
            part = f".{expr.attr.value}"
        elif type(expr) is cst.Subscript and (key := _literal_item(expr)) is not None:
            part = f"[{key!r}]"
        elif type(expr) is cst.Subscript and (param := self._parameter_item(expr)) is not None:
            part = param
        else:
            return None
        inner = self.object_path(expr.value, depth)  # type: ignore[attr-defined]
        return (inner[0], (*inner[1], part)) if inner is not None else None

    def _parameter_item(self, expr: cst.Subscript) -> Binding | None:
        """The parameter a subscript's key is, when nothing else binds it (`opts[name]` of
        `def train(opts, name)`): one value wherever the function reads it."""
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        key = index.value if type(index) is cst.Index else None
        binding = self.binding(key) if type(key) is cst.Name else None
        if (binding is None or type(binding.owner) is not cst.FunctionDef
                or binding.name not in named_parameters(binding.owner)):  # type: ignore[arg-type]
            return None
        return binding if next(self.bound_at(binding), None) is None else None  # bound by nothing else

    def kind(self, expr: cst.BaseExpression) -> str | None:
        """The kind of object `expr` holds (see the module constants), or None."""
        if type(expr) is cst.Call:
            return self._call_kind(expr)
        binding = self.binding(expr)
        found = self.kinds.get(binding) if binding is not None else None
        if found is None and type(expr) in (cst.Subscript, cst.Attribute) and (self.item_kinds or self.keyed_kinds):
            # an item of a container of them: `optims["g"]`, `optims.generator` (a Munch);
            # the item a string key picks from a dict written out: `parts["scheduler"]`
            container = self.binding(expr.value)  # type: ignore[attr-defined]
            found = self.item_kinds.get(container) if container is not None else None
            # by attribute: a namespace's or a named tuple's field (`parts.scheduler`)
            key = subscript_key(expr) if type(expr) is cst.Subscript else expr.attr.value  # type: ignore[attr-defined]
            if found is None and key is not None and container in self.keyed_kinds:
                found = self.keyed_kinds[container].get(key)  # type: ignore[index]
        return found

    def is_kind(self, expr: cst.BaseExpression, kind: str) -> bool:
        return self.kind(expr) == kind

    def ranged_over(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """The container the loop variable `expr` takes its values from in the loop
        around it: `optims` of `for opt in optims:`, `optims.values()`,
        `optims.items()`, `enumerate(optims)`, `zip(models, optims)` (a list written there too)."""
        if type(expr) is not cst.Name:
            return None
        for ancestor in self.ctx.ancestors(expr):
            if type(ancestor) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
                return None
            for name, container, _ in _ranged(ancestor) if type(ancestor) is cst.For else ():
                if name.value == expr.value:
                    return container
        return None

    # -- collection --------------------------------------------------------
    def _call_kind(self, call: cst.Call) -> str | None:
        qualified = self.ctx.qualified_name(call.func)
        kind = constructor_kind(qualified)
        if kind is None:
            kind = next((self._returns[f] for f in self.ctx.functions_called(call) if f in self._returns), None)
        if kind is None:
            external = self._external(call)
            kind = external.returns_kind or None if external is not None else None
        if kind is None:
            kind = self._project_class_kind(qualified)
        if kind is None and type(call.func) is cst.Name:
            kind = self._class_kinds.get(call.func.value)
        if kind is None and type(call.func) is cst.Call:
            kind = self._looked_up_kind(call.func)
        if kind is None and qualified in _INSTANTIATE and call.args:
            kind = _configured_kind(call.args[0].value)
        return kind or factory_kind(call.func)

    def _looked_up_kind(self, lookup: cst.Call) -> str | None:
        """What the class `getattr(torch.optim.lr_scheduler, cfg.name)` looks up by
        name builds: a scheduler, whichever of that module's classes it is (the one
        a string names, where it is written out). A module not known is not followed."""
        func = lookup.func
        if type(func) is not cst.Name or func.value != "getattr" or self.binding(func) is not None:
            return None
        if self.ctx.qualified_name(func) not in (None, "builtins.getattr") or len(lookup.args) < 2:
            return None
        module, name = (arg.value for arg in lookup.args[:2])
        qualified = self.ctx.qualified_name(module)
        if qualified not in _SCHEDULER_MODULES:
            return None
        named = string_value(name)
        return constructor_kind(f"{qualified}.{named}") if named is not None else SCHEDULER

    def _value_kind(self, value: cst.BaseExpression) -> str | None:
        if type(value) is cst.IfExp:
            return self._value_kind(value.body) or self._value_kind(value.orelse)
        if type(value) is cst.Call:
            return self._call_kind(value)
        return self.kind(value)

    def _assignments(self) -> Iterator[tuple[cst.BaseExpression, cst.BaseExpression]]:
        for stmt in _all_simple_statements(self.ctx.module):
            for small in stmt.body:
                if type(small) is cst.Assign:
                    for target in small.targets:
                        yield target.target, small.value
                        yield from _paired(target.target, small.value)
                elif type(small) is cst.AnnAssign and small.value is not None:
                    yield small.target, small.value
        for match in self.ctx.nodes_of(cst.Match):
            for case in match.cases:  # type: ignore[attr-defined]
                if self._captures_subject(case.pattern):
                    yield case.pattern.name, match.subject  # type: ignore[attr-defined]

    def _captures_subject(self, pattern: cst.CSTNode) -> bool:
        """`pattern` is a case's whole pattern and binds the subject itself to a name:
        `case opt:`, `case SGD() as opt:`."""
        return (type(pattern) is cst.MatchAs and pattern.name is not None
                and type(self.ctx.parent(pattern)) is cst.MatchCase)

    def _collect_assignments(self) -> None:
        for binding, call, index in self._unpacked:
            kinds = next((self._tuple_returns[f] for f in self.ctx.functions_called(call) if f in self._tuple_returns), None)
            if kinds is None:
                kinds = self._external_items(call)
            if kinds is not None and index < len(kinds) and kinds[index]:
                self.kinds.setdefault(binding, kinds[index])  # type: ignore[arg-type]
                built = self.unpacked_builds.setdefault(binding, [])
                if not any(known is call for known in built):
                    built.append(call)
        for binding, value in self._assigned:
            kind = self._value_kind(value)
            if kind is None:
                continue
            self.kinds.setdefault(binding, kind)
            construction = value.body if type(value) is cst.IfExp else value
            if type(construction) is cst.Call:
                built = self.constructions.setdefault(binding, [])
                if not any(call is construction for call in built):  # this pass runs four times
                    built.append(construction)

    def _collect_returns(self) -> None:
        """What each function of the file returns: one kind of object, a tuple of them,
        or containers of them (every return a list, tuple, dict or comprehension of
        known items, written there or held by a variable: `return opts`)."""
        for func, values in self._return_values:
            containers: list[tuple[set[str | None], bool] | None] = []
            for value in values:
                built = self._named_tuple_built(value, func) if value is not None else None
                if type(value) in (cst.Tuple, cst.List):
                    self._tuple_returns.setdefault(func, [self._value_kind(e.value) for e in value.elements])
                elif built is not None:  # `return Parts(scheduler=sched, optimizer=opt)`: unpacked by position
                    fielded = self._fielded_items(*built) or {}
                    self._tuple_returns.setdefault(func, [fielded.get(field) for field in built[1]])
                elif value is not None:
                    kind = self._value_kind(value)
                    if kind is not None:
                        self._returns.setdefault(func, kind)
                held = self._held_items(value) if value is not None else None
                # what a call returns, holding no item yet, may hold anything (`make()`, `dict()`)
                containers.append(None if held is None or (not held[0] and type(value) is cst.Call) else held)
            if values and None not in containers:
                kinds: set[str | None] = set().union(*(held[0] for held in containers))  # type: ignore[index]
                self._returned_items[func] = (kinds, all(held[1] for held in containers))  # type: ignore[index]

    def _collect_usage(self) -> None:
        """`x.scale(...).backward()` and `x.unscale_(opt)` mark a GradScaler;
        what it steps or unscales is an optimizer."""
        for node in self.ctx.nodes_of(cst.Call):
            if type(node.func) is not cst.Attribute:  # type: ignore[attr-defined]
                continue
            method = node.func.attr.value
            receiver = node.func.value
            if method == "backward" and type(receiver) is cst.Call:
                inner = receiver.func
                if type(inner) is cst.Attribute and inner.attr.value == "scale":
                    self._mark(inner.value, GRAD_SCALER)
            elif method in ("unscale_", "step") and node.args and self.kind(receiver) == GRAD_SCALER:
                self._mark(node.args[0].value, OPTIMIZER)

    def _collect_item_kinds(self) -> None:
        """Containers of one kind of object: a dict, list or tuple written out with
        items all of that kind or built by a comprehension of one, a namespace built from keywords of that kind
        (`SimpleNamespace(g=Adam(...))`), or an empty one filled by
        `container[key] = ...` or `container.append(...)` with values all of that kind
        (an `extend` of other items adds theirs); an alias of one (`optims = self.optims`) too."""
        filled: dict[Binding, set[str | None]] = {}
        for target, value in self._pairs:
            if type(target) is cst.Subscript:
                binding = self.binding(target.value)
                if binding is not None:
                    filled.setdefault(binding, set()).add(self._value_kind(value))
        for node in self.ctx.nodes_of(cst.Call):
            added = self._added_items(node)  # type: ignore[arg-type]
            if added is not None:
                filled.setdefault(added[0], set()).update(added[1])
        for binding, value in self._assigned:
            self._learn_container(binding, value, filled.get(binding, set()))

    def _added_items(self, call: cst.Call) -> tuple[Binding, set[str | None]] | None:
        """`items.append(x)`, `items.insert(i, x)`: the container and the kind of what it
        is given; `items.extend(more)`: the kinds of the items of `more` (None: not known)."""
        func = call.func
        if type(func) is not cst.Attribute or func.attr.value not in ("append", "insert", "extend") or not call.args:
            return None
        container = self.binding(func.value)
        if container is None:
            return None
        given = call.args[-1].value
        if func.attr.value != "extend":
            return container, {self._value_kind(given)}
        held = self._held_items(given)
        return container, held[0] if held is not None else {None}

    def _learn_container(self, binding: Binding, value: cst.BaseExpression, filled: set[str | None]) -> None:
        """`binding` holds items of one kind if `value` (with what is `filled` into it) does;
        the kind of each key's item if it is a dict written out (or returned so)."""
        keyed = self._keyed_items(value)
        if keyed is not None:
            self.keyed_kinds.setdefault(binding, keyed)
        held = self._held_items(value)
        if held is None:
            return
        kinds, sequence = held
        kinds = kinds | filled
        if len(kinds) == 1 and None not in kinds:
            self.item_kinds.setdefault(binding, next(iter(kinds)))  # type: ignore[arg-type]
            if sequence:
                self._sequences.add(binding)

    def _held_items(self, value: cst.BaseExpression) -> tuple[set[str | None], bool] | None:
        """The kinds of the items a container `value` holds, and whether iterating
        it yields them (a list, a tuple, a list comprehension) rather than keys; None:
        not a container of known items. An empty one (`{}`, `dict()`, `Munch()`) holds none yet; what a
        function of the file returns, the items of the lists or tuples it returns."""
        if type(value) in (cst.Name, cst.Attribute):
            source = self.binding(value)
            if source is None or source not in self.item_kinds:
                return None
            return {self.item_kinds[source]}, source in self._sequences
        if type(value) is cst.Dict:
            return {self._value_kind(e.value) for e in value.elements}, False  # `**other`: no kind
        if type(value) in (cst.List, cst.Tuple):
            return {self._value_kind(e.value) for e in value.elements}, True  # type: ignore[attr-defined]
        if type(value) is cst.ListComp:  # `[AdamW(m.parameters()) for m in models]`
            return {self._value_kind(value.elt)}, True
        if self._builds_sequence(value):  # `list(AdamW(m.parameters()) for m in models)`
            return {self._value_kind(value.args[0].value.elt)}, True  # type: ignore[attr-defined]
        if type(value) is cst.DictComp:  # `{name: AdamW(m.parameters()) for name, m in nets.items()}`
            return {self._value_kind(value.value)}, False
        if type(value) is not cst.Call:
            return None
        returned = [self._returned_items.get(f) for f in self.ctx.functions_called(value)]
        if returned and None not in returned:  # `opts = make_optimizers()`, a helper of the file returning `[SGD(...), ...]`
            return set().union(*(kinds for kinds, _ in returned)), all(sequence for _, sequence in returned)  # type: ignore[misc]
        if not value.args:
            return (set(), False) if self._call_kind(value) is None else None
        if self._builds_namespace(value) and all(arg.keyword is not None for arg in value.args):
            return {self._value_kind(arg.value) for arg in value.args}, False
        return None

    def _keyed_items(self, value: cst.BaseExpression) -> dict[str, str | None] | None:
        """The kind of the item under each key of a dict written out with string keys
        (`{"optimizer": opt, "scheduler": StepLR(opt, 10)}`, `dict(optimizer=opt, ...)`),
        or the one every return of a function of the file gives so; None otherwise."""
        if type(value) is cst.Dict:
            keyed: dict[str, str | None] = {}
            for element in value.elements:
                key = string_value(getattr(element, "key", None))
                if type(element) is not cst.DictElement or key is None:
                    return None
                keyed[key] = self._value_kind(element.value)
            return keyed
        if type(value) is not cst.Call:
            return None
        if self._builds_namespace(value) and value.args and all(arg.keyword is not None for arg in value.args):
            return {arg.keyword.value: self._value_kind(arg.value) for arg in value.args}  # type: ignore[union-attr]
        fields = self.named_tuple_fields(value)
        if fields is not None:
            return self._fielded_items(value, fields)
        called = [func for func in self.ctx.functions_called(value) if func not in self._keying]
        external = self._external(value) if not called else None
        keyed = _item_kinds(external, keys=True) if external is not None else {}
        if keyed:  # a builder of another module
            return keyed  # type: ignore[return-value]
        if not called or len(self._keying) >= _MAX_KEYED_DEPTH:
            return None  # no function of the file, one returning its own call (recursion), or too deep
        self._keying.update(called)
        try:
            found = [self._keyed_items(v) if v is not None else None
                     for func, values in self._return_values if func in called for v in values]
        finally:
            self._keying.difference_update(called)
        if not found or None in found or any(keyed != found[0] for keyed in found):
            return None
        return found[0]

    def _subclassed_kind(self, cls: cst.ClassDef) -> str | None:
        """The kind of the optimizer or scheduler `cls` derives from by one of its bases:
        a class of torch's, or one of another module of the project whose lineage reaches
        one (asked of the project for each imported base, see `module_class_questions`)."""
        return subclassed_kind(self.ctx, cls) or next(
            (kind for base in cls.bases if (kind := self._project_class_kind(self.ctx.qualified_name(base.value)))), None)

    def _project_class_kind(self, qualified: str | None) -> str | None:
        """What a class of another module of the project builds, when its lineage reaches
        an optimizer or a scheduler of torch (`PolyLR(opt, ...)` of a `class
        PolyLR(_LRScheduler)` in utils/sched.py; see `TORCH_KIND`)."""
        external = getattr(self.ctx, "external", None)
        found = external.get(f"{qualified}.{TORCH_KIND}") if external and qualified else None
        return found.returns_kind or None if found is not None else None

    def _external(self, call: cst.Call) -> Summary | None:
        """The summary of the function of another module of the project that `call`
        runs by a name the file imports (`build_optim(...)`, `utils.build(...)`)."""
        external = getattr(self.ctx, "external", None)
        if not external or type(call.func) not in (cst.Name, cst.Attribute) or self.ctx.functions_called(call):
            return None
        qualified = self.ctx.qualified_name(call.func)
        return external.get(qualified) if qualified is not None else None

    def _external_items(self, call: cst.Call) -> tuple[str, ...] | None:
        """The kind of each item of the tuple every return of another module's function
        gives (`opt, sched = build_optim(model, cfg)`), "" where it is not known."""
        external = self._external(call)
        kinds = _item_kinds(external, keys=False) if external is not None else {}
        if not kinds:
            return None
        return tuple(kinds.get(index, "") for index in range(max(kinds) + 1))  # type: ignore[call-overload]

    def returned_kinds(self, func: cst.FunctionDef) -> tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]:
        """What every return of `func` gives, for the callers of other modules: the one
        kind of object ("" if none), the kind of each item of a tuple of one length
        (`return optimizer, scheduler`; "" where it is not known or differs between
        returns), and of each string key of a dict written out (`{"optimizer": opt,
        "scheduler": sched}`), each field of a named tuple of the file or each keyword
        of a namespace (`Parts(opt, sched)`, `SimpleNamespace(optimizer=opt, ...)`). A
        scheduler driven by a metric (`ReduceLROnPlateau`, on any branch) is no kind:
        stepping it first skips nothing."""
        values = next((found for f, found in self._return_values if f is func), [])
        if not values or any(value is None for value in values):
            return "", (), ()
        # `parts = Parts(opt, sched)`, then `return parts`: the named tuple built there
        built = [self._named_tuple_built(value, func) for value in values]
        values = [found[0] if found is not None else value for value, found in zip(values, built)]
        plain = [value for value in values if type(value) not in (cst.Tuple, cst.List, cst.Dict)]
        kinds = {self._returned_kind(value) for value in plain}
        kind = next(iter(kinds)) if len(plain) == len(values) and len(kinds) == 1 else ""
        items: tuple[str, ...] = ()
        if all(type(value) is cst.Tuple for value in values):
            lengths = {len(value.elements) for value in values}  # type: ignore[attr-defined]
            starred = any(type(e) is cst.StarredElement for value in values for e in value.elements)  # type: ignore[attr-defined]
            if len(lengths) == 1 and not starred:
                columns = zip(*([self._returned_kind(e.value) for e in value.elements] for value in values))  # type: ignore[attr-defined]
                items = tuple(next(iter(column)) if len(set(column)) == 1 else "" for column in columns)
                items = items if any(items) else ()
        keys: tuple[tuple[str, str], ...] = ()
        if all(type(value) is cst.Dict or self._built_keyed(value) for value in values):  # type: ignore[arg-type]
            keyed = [self._keyed_items(value) for value in values]  # type: ignore[arg-type]
            if None not in keyed and all(found == keyed[0] for found in keyed):
                metric = {key for value in values for key, item in self._keyed_values(value)  # type: ignore[arg-type]
                          if self._metric_driven(item)}
                keys = tuple(sorted((key, found) for key, found in keyed[0].items()  # type: ignore[union-attr]
                                    if found is not None and key not in metric))
        fields = {found[1] for found in built if found is not None}
        if keys and len(fields) == 1 and None not in built:
            # a named tuple unpacked by position (`sched, opt = build(...)`): each field by its place
            by_key = dict(keys)
            items = tuple(by_key.get(field, "") for field in next(iter(fields)))
        return kind, items, keys

    def _named_tuple_built(self, value: cst.BaseExpression,
                           func: cst.FunctionDef) -> tuple[cst.Call, tuple[str, ...]] | None:
        """The call that builds the named tuple of the file a return of `func` gives, with
        its fields: the returned value (`return Parts(opt, sched)`), or what a variable of
        `func` that one plain assignment binds holds (`parts = Parts(opt, sched)`)."""
        value = self.built_once(value, func)
        if type(value) is not cst.Call:
            return None
        fields = self.named_tuple_fields(value)
        return (value, fields) if fields is not None else None

    def built_once(self, value: cst.BaseExpression, func: cst.FunctionDef) -> cst.BaseExpression:
        """What a variable of `func` holds when one plain assignment there binds it
        (`stats = Stats(loss=loss, ...)`, then `return stats`); else `value` itself."""
        binding = self.binding(value) if type(value) is cst.Name else None
        assigned = self.only_assigned(binding) if binding is not None and binding.owner is func else None
        return assigned[0] if assigned is not None and len(assigned) == 1 else value

    def _built_keyed(self, value: cst.BaseExpression) -> bool:
        """`value` builds a named tuple of the file, or a namespace from keyword arguments
        (`Parts(optimizer, scheduler)`, `SimpleNamespace(optimizer=opt, scheduler=sched)`)."""
        if type(value) is not cst.Call:
            return False
        if self._builds_namespace(value):
            return bool(value.args) and all(arg.keyword is not None for arg in value.args)
        return self.named_tuple_fields(value) is not None

    def _keyed_values(self, value: cst.Dict | cst.Call) -> list[tuple[str | None, cst.BaseExpression]]:
        """The values of a dict written out, a namespace or a named tuple `value` builds,
        by key or field (None where not known)."""
        if type(value) is cst.Dict:
            return [(string_value(getattr(element, "key", None)), element.value)
                    for element in value.elements]
        fields = self.named_tuple_fields(value) or ()  # type: ignore[arg-type]
        return [(arg.keyword.value if arg.keyword is not None else fields[index] if index < len(fields) else None,
                 arg.value) for index, arg in enumerate(value.args)]  # type: ignore[union-attr]

    def _returned_kind(self, value: cst.BaseExpression) -> str:
        if self._metric_driven(value):
            return ""
        return self._value_kind(value) or ""

    def _metric_driven(self, value: cst.BaseExpression) -> bool:
        """`value` may be a `ReduceLROnPlateau`: built there, or a variable one of whose
        constructions builds one."""
        if type(value) is cst.IfExp:
            return self._metric_driven(value.body) or self._metric_driven(value.orelse)
        binding = self.binding(value) if type(value) in (cst.Name, cst.Attribute) else None
        built = [value] if type(value) is cst.Call else self.constructions.get(binding, []) if binding is not None else []
        return any((self.ctx.qualified_name(call.func) or dotted_name(call.func) or "").endswith("ReduceLROnPlateau")
                   for call in built)  # type: ignore[attr-defined]

    def _builds_sequence(self, value: cst.BaseExpression) -> bool:
        """`list(...)` or `tuple(...)` of one generator expression."""
        if type(value) is not cst.Call or type(value.func) is not cst.Name or value.func.value not in ("list", "tuple"):
            return False
        if len(value.args) != 1 or value.args[0].keyword is not None or type(value.args[0].value) is not cst.GeneratorExp:
            return False
        return self.binding(value.func) is None and self.ctx.qualified_name(value.func) in (None, f"builtins.{value.func.value}")

    def named_tuple_fields(self, call: cst.Call) -> tuple[str, ...] | None:
        """The fields, in order, of the named tuple class of the file that `call` builds:
        `Parts = collections.namedtuple("Parts", ["optimizer", "scheduler"])` (also
        `"optimizer scheduler"`, or `typing.NamedTuple("Parts", [("optimizer", T), ...])`),
        assigned once at the module's level, or `class Parts(NamedTuple):` with its
        annotated fields; None for anything else."""
        func = call.func
        if type(func) is not cst.Name or not self._names_tuples:
            return None
        if self.ctx.qualified_name(func) is not None:
            return None
        for statement in self.ctx.module.body:
            if type(statement) is cst.ClassDef and statement.name.value == func.value:
                return _class_fields(self.ctx, statement)
        binding = self.binding(func)
        values = self.assigned(binding) if binding is not None and type(binding.owner) is cst.Module else []
        if len(values) != 1 or type(values[0]) is not cst.Call:
            return None
        built = values[0]
        if self.ctx.qualified_name(built.func) not in _NAMED_TUPLES or len(built.args) < 2:
            return None
        if any(arg.star or arg.keyword is not None for arg in built.args[:2]):
            return None
        return _field_names(built.args[1].value)

    def _fielded_items(self, call: cst.Call, fields: tuple[str, ...]) -> dict[str, str | None] | None:
        """The kind of the item under each field of the named tuple `call` builds, given
        by position or by keyword; None where an argument is unpacked or names no field."""
        keyed: dict[str, str | None] = {}
        for index, arg in enumerate(call.args):
            if arg.star:
                return None
            field = arg.keyword.value if arg.keyword is not None else fields[index] if index < len(fields) else None
            if field not in fields:
                return None
            keyed[field] = self._value_kind(arg.value)  # type: ignore[index]
        return keyed

    def _builds_namespace(self, call: cst.Call) -> bool:
        """`SimpleNamespace(...)`, `dict(...)`, `Munch(...)`: each keyword argument is an item."""
        func = call.func
        if type(func) is cst.Name and func.value == "dict":
            return self.binding(func) is None and self.ctx.qualified_name(func) in (None, "builtins.dict")
        return self.ctx.qualified_name(func) in _NAMESPACES

    def _collect_loop_variables(self) -> None:
        """`for opt in optimizers:` over a list or tuple of optimizers (written there,
        or held by the name it iterates), `for opt in optims.values():` over any
        container of them, `for name, opt in optims.items():` and
        `for i, opt in enumerate(optimizers):`, `for model, opt in zip(models, optimizers):`:
        the loop variable holds an optimizer; alike over schedulers
        (`for scheduler in self.schedulers: scheduler.step()`) and GradScalers."""
        for loop in self.ctx.nodes_of(cst.For):
            for target, container, by_values in _ranged(loop):  # type: ignore[arg-type]
                kind = self._item_kind(container) if by_values else self._element_kind(container)
                if kind in _LOOPED_KINDS:
                    self._mark(target, kind)

    def _element_kind(self, iterable: cst.BaseExpression) -> str | None:
        """The one kind of every element a loop over `iterable` yields."""
        if type(iterable) in (cst.List, cst.Tuple):
            held = self._held_items(iterable)
            kinds = held[0] if held is not None else set()
            return next(iter(kinds)) if len(kinds) == 1 else None  # type: ignore[return-value]
        container = self.binding(iterable) if type(iterable) in (cst.Name, cst.Attribute) else None
        return self.item_kinds.get(container) if container in self._sequences else None  # type: ignore[arg-type]

    def _item_kind(self, container: cst.BaseExpression) -> str | None:
        binding = self.binding(container)
        return self.item_kinds.get(binding) if binding is not None else None

    def _mark(self, expr: cst.BaseExpression, kind: str) -> None:
        binding = self.binding(expr)
        if binding is not None:
            self.kinds.setdefault(binding, kind)

    def _collect_parameters(self) -> None:
        for func in (f for defs in self.ctx.scopes.functions.values() for f in defs):
            scope = self.ctx.scopes.scope_for(func)
            for param in _parameters(func.params):
                kind = None
                if param.annotation is not None:
                    kind = self._annotated_kind(param.annotation.annotation)
                if kind is None and param.default is not None:
                    kind = self._value_kind(param.default)
                if kind is not None:
                    self.kinds.setdefault(Binding(scope.node, param.name.value), kind)
        for func in (f for defs in self.ctx.scopes.functions.values() for f in defs):
            for call in self.ctx.call_sites(func):
                self._bind_arguments(call, func)

    def _annotated_kind(self, annotation: cst.BaseExpression) -> str | None:
        """The kind a parameter is annotated with: a class we track, the base classes
        (`torch.optim.Optimizer`, `LRScheduler`), also as `Optional[...]` / `... | None`."""
        if type(annotation) is cst.BinaryOperation and type(annotation.operator) is cst.BitOr:
            return self._annotated_kind(annotation.left) or self._annotated_kind(annotation.right)
        if type(annotation) is cst.Subscript and self.ctx.qualified_name(annotation.value) == "typing.Optional":
            element = annotation.slice[0].slice if annotation.slice else None
            return self._annotated_kind(element.value) if type(element) is cst.Index else None
        qualified = self.ctx.qualified_name(annotation)
        return _BASE_CLASSES.get(qualified or "") or constructor_kind(qualified)

    def _bind_arguments(self, call: cst.Call, func: cst.FunctionDef) -> None:
        scope = self.ctx.scopes.scope_for(func)
        for name, value in bound_arguments(self.ctx, call, func)[0]:
            kind = self._value_kind(value)
            if kind is not None:
                self.kinds.setdefault(Binding(scope.node, name), kind)
            self._learn_container(Binding(scope.node, name), value, set())  # `train(model, optimizers)`

    # -- scopes --------------------------------------------------------------
    def _defining_scope(self, name: str, scope: Scope) -> Scope | None:
        current: Scope | None = scope
        first = True
        while current is not None:
            if current.is_class and not first:
                current = current.parent
                continue
            first = False
            if name not in current.declared_outer and (
                name in current.locals or name in current.aliases or name in current.imports
            ):
                return current
            current = current.parent
        return None

    def _owner_of(self, cls: cst.ClassDef, attributes: list[str]) -> cst.ClassDef:
        """The class whose `self.<attributes>` the methods of `cls` read: the first of
        `cls` and its base classes in the file that assigns it or an attribute it
        hangs from (`self.policy` of `self.policy.optimizer`); `cls` if none does."""
        if not self._bases.get(cls):
            return cls
        held = {".".join(attributes[:end]) for end in range(1, len(attributes) + 1)}
        return next((owner for owner in _lineage(cls, self._bases)
                     if held & self._self_attributes.get(owner, set())), cls)

    def lineage(self, cls: cst.ClassDef) -> Iterator[cst.ClassDef]:
        """`cls`, then its base classes in the file, depth first, left to right."""
        return _lineage(cls, self._bases)

    def may_be_one_object(self, first: Binding, second: Binding) -> bool:
        """`self.<attr>` of two classes of the file may name one object's attribute: the
        classes are one, one derives from the other, or a class of the file derives from
        both (a mixin); also any two where the file writes that attribute on an object
        other than a method's own (`ev.sampler = t.sampler`), or where a method of one is
        called on its class with any object (`Evaluator.run(trainer, epoch)`); any binding
        that is not a class's attribute may."""
        if type(first.owner) is not cst.ClassDef or type(second.owner) is not cst.ClassDef:
            return True
        if {first.name.rpartition(".")[2], second.name.rpartition(".")[2]} & self._written_on_others:
            return True
        derived = [self._derived.get(b.owner, {b.owner}) for b in (first, second)]  # type: ignore[arg-type]
        return not derived[0].isdisjoint(derived[1]) or any(not d.isdisjoint(self._lent) for d in derived)

    def _classes_lending_methods(self) -> set[cst.ClassDef]:
        """The classes of the file whose methods the file calls on the class, or reads
        there to hand on, so that they run on whatever object they are given
        (`Evaluator.run(trainer, epoch)`); not a staticmethod or classmethod, nor a base
        class's method called on `self` of a class deriving from it (`Base.__init__(self)`)."""
        named = {cls.name.value: cls for cls in self._bases}
        lent: set[cst.ClassDef] = set()
        for node in self.ctx.nodes_of(cst.Attribute):
            cls = named.get(node.value.value) if type(node.value) is cst.Name else None  # type: ignore[attr-defined]
            if cls is None or self._binding_method(cls, node.attr.value) is False:  # type: ignore[attr-defined]
                continue
            call = self.ctx.parent(node)
            first = call.args[0].value if type(call) is cst.Call and call.func is node and call.args else None
            own = self._class_of_self(first) if type(first) is cst.Name else None
            if own is None or self._derived.get(cls, {cls}).isdisjoint(self._derived.get(own, {own})):
                lent.add(cls)
        return lent

    def _binding_method(self, cls: cst.ClassDef, name: str) -> bool | None:
        """`name` is a method that `cls` or a base class of the file defines: one whose first
        parameter takes the object (True), a staticmethod or classmethod (False); None when
        none of them defines it (a base class of another module may)."""
        for owner in _lineage(cls, self._bases):
            for statement in owner.body.body:  # type: ignore[union-attr]
                if type(statement) is cst.FunctionDef and statement.name.value == name:
                    return not any(dotted_name(d.decorator) in _BINDING_DECORATORS for d in statement.decorators)
        return None

    def _class_of_self(self, name: cst.Name) -> cst.ClassDef | None:
        """The class whose instance `name` is: the first parameter of a method, read in
        the method or in a closure of it that does not bind the name itself (a nested
        `def run_epoch():` or a lambda reading the method's `self`)."""
        method = receiver_method(self.ctx, name, classes=True)
        return owning_class(self.ctx, method) if method is not None else None


def _item_kinds(summary: Summary, keys: bool) -> dict[int | str, str]:
    """The kind of object each item of what another module's function returns is (see
    `Summary.returned_items`): by position in a tuple, or by `keys` of a dict."""
    found: dict[int | str, str] = {}
    for item, _ in summary.returned_items:
        kind, position = summary.item_kind(item), item_position(item)
        if kind and (position is None) == keys:
            found[item if position is None else position] = kind
    return found


def _attribute_path(expr: cst.BaseExpression) -> tuple[cst.Name | None, list[str]]:
    """`self.policy.optimizer` as its root name and the attributes read from it
    (`self`, `["policy", "optimizer"]`); no root where it is not a name."""
    attributes: list[str] = []
    while type(expr) is cst.Attribute:
        attributes.insert(0, expr.attr.value)
        expr = expr.value
    return (expr if type(expr) is cst.Name else None), attributes


def _assignment_targets(ctx: SemanticModel) -> Iterator[cst.BaseExpression]:
    """Every name or attribute the file binds by assignment (plain, annotated,
    augmented, unpacked), as a loop variable or with `as`."""
    targets: list[cst.BaseExpression] = []
    for node in ctx.nodes_of(cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem):
        if type(node) is cst.Assign:
            targets += [target.target for target in node.targets]  # type: ignore[attr-defined]
        elif type(node) is cst.WithItem:
            targets += [node.asname.name] if node.asname is not None else []  # type: ignore[attr-defined]
        else:
            targets.append(node.target)  # type: ignore[attr-defined]
    while targets:
        target = targets.pop()
        if type(target) in (cst.Tuple, cst.List):
            targets += [element.value for element in target.elements]  # type: ignore[attr-defined]
        elif type(target) is cst.StarredElement:
            targets.append(target.value)
        else:
            yield target


def _bases_in_file(ctx: SemanticModel) -> dict[cst.ClassDef, list[cst.ClassDef]]:
    """The base classes of each class that the file defines, by a name that
    only one class of the file has."""
    named: dict[str, list[cst.ClassDef]] = {}
    for node in ctx.nodes_of(cst.ClassDef):
        named.setdefault(node.name.value, []).append(node)  # type: ignore[attr-defined, arg-type]
    bases: dict[cst.ClassDef, list[cst.ClassDef]] = {}
    for node in ctx.nodes_of(cst.ClassDef):
        names = [base.value.value for base in node.bases if type(base.value) is cst.Name]  # type: ignore[attr-defined]
        bases[node] = [named[name][0] for name in names if len(named.get(name, [])) == 1]  # type: ignore[index]
    return bases


def _lineage(cls: cst.ClassDef, bases: dict[cst.ClassDef, list[cst.ClassDef]]) -> Iterator[cst.ClassDef]:
    """`cls`, then its base classes in the file, depth first, left to right."""
    seen: set[int] = set()
    stack = [cls]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack += reversed(bases.get(current, []))


def _no_argument_method(expr: cst.BaseExpression, method: str) -> cst.BaseExpression | None:
    """The receiver of `receiver.method()`."""
    if type(expr) is cst.Call and not expr.args and type(expr.func) is cst.Attribute and expr.func.attr.value == method:
        return expr.func.value
    return None


def _ranged(loop: cst.For) -> list[tuple[cst.Name, cst.BaseExpression, bool]]:
    """The loop variables of `loop` that take the items of a container, each with that
    container and whether those are the container's values (`optims.values()`,
    `optims.items()`) rather than what iterating it yields (`optimizers`,
    `enumerate(optimizers)`); each of `zip(models, optimizers)` with its own."""
    target, iterable = loop.target, loop.iter
    func = iterable.func if type(iterable) is cst.Call else None
    if type(target) in (cst.Tuple, cst.List) and type(func) is cst.Name and func.value == "zip":
        names = [element.value for element in target.elements]  # type: ignore[attr-defined]
        if len(names) != len(iterable.args) or any(arg.star or arg.keyword for arg in iterable.args):  # type: ignore[attr-defined]
            return []
        return [(name, *_taken_from(arg.value)) for name, arg in zip(names, iterable.args)  # type: ignore[attr-defined]
                if type(name) is cst.Name]
    if type(target) is cst.Tuple and len(target.elements) == 2 and type(iterable) is cst.Call:
        target = target.elements[1].value
        items = _no_argument_method(iterable, "items")
        if items is not None:
            return [(target, items, True)] if type(target) is cst.Name else []
        if type(func) is cst.Name and func.value == "enumerate" and len(iterable.args) == 1:
            return [(target, iterable.args[0].value, False)] if type(target) is cst.Name else []
        return []
    return [(target, *_taken_from(iterable))] if type(target) is cst.Name else []


def _taken_from(iterable: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
    """The container a loop over `iterable` takes its items from, and whether those are
    its values (`optims.values()`) rather than what iterating it yields."""
    values = _no_argument_method(iterable, "values")
    return (values, True) if values is not None else (iterable, False)


def _paired(target: cst.BaseExpression, value: cst.BaseExpression) -> Iterator[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """`a, b = StepLR(...), StepLR(...)`: each name with the item it takes."""
    if type(target) in (cst.Tuple, cst.List):
        yield from ((part, given) for part, given in assigned_parts(target, value) if given is not None)


def _all_simple_statements(module: cst.Module) -> Iterator[cst.SimpleStatementLine]:
    stack: list[cst.CSTNode] = list(_statements(module))
    while stack:
        stmt = stack.pop()
        if type(stmt) is cst.SimpleStatementLine:
            yield stmt
        elif type(stmt) in (cst.FunctionDef, cst.ClassDef):
            stack.extend(_statements(stmt.body))
        else:
            for block in child_blocks(stmt):
                stack.extend(_statements(block))


# the attributes and items read from a variable (see `Receivers.object_path`): `.attr`, a
# literal item `['g']`, or the parameter whose value picks the item
ObjectItems = tuple["str | Binding", ...]


def items_may_match(first: ObjectItems, second: ObjectItems) -> bool:
    """The items `first` and `second` read (as far as the shorter goes) may be the same:
    each one written the same, or either picked by a parameter (`opts[name]`, `opts["d"]`)."""
    return all(one == other or type(one) is Binding or type(other) is Binding
               for one, other in zip(first, second))


_MAX_ALIAS_DEPTH = 4  # `a = b`, `b = c`, ... followed this deep (see `Receivers.object_path`)
_MAX_KEYED_DEPTH = 4  # builders returning builders' dicts followed this deep


def named_tuple_classes(ctx: SemanticModel) -> dict[str, tuple[str, ...]]:
    """The fields of each `class Parts(NamedTuple):` of the module's own level, by class name."""
    return {statement.name.value: found for statement in ctx.module.body
            if type(statement) is cst.ClassDef and (found := _class_fields(ctx, statement)) is not None}


def _class_fields(ctx: SemanticModel, cls: cst.ClassDef) -> tuple[str, ...] | None:
    """The annotated fields, in order, of `class Parts(NamedTuple):`; None for a class
    with another base (or more than one), a decorator, or no fields."""
    if len(cls.bases) != 1 or cls.decorators or ctx.qualified_name(cls.bases[0].value) != "typing.NamedTuple":
        return None
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    fields = tuple(small.target.value for statement in body if type(statement) is cst.SimpleStatementLine
                   for small in statement.body if type(small) is cst.AnnAssign and type(small.target) is cst.Name)
    return fields or None


def _field_names(spec: cst.BaseExpression) -> tuple[str, ...] | None:
    """The field names `namedtuple` / `NamedTuple` are given, written out: `"a b"`, `"a,
    b"`, `["a", "b"]`, `[("a", int), ("b", str)]`; None otherwise."""
    if type(spec) is cst.SimpleString:
        text = string_value(spec)
        names = tuple(text.replace(",", " ").split()) if text is not None else ()
        return names if names and all(name.isidentifier() for name in names) else None
    if type(spec) not in (cst.List, cst.Tuple):
        return None
    names: list[str] = []
    for element in spec.elements:  # type: ignore[attr-defined]
        item = element.value
        if type(item) is cst.Tuple and item.elements:
            item = item.elements[0].value
        name = string_value(item)
        if name is None:
            return None
        names.append(name)
    return tuple(names) or None


def _literal_item(expr: cst.Subscript) -> str | int | None:
    """The string or integer a subscript is written with (`opts["g"]`, `self.optimizers[0]`)."""
    if len(expr.slice) != 1 or type(expr.slice[0].slice) is not cst.Index:
        return None
    value = expr.slice[0].slice.value  # type: ignore[attr-defined]
    if type(value) is cst.Integer:  # `[0x1]`, `[1_0]`: the value Python reads
        number = number_value(value)
        assert type(number) is int
        return number
    return subscript_key(expr)
