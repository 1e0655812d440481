"""What the rules of one file read: the semantic model (`trainlint.semantic`) and
the analyses every rule shares, such as which variable holds a GradScaler or
what a call of a project function does."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Mapping

import libcst as cst

from trainlint.analysis.names import BUILTIN_NAMES, canonical
from trainlint.analysis.scopes import dotted_name
from trainlint.analysis.receivers import Receivers
from trainlint.project import member_of
from trainlint.semantic import SemanticModel
from trainlint.timing import Timer

if TYPE_CHECKING:
    from trainlint.analysis.summarize import FileSummaries
    from trainlint.summaries import Summary


class FileContext(SemanticModel):
    def __init__(
        self,
        path: str,
        source: str,
        module: cst.Module,
        external: Mapping[str, Summary] | None = None,
        timer: Timer | None = None,
    ) -> None:
        # closed summaries of the project's other modules, by the qualified
        # names this file calls them (`.engine.train_one_epoch`)
        self.external: Mapping[str, Summary] = external or {}
        # names the project's modules re-export, as what they are (set before the
        # model is built: building it may ask for qualified names)
        self._aliases = {name: canonical(s.alias_of) for name, s in self.external.items() if s.alias_of}
        super().__init__(path, source, module, timer)

    def qualified_name(self, expr: cst.BaseExpression) -> str | None:
        found = super().qualified_name(expr)
        if found is not None and type(expr) is cst.Name and expr.value in BUILTIN_NAMES and self._star_bound(found):
            # `enumerate` after `from apex.fp16_utils import *` is Python's, unless the
            # project says the module defines it (`def eval(model, loader)` of utils.py)
            return found if found in self.external else None
        if not self._aliases:
            return found
        if found is not None:
            return self._unaliased(found)
        stars = self.scopes.module_scope.star_imports
        dotted = dotted_name(expr) if stars and self.may_be_imported(expr) else None
        if dotted is None or not self.qualified_names(expr):
            return None
        # several star imports (`from common import *`, `from models import *`): the last
        # binds the name if any does, so its module must be one the project says imports
        # it (a later module of the project may define a `DataParallel` of its own)
        head, _, rest = dotted.partition(".")
        named = canonical(member_of(stars[-1], head) + (f".{rest}" if rest else ""))
        found = self._unaliased(named)
        return found if found != named else None

    def _star_bound(self, qualified: str) -> bool:
        """`qualified` names what one of the module's star imports binds."""
        module, _, name = qualified.rpartition(".")
        return any(member_of(star, name) == qualified for star in self.scopes.module_scope.star_imports)

    def _unaliased(self, name: str) -> str:
        """`name`, or what a module of the project that binds it imports: the
        name itself (`amp_utils.autocast`), or the module or object it is an
        attribute of (`common.nn.DataParallel` where common.py did `import
        torch.nn as nn`)."""
        exact = self._aliases.get(name)
        if exact is not None:
            return exact
        head, dot, _ = name.rpartition(".")
        while dot:
            target = self._aliases.get(head)
            if target is not None:
                return canonical(target + name[len(head):])
            head, dot, _ = head.rpartition(".")
        return name

    @property
    def receivers(self) -> Receivers:
        """What each variable of the file holds (see `trainlint.analysis.receivers`)."""
        return self.shared(Receivers)

    @property
    def summaries(self) -> FileSummaries:
        """What each function of the file, and each call, does (see
        `trainlint.analysis.summarize`)."""
        return self.shared(_file_summaries())


@functools.cache
def _file_summaries() -> type[FileSummaries]:
    """The analysis class, imported on first use (its module imports this
    one); rules ask for it once per call they look at."""
    from trainlint.analysis.summarize import FileSummaries

    return FileSummaries
