"""Where the script calls its optimizer's step, and whether a crash came inside that
training loop or after it: a crash is told as after the last step only on that evidence."""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from types import CodeType, FrameType, TracebackType

from sanitizer.core import locations

_Loop = tuple[int, int]  # first and last line of a `for` or `while` statement


@dataclass(frozen=True)
class StepCall:
    """The user code that called the latest optimizer step, and the user code that called
    that (code objects and lines only: no frame, so no tensor, is kept)."""
    code: CodeType
    line: int
    outer_code: CodeType | None
    outer_line: int | None


def step_call() -> StepCall | None:
    """The innermost two user frames on the stack of an optimizer step's hook."""
    found: list[tuple[CodeType, int]] = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and len(found) < 2:
        if locations.is_user_file(frame.f_code.co_filename):
            line = locations.frame_line(frame)
            if line is None:
                return None
            found.append((frame.f_code, line))
        frame = frame.f_back
    if not found:
        return None
    (code, line), outer = found[0], found[1] if len(found) > 1 else (None, None)
    return StepCall(code, line, outer[0], outer[1])


def crash_after_steps(call: StepCall, traceback: TracebackType | None) -> str | None:
    """`"last"` when the crash came in the function that called the step, past every loop
    around that call (or in its caller, past a call of it outside any loop); `"after"` when it
    came after that call, later in its iteration, in an outer loop around it (an evaluation
    at an epoch's end) or in the caller after the call; None when it came in the innermost
    loop around the call before it (the next step's batch, forward or loss), or when unsure."""
    frames = _frames(traceback)
    line = next((line for code, line in frames if code is call.code), None)
    if line is not None:
        loops = _loops_around(call.code, call.line)
        if not loops:
            return None
        innermost, outermost = loops[-1], loops[0]
        if innermost[0] <= line <= innermost[1]:
            # past the step call in the same iteration (logging, a checkpoint save), or in
            # the loop's `else:`: after that step; before it, the next step is under way
            return "after" if line > call.line else None
        if outermost[0] <= line <= outermost[1]:
            return "after"
        if line <= outermost[1]:
            return None  # before the loop: the function runs again
        return "last" if _called_once(call) else "after"
    if call.outer_code is None or call.outer_line is None:
        return None
    later = any(code is call.outer_code and line > call.outer_line for code, line in frames)
    if not later:
        return None
    return "last" if _loops_around(call.outer_code, call.outer_line) == [] else "after"


def _called_once(call: StepCall) -> bool:
    """The function that calls the step runs once: it is the script's module, or its caller
    calls it outside any loop (a `train_epoch()` of an epoch loop runs again)."""
    if call.code.co_name == "<module>":
        return True
    return call.outer_code is not None and call.outer_line is not None \
        and _loops_around(call.outer_code, call.outer_line) == []


def _frames(traceback: TracebackType | None) -> list[tuple[CodeType, int]]:
    frames: list[tuple[CodeType, int]] = []
    while traceback is not None:
        frames.append((traceback.tb_frame.f_code, traceback.tb_lineno))
        traceback = traceback.tb_next
    return frames


def _loops_around(code: CodeType, line: int) -> list[_Loop] | None:
    """The loops of `code`'s function (or module) that hold `line`, outermost first; None
    when its source cannot be read or does not show that function there."""
    scope = locations.code_scope(code.co_filename, code.co_firstlineno, code.co_name)
    if scope is None:
        return None  # unreadable, or a comprehension's or a lambda's code: unsure
    loops = [(node.lineno, node.end_lineno or node.lineno) for node in ast.walk(scope)
             if isinstance(node, (ast.For, ast.AsyncFor, ast.While))
             and node.lineno <= line <= (node.end_lineno or node.lineno)]
    return sorted(loops)
