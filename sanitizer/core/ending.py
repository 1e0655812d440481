"""How a watched run ended, for the report's `ending` and the diagnosis that opens with it."""
from __future__ import annotations

import re
from types import FrameType, TracebackType
from typing import Any

from sanitizer.core import locations
from sanitizer.core.cuts import Cuts


def ending_of(exc: BaseException | None, halt_line: str | None = None) -> dict[str, Any]:
    """`{"how": returned|exit|exception|interrupted|halted, "detail": ..., "where": ...}`
    (`terminated`, for SIGTERM, comes from `terminated_at`).

    `halt_line` describes the event a `--halt-on` stopped at (the halt itself is
    raised into the script as an exception)."""
    if halt_line is not None:
        return {"how": "halted", "detail": halt_line, "where": None}
    if exc is None:
        return {"how": "returned", "detail": None, "where": None}
    if isinstance(exc, SystemExit):
        code = exc.code
        if code is None or code == 0:
            return {"how": "returned", "detail": None, "where": None}
        return {"how": "exit", "detail": f"sys.exit({code!r})", "where": _user_site(exc.__traceback__)}
    how = "interrupted" if isinstance(exc, KeyboardInterrupt) else "exception"
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    wrapped = _worker_error(str(exc))
    if wrapped is not None:  # raised again from a DataLoader worker: its own error, and its line
        origin, error, site = wrapped
        return {"how": how, "detail": f"{error} ({origin})", "where": site or _user_site(exc.__traceback__)}
    return {"how": how, "detail": detail, "where": _user_site(exc.__traceback__)}


_SPAWNED = re.compile(r"^-- Process (\d+) terminated with the following error:$")
_FRAME_LINE = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _worker_error(message: str) -> tuple[str, str, str | None] | None:
    """A worker's exception as torch raises it again in the main process ("Caught KeyError
    in DataLoader worker process 1.", then "Original Traceback (most recent call last):" and
    the worker's traceback; `mp.spawn`'s "-- Process 1 terminated with the following error:"
    and the worker's traceback): where it was caught, the worker's own error line, and its
    innermost user frame (the Dataset's `__getitem__`), instead of the whole traceback
    flattened into one line."""
    lines = message.strip().splitlines()
    spawned = _SPAWNED.match(lines[0]) if lines else None
    if spawned is not None and len(lines) >= 3 and lines[1].startswith("Traceback"):
        # `mp.spawn`'s ProcessRaisedException: "-- Process 1 terminated with the following
        # error:", then the worker's traceback
        lines[0] = f"Caught in process {spawned[1]} of mp.spawn"
    elif len(lines) < 3 or not lines[1].startswith("Original Traceback"):
        return None
    site = None
    for line in lines[2:]:
        frame = _FRAME_LINE.match(line)
        if frame is not None and locations.is_user_file(frame["file"]):
            site = locations.format_site(frame["file"], int(frame["line"]))
    origin = lines[0].rstrip(".")
    origin = origin.split(" in ", 1)[1] if origin.startswith("Caught ") and " in " in origin else origin
    return f"in {origin}", lines[-1].strip(), site


def crash_time(ending: dict[str, Any]) -> str:
    """When a run's exception came: ` in step 31`; for one raised outside the loop around
    the step's call, in code that trained nothing (generation or a final evaluation after
    the loop), ` after step 30, the last optimizer step`; for one raised in an outer loop
    after the step's own loop (an evaluation at an epoch's end), ` after step 30` (see
    `Sanitizer.record_ending`)."""
    step = ending.get("step")
    if not isinstance(step, int) or isinstance(step, bool):
        return ""
    if not ending.get("after_step"):
        return f" in step {step}"
    return f" after step {step}, the last optimizer step" if ending.get("last_step") else f" after step {step}"


def exited_at(code: int, frame: FrameType | None) -> dict[str, Any]:
    """The ending of a run that called `os._exit(code)` while `frame` ran."""
    if code == 0:
        return {"how": "returned", "detail": None, "where": None}
    return {"how": "exit", "detail": f"os._exit({code!r})",
            "where": locations.user_site(frame) if frame is not None else None}


def terminated_at(frame: FrameType | None) -> dict[str, Any]:
    """The ending of a run killed by SIGTERM, at the innermost user line running."""
    return {"how": "terminated", "detail": None, "where": locations.user_site(frame) if frame is not None else None}


def _user_site(tb: TracebackType | None) -> str | None:
    """`file:line` of the innermost user frame the exception passed through."""
    site = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if locations.is_user_file(filename):
            site = locations.format_site(filename, tb.tb_lineno)
        tb = tb.tb_next
    return site


# what a collective says when the rank at the other end is gone (gloo, NCCL)
PEER_GONE = ("connection closed by peer", "connection reset by peer", "broken pipe",
             "remote process exited", "ncclremoteerror", "communicator was aborted")


def lost_peer(ending: dict[str, Any] | None) -> bool:
    """Whether an exception ending is a collective failing because another rank stopped
    (gloo's "Connection closed by peer"): under DDP, the consequence of that rank's own
    ending, never a cause of its own."""
    if not isinstance(ending, dict) or ending.get("how") != "exception":
        return False
    if ending.get("peer_lost"):
        return True
    detail = str(ending.get("detail") or "").lower()
    return any(words in detail for words in PEER_GONE)


MAX_DETACH_SITES = 3  # `.detach()` calls named in a cut graph's advice
# what autograd says when the tensor given to backward() has no graph to the parameters
CUT_GRAPH = "does not require grad and does not have a grad_fn"
FREED_GRAPH = "Trying to backward through the graph a second time"


def cut_graph(ending: dict[str, Any]) -> bool:
    """Whether the run ended in a backward() that found no graph to any parameter."""
    return ending.get("how") == "exception" and CUT_GRAPH in str(ending.get("detail") or "")


def cut_graph_advice(ending: dict[str, Any], log_prob_site: str | None, cuts: Cuts | None = None) -> str | None:
    """Advice for a backward() that raised because its loss is cut off from the model: what
    cuts a graph, and the first `Distribution.log_prob` the run took without gradients
    (`log_prob_site`), the usual cut in policy-gradient code. With `cuts` (read from the
    script's source, see core/cuts.py) that find `.detach()` calls that ran in what the
    loss is computed from, those calls are named instead of the general causes, and no
    `log_prob` under `no_grad` is (an old policy's, a constant, beside a detached new
    one). None for any other ending."""
    if not cut_graph(ending):
        return None
    if cuts is not None and cuts.detaches:
        sites = cuts.detaches[:MAX_DETACH_SITES]
        which = ("the .detach() at " + sites[0] if len(sites) == 1
                 else "the .detach() calls at " + ", ".join(sites))
        return ("the loss handed to backward() does not depend on any parameter through autograd: it is "
                f"computed from what {which} cut off from the graph; keep the graph of the term the "
                "loss must be differentiated through (detach only what is meant to stay constant: a "
                "baseline, a target, an old policy's log-probabilities)")
    advice = ("the loss handed to backward() does not depend on any parameter through autograd: it, or every "
              "term of it, was computed under torch.no_grad() or torch.inference_mode(), or cut off with "
              ".detach(), .item(), .numpy() or torch.tensor(...); compute the loss's terms with gradients enabled")
    if log_prob_site is not None:
        advice += (f"; Distribution.log_prob ran under torch.no_grad() at {log_prob_site}: if the loss uses "
                   "those log-probabilities, take them with gradients")
    return advice


def freed_graph_advice(ending: dict[str, Any], steps_done: int) -> str | None:
    """Advice for a backward() that reached a graph an earlier backward() freed. After
    steps that went through (`steps_done`), the same code ran before without raising:
    what changed is a tensor carried over from an earlier step (a recurrent state fed to
    the next batch, a running total). In the first step, two backward() calls share a
    graph: two losses, or a tensor carried between micro-batches of one accumulated step.
    None for any other ending."""
    if ending.get("how") != "exception" or FREED_GRAPH not in str(ending.get("detail") or ""):
        return None
    if steps_done > 0:
        return ("this backward() reached the graph of an earlier step, which that step's backward() freed: a "
                "tensor carried over from step to step (a recurrent hidden state fed to the next batch, a "
                "running total, a cached output) still links the loss to it; detach it where it is carried "
                "over (`state = state.detach()`, or `.item()` for a number)")
    return ("two backward() calls in this step go through the same part of the graph and the first freed it: "
            "for two losses over one computation, add them and call backward() once, or pass retain_graph=True "
            "to the first call; for a tensor kept from one micro-batch to the next, detach it")
