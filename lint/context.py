"""What the rules of one file read: the semantic model (`trainlint.semantic`) and
the analyses every rule shares, such as which variable holds a GradScaler or
what a call of a project function does."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Mapping

import libcst as cst

from trainlint.analysis.receivers import Receivers
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
        self._aliases = {name: s.alias_of for name, s in self.external.items() if s.alias_of}
        super().__init__(path, source, module, timer)

    def qualified_name(self, expr: cst.BaseExpression) -> str | None:
        found = super().qualified_name(expr)
        return self._aliases.get(found, found) if self._aliases and found is not None else found

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
