"""Watching the run: the session, its hooks, the per-step probe, forward tracing,
and the events the detectors emit. Importing this package imports no torch;
its modules `session`, `hooks`, `probe`, `tracing`, `naming`, `memory` do."""
