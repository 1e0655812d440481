"""The semantic model is complete before any rule runs: a name resolved in a
`visit_` handler resolves as it does once the whole file has been seen."""

from __future__ import annotations

from typing import ClassVar

import libcst as cst
import pytest

from trainlint.analysis import names
from trainlint.engine import lint_bytes
from trainlint.registry import all_rules
from trainlint.rule import Rule
from trainlint.analysis.walk import calls_in_order, iter_nodes, own_nodes
from trainlint.semantic import SemanticModel
from trainlint.context import FileContext
from trainlint.summaries import Summary

from lint_inputs import INPUTS, parsed

SOURCE = '''\
import torch
from torch.nn.parallel import DistributedDataParallel


def wrap(model):
    from torch.nn import DataParallel
    return DataParallel(model)


def shadowed(nn, model):
    return nn.DataParallel(model)


class Trainer:
    def fit(self):
        self.step()

    def step(self):
        torch.cuda.empty_cache()
'''


class _Probe(Rule):
    """Records what the model says about every call, during the visit and
    again in `finish()`."""

    code = "TL999"
    name = "probe"
    severity = "warning"
    message = "probe"
    seen: ClassVar[list[tuple[str, object, object, object]]] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.seen.append(("visit", *self._answers(node)))

    def finish(self) -> None:
        for node in self.ctx.nodes_of(cst.Call):
            assert isinstance(node, cst.Call)
            self.seen.append(("finish", *self._answers(node)))

    def _answers(self, node: cst.Call) -> tuple[object, object, object]:
        return self.ctx.call_name(node), self.ctx.scope_of(node.func).node, self.ctx.local_callee(node)


def test_answers_in_visit_equal_answers_in_finish() -> None:
    _Probe.seen.clear()
    lint_bytes("probe.py", SOURCE.encode(), [*all_rules(), _Probe])
    during = [answers for when, *answers in _Probe.seen if when == "visit"]
    after = [answers for when, *answers in _Probe.seen if when == "finish"]
    assert during == after
    names = [name for name, _, _ in during]
    assert names.count("torch.nn.DataParallel") == 1  # the local import, not the parameter `nn`


def test_function_local_import_and_shadowing_parameter_with_every_rule() -> None:
    findings = lint_bytes("wrap.py", SOURCE.encode(), list(all_rules())).findings
    assert {(f.line, f.code) for f in findings if f.code == "TL301"} == {(7, "TL301")}


def test_scopes_and_call_graph() -> None:
    module = cst.parse_module(SOURCE)
    model = SemanticModel("m.py", SOURCE, module)
    calls = [n for n in model.nodes() if isinstance(n, cst.Call)]
    by_text = {model.code(call): call for call in calls}
    local = by_text["DataParallel(model)"]
    assert isinstance(model.scope_of(local).node, cst.FunctionDef)
    assert model.call_name(local) == "torch.nn.DataParallel"
    assert model.call_name(by_text["nn.DataParallel(model)"]) is None
    step = model.local_callee(by_text["self.step()"])
    assert step is not None and step.name.value == "step"
    assert model.call_sites(step) == [by_text["self.step()"]]
    assert model.nodes()[0] is module and all(model.parent(n) is not None for n in model.nodes()[1:])



SCOPED_CALLS = '''\
def helper():
    pass


def fit(cleanup):
    cleanup()
    def helper():
        pass
    def run():
        helper()
    helper()
    run()


def shutdown():
    cleanup = lambda: None
    cleanup()
    helper()
    def cleanup():
        pass
    cleanup()


class Trainer:
    def helper(self):
        pass

    def fit(self):
        helper()
'''


def test_a_name_calls_the_function_its_binding_is() -> None:
    """A nested function is called where its name is bound to it (in its function,
    after it, and in closures there), not where the name is a parameter, a lambda,
    or another function's; a method is no bare name's."""
    module = cst.parse_module(SCOPED_CALLS)
    model = SemanticModel("m.py", SCOPED_CALLS, module)
    calls = [n for n in model.nodes() if isinstance(n, cst.Call)]

    def callee(call: cst.Call) -> str | None:
        func = model.local_callee(call)
        outer = model.enclosing_function(func) if func is not None else None
        return None if func is None else f"{outer.name.value if outer else ''}.{func.name.value}"

    lines = {(module.code_for_node(c), model.enclosing_function(c).name.value): [] for c in calls}
    for call in calls:
        lines[(module.code_for_node(call), model.enclosing_function(call).name.value)].append(callee(call))
    assert lines == {
        ("cleanup()", "fit"): [None],  # a parameter
        ("helper()", "run"): ["fit.helper"],  # a closure reads fit's
        ("helper()", "fit"): ["fit.helper", ".helper"],  # fit's own; Trainer.fit's is the module's
        ("run()", "fit"): ["fit.run"],
        ("cleanup()", "shutdown"): [None, "shutdown.cleanup"],  # the lambda, then the def above it
        ("helper()", "shutdown"): [".helper"],
    }


CLASS_QUALIFIED_CALLS = '''\
from elsewhere import Base


class Trainer(Base):
    def step(self, x):
        pass

    def step_twice(self, x):
        pass

    def step_twice(self, x):
        pass

    if fast:
        def guarded(self):
            pass
    else:
        def guarded(self):
            pass

    def fit(self, x):
        Trainer.step(self, x)
        Trainer.step_twice(self, x)
        Trainer.guarded(self)
        Trainer.inherited(self)
        Base.step(self, x)


class Twice:
    def run(self):
        pass


class Twice:
    def run(self):
        pass


def run(trainer, x):
    Trainer.step(trainer, x)
    Twice.run(trainer)


def shadowed(Trainer, x):
    Trainer.step(Trainer, x)
'''


def test_a_call_on_a_class_runs_its_method_where_the_file_knows_it() -> None:
    """`Trainer.step(self, x)` runs the `step` of the file's one `Trainer`, from its
    methods and from functions; not a method the class inherits, one a branch of its body
    picks, one of a class defined twice, of an imported class, or a parameter's."""
    module = cst.parse_module(CLASS_QUALIFIED_CALLS)
    model = SemanticModel("m.py", CLASS_QUALIFIED_CALLS, module)
    calls = [n for n in model.nodes() if type(n) is cst.Call]
    found = [(module.code_for_node(call.func), model.enclosing_function(call).name.value,
              None if (callee := model.local_callee(call)) is None else callee.name.value)
             for call in calls]
    assert found == [
        ("Trainer.step", "fit", "step"),
        ("Trainer.step_twice", "fit", "step_twice"),
        ("Trainer.guarded", "fit", None),
        ("Trainer.inherited", "fit", None),
        ("Base.step", "fit", None),
        ("Trainer.step", "run", "step"),
        ("Twice.run", "run", None),
        ("Trainer.step", "shadowed", None),
    ]
    step = model.local_callee(calls[0])
    assert model.call_sites(step) == [calls[0], calls[5]]  # type: ignore[arg-type]
    twice = [n for n in model.nodes() if type(n) is cst.FunctionDef and n.name.value == "step_twice"]
    assert model.local_callee(calls[1]) is twice[-1]  # the class keeps the last


REBOUND_CLASS = '''\
class Trainer:
    def __init__(self, x):
        pass

    def step(self, x):
        pass

    def fit(self, x):
        Trainer.step(self, x)
        self.step(x)
        Trainer(x)


{rebinding}
'''


@pytest.mark.parametrize(("rebinding", "known"), [
    ("", True),
    ("Trainer = Trainer", True),  # the class itself again
    ("Trainer: type = Trainer", True),
    ("Trainer: type", True),  # a declaration binds nothing
    ("def build():\n    Trainer = 3", True),  # a local of `build`, not the module's name
    ("Trainer = wrap(Trainer)", False),
    ("Trainer = other.Trainer", False),
    ("Trainer: type = make()", False),
    ("if debug:\n    Trainer = Traced", False),
    ("def build():\n    global Trainer\n    Trainer = 3", False),
    ("for Trainer in candidates:\n    pass", False),
    ("Base, Trainer = pick()", False),
    ("with make() as Trainer:\n    pass", False),
    ("print([Trainer for Trainer in range(3)])", True),  # a comprehension's variable is its own
    ("(Trainer := Trainer)", True),
    ("(Trainer := wrap(Trainer))", False),
    ("print([(Trainer := t) for t in candidates])", False),  # `:=` binds the module's name
])
def test_a_call_on_a_rebound_class_runs_no_method_of_the_file(rebinding: str, known: bool) -> None:
    """`Trainer.step(self, x)` and `Trainer(x)` run the class's code only while the
    name still holds the class: bound again in its scope to anything else
    (`Trainer = wrap(Trainer)`), it may hold another class; a method called on
    `self` is still the class's."""
    source = REBOUND_CLASS.format(rebinding=rebinding)
    model = SemanticModel("m.py", source, cst.parse_module(source))
    on_class, on_self, built = [n for n in model.nodes() if type(n) is cst.Call][:3]
    assert (model.local_callee(on_class) is not None) is known
    assert (model.local_callee(built) is not None) is known
    assert model.local_callee(on_self) is not None


@pytest.mark.parametrize("source", INPUTS)
def test_recorded_views_equal_walks(source: str) -> None:
    """What the model records in its one walk is what walking again gives."""
    module = parsed(source)
    if module is None:
        return
    model = SemanticModel("input.py", source, module)
    bodies = [module, *(n.body for n in model.nodes_of(cst.FunctionDef))]  # type: ignore[attr-defined]
    for body in bodies:
        assert list(model.own_nodes(body)) == list(own_nodes(body))
        assert list(model.calls_in_order(body)) == calls_in_order(body)
    for node in model.nodes():
        assert list(model.subtree(node)) == list(iter_nodes(node))


@pytest.mark.parametrize("source", INPUTS)
def test_calls_found_through_live_paths_equal_a_full_walk(source: str) -> None:
    """`calls_in_order(part, within)` entering only the paths to some calls
    (as a flow program's live nodes) finds them in the order a full walk does."""
    module = parsed(source)
    if module is None:
        return
    model = SemanticModel("input.py", source, module)
    calls = model.nodes_of(cst.Call)
    for relevant in (set(calls[::2]), set(calls[1::3])):
        within = {n for call in relevant for n in (call, *model.ancestors(call))}
        for part in (module, *model.nodes_of(cst.SimpleStatementLine, cst.If, cst.For, cst.While)):
            full = [c for c in calls_in_order(part) if c in relevant]
            assert [c for c in calls_in_order(part, within) if c in relevant] == full


class _Recorder(Rule):
    """Records the order of its visits and leaves of nested node types."""

    code = "TL998"
    name = "recorder"
    severity = "warning"
    message = "recorder"

    def __init__(self, ctx: object) -> None:
        super().__init__(ctx)  # type: ignore[arg-type]
        self.events: list[tuple[str, cst.CSTNode]] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.events.append(("visit", node))

    def leave_Call(self, node: cst.Call) -> None:
        self.events.append(("leave", node))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.events.append(("leave", node))

    def visit_Name(self, node: cst.Name) -> None:
        self.events.append(("visit", node))


def _walk_order(model: SemanticModel) -> list[tuple[str, cst.CSTNode]]:
    """The visits and leaves of `_Recorder` stepping through every node of the
    file with the path from the root open, as a depth-first walk does."""
    wanted = {"visit": (cst.Call, cst.Name), "leave": (cst.Call, cst.FunctionDef)}
    events: list[tuple[str, cst.CSTNode]] = []
    open_nodes: list[cst.CSTNode] = []
    for node in model.nodes():
        while open_nodes and open_nodes[-1] is not model.parent(node):
            left = open_nodes.pop()
            if type(left) in wanted["leave"]:
                events.append(("leave", left))
        open_nodes.append(node)
        if type(node) in wanted["visit"]:
            events.append(("visit", node))
    events.extend(("leave", n) for n in reversed(open_nodes) if type(n) in wanted["leave"])
    return events


@pytest.mark.parametrize("source", INPUTS)
def test_dispatch_visits_and_leaves_in_walk_order(source: str) -> None:
    """The engine dispatches only to the nodes rules handle, in the order a
    walk of every node would."""
    from trainlint.context import FileContext
    from trainlint.engine import _dispatch
    from trainlint.timing import NoTimer

    module = parsed(source)
    if module is None:
        return
    ctx = FileContext("input.py", source, module)
    recorder = _Recorder(ctx)
    _dispatch(ctx, [recorder], NoTimer(), {})
    assert recorder.events == _walk_order(ctx)


@pytest.mark.parametrize("source", INPUTS)
def test_code_of_equals_code_for_node(source: str) -> None:
    from trainlint.positions import code_of

    module = parsed(source)
    if module is None:
        return
    for node in SemanticModel("input.py", source, module).nodes_of(
        cst.SimpleStatementLine, cst.If, cst.Call, cst.Comparison, cst.Attribute
    ):
        assert code_of(module, node) == module.code_for_node(node)


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ("from torch.cuda.amp import *\nwith autocast():\n    pass\n", [2]),
        ("from torch.cuda.amp import autocast as ac\nwith ac():\n    pass\n", [2]),
        ("import torch.cuda.amp as A\ns = A.GradScaler()\n", [2]),
        ("def f():\n    import torch as th\n    return th.cuda.amp.autocast()\n", [3]),
        ("import torch\nclass C:\n    def f(self):\n        global torch\n        return torch.cuda.amp.autocast()\n", [5]),
        ("def f(torch):\n    return torch.cuda.amp.autocast()\n", []),
        ("torch = load()\nx = torch.cuda.amp.autocast()\n", []),
    ],
)
def test_tl102_sees_every_binding_its_name_filter_lets_through(source: str, lines: list[int]) -> None:
    """TL102 resolves only names whose head an import or alias binds somewhere
    in the file (or any name, after a star import): each kind of binding."""
    from trainlint.registry import by_code

    findings = lint_bytes("x.py", source.encode(), [by_code()["TL102"]]).findings
    assert [f.line for f in findings] == lines


@pytest.mark.parametrize("source", INPUTS)
def test_a_body_skipped_for_holding_no_events_calls_no_transfer(source: str) -> None:
    """`run_if_events` skips only bodies whose flow would not call the
    transfer: the transfer sees the same nodes as with `run` on every body."""
    from trainlint.analysis.flow import Flow
    from trainlint.analysis.loops import CallFlow
    from trainlint.analysis.training import code_bodies, method_call
    from trainlint.context import FileContext

    module = parsed(source)
    if module is None:
        return
    ctx = FileContext("input.py", source, module)

    def is_event(node: cst.CSTNode) -> bool:
        return method_call(node, "step", "backward", "zero_grad") is not None

    for make in (
        lambda seen: Flow(ctx, lambda facts, node: seen.append(node) or facts, events=is_event),
        lambda seen: CallFlow(ctx, lambda facts, node: seen.append(node) or facts, events=is_event),
    ):
        everywhere: list[cst.CSTNode] = []
        skipping: list[cst.CSTNode] = []
        for body in code_bodies(ctx):
            make(everywhere).run(body)
            make(skipping).run_if_events(body)
        assert skipping == everywhere


def test_no_concrete_libcst_node_class_has_subclasses() -> None:
    """The linter checks node types with `type(node) is cst.Name` (isinstance()
    on LibCST's ABC classes is slow): right only while LibCST's parser builds
    no subclass of a concrete node class (tests may define their own)."""
    import inspect

    subclassed = [
        name
        for name, kind in vars(cst).items()
        if isinstance(kind, type) and issubclass(kind, cst.CSTNode) and not inspect.isabstract(kind)
        and any(sub.__module__.split(".")[0] == "libcst" for sub in kind.__subclasses__())
    ]
    assert subclassed == []


@pytest.mark.parametrize(
    ("source", "name", "imported"),
    [
        ("import torch\ndef f(model):\n    model.train()\n    torch.cuda.empty_cache()\n", "model", False),
        ("import torch\ndef f(model):\n    model.train()\n    torch.cuda.empty_cache()\n", "torch", True),
        ("import torch\nnn = torch.nn\nx = nn.Linear\n", "nn", True),  # an alias
        ("from torch.cuda.amp import *\nx = autocast\n", "autocast", True),  # a star import may bind anything
        ("def f():\n    from torch import cuda\n    cuda.empty_cache()\n", "cuda", True),  # an import inside a function
    ],
)
def test_names_no_import_can_bind_are_not_resolved(source: str, name: str, imported: bool) -> None:
    """`may_be_imported` spares the scope lookup of locals; the answer of
    `qualified_name` is the lookup's answer either way."""
    module = cst.parse_module(source)
    model = SemanticModel("input.py", source, module)
    node = next(n for n in model.nodes_of(cst.Name) if n.value == name)  # type: ignore[attr-defined]
    assert model.may_be_imported(node) is imported
    assert model.qualified_name(node) == names.resolve(node, model.scope_of(node))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from . import utils\nutils.f()\n", {".utils.f"}),  # a sibling module
        ("from .import utils\nutils.f()\n", {".utils.f"}),
        ("from .. import utils\nutils.f()\n", {"..utils.f"}),  # the parent package's
        ("from .utils import f\nf()\n", {".utils.f"}),
        ("from ..pkg import utils as u\nu.f()\n", {"..pkg.utils.f"}),
        ("from . import *\nf()\n", {".f"}),
        ("from pkg import utils\nutils.f()\n", {"pkg.utils.f"}),
        ("from apex.fp16_utils import *\nenumerate(loader)\n", {"apex.fp16_utils.enumerate"}),  # or Python's: see below
        ("from apex.fp16_utils import *\nFP16_Optimizer(opt)\n", {"apex.fp16_utils.FP16_Optimizer"}),
        ("from apex.fp16_utils import *\nfrom tools import enumerate\nenumerate(x)\n", {"tools.enumerate"}),
    ],
)
def test_relative_imports_name_the_module_they_bind(source: str, expected: set[str]) -> None:
    """`from . import utils` binds this package's `utils`: `.utils`, one dot, as
    `from .utils import f` does; two dots would be the parent package's."""
    module = cst.parse_module(source)
    model = SemanticModel("input.py", source, module)
    call = next(n for n in model.nodes_of(cst.Call))
    assert names.resolve_all(call.func, model.scope_of(call)) == expected  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("source", "external", "expected"),
    [
        ("from apex.fp16_utils import *\nenumerate(loader)\n", {}, None),  # Python's
        ("from utils import *\neval(model, loader)\n", {"utils.eval": Summary(params=("model", "loader"))}, "utils.eval"),
        ("from utils import *\neval(model, loader)\n", {}, None),
        ("from utils import *\nfrom tools import enumerate\nenumerate(x)\n", {}, "tools.enumerate"),
    ],
)
def test_a_builtin_after_a_star_import_is_pythons_unless_the_project_defines_it(
        source: str, external: dict[str, Summary], expected: str | None) -> None:
    """A star import binds a builtin's name only when the module defines it (a project's
    `def eval(model, loader)`): the project's summaries say so; else it is Python's."""
    module = cst.parse_module(source)
    ctx = FileContext("input.py", source, module, external)
    call = next(n for n in ctx.nodes_of(cst.Call))
    assert ctx.qualified_name(call.func) == expected  # type: ignore[attr-defined]


RECEIVERS = '''\
class Trainer:
    def fit(trainer, loader):
        trainer.model
        def closure():
            trainer.model
        (lambda trainer: trainer.model)
        return closure

    @staticmethod
    def build(model):
        model.head

    @classmethod
    def make(cls, config):
        cls.defaults


def evaluate(self, loader):
    self.model
'''


def test_a_methods_receiver_is_its_first_parameter_whatever_its_name() -> None:
    """`trainer` of `def fit(trainer, loader)` is the instance, also read in a function
    nested in the method; not a lambda's parameter of the same name, a staticmethod's
    first parameter, a module function's `self`, nor (unless asked) a classmethod's `cls`."""
    from trainlint.analysis.scopes import receiver_method, receiver_name

    model = SemanticModel("m.py", RECEIVERS, cst.parse_module(RECEIVERS))
    defs = {n.name.value: n for n in model.nodes() if type(n) is cst.FunctionDef}
    assert [receiver_name(model, defs[name]) for name in ("fit", "closure", "build", "make", "evaluate")] == [
        "trainer", None, None, None, None]
    assert receiver_name(model, defs["make"], classes=True) == "cls"
    heads = [n.value for n in model.nodes() if type(n) is cst.Attribute]
    found = [(model.code(head), None if (method := receiver_method(model, head, classes=True)) is None
              else method.name.value) for head in heads]
    assert found == [("trainer", "fit"), ("trainer", "fit"), ("trainer", None), ("model", None),
                     ("cls", "make"), ("self", None)]
