"""`python -m lint`, the name the interface contract gives the linter's
command, for an installed trainlint: the linter itself is the `trainlint`
package (from the repository's `lint/` folder, which is this package in a
checkout); this one only starts its command line."""
