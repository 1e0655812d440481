"""trainlint rules: one module per rule, named after the rule."""
