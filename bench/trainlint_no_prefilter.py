"""`trainlint` with every rule's token pre-filter switched off, so that every
file is parsed and walked by every selected rule: the cost of the analysis
itself, for comparison with the bare parse. Arguments are those of
`trainlint check`.

    PYTHONPATH=. python bench/trainlint_no_prefilter.py --no-cache DIR
"""

from __future__ import annotations

from trainlint.cli import main
from trainlint.registry import all_rules

if __name__ == "__main__":
    for rule in all_rules():
        rule.triggers = ()  # workers are forked and see the same classes
    main(prog_name="trainlint")
