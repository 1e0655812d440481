"""What the rules of one file read: the semantic model (`lint.semantic`) and
the analyses every rule shares, such as which variable holds a GradScaler."""

from __future__ import annotations

from lint.analysis.receivers import Receivers
from lint.semantic import SemanticModel


class FileContext(SemanticModel):
    @property
    def receivers(self) -> Receivers:
        """What each variable of the file holds (see `lint.analysis.receivers`)."""
        return self.shared(Receivers)
