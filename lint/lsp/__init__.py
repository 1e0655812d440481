"""`trainlint server`: the linter in editors, over the Language Server
Protocol. Needs the `lsp` extra (pygls); nothing else imports this package."""
