"""The lint of the watched script runs beside the training, in a low-priority child
process: the training's interpreter never imports the linter's parser, a slow lint
is stopped at the end of the run, and a failing one is a note, never an error."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from sanitizer.core.script_lint import ScriptLint

TRAIN = textwrap.dedent("""\
    import torch

    def train(model, loader, optimizer):
        for batch in loader:
            loss = model(batch)
            loss.backward()
            optimizer.step()
            torch.cuda.empty_cache()
""")


def _script(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(TRAIN)
    return path


def test_findings_match_the_linter_and_the_parser_stays_out_of_this_process(tmp_path: Path) -> None:
    script = _script(tmp_path)
    probe = textwrap.dedent(f"""\
        import json, sys
        from sanitizer.core.script_lint import ScriptLint
        lint = ScriptLint({str(script)!r})
        lint.start()
        findings = lint.result()
        print(json.dumps({{"findings": findings, "problem": lint.problem,
                           "parser_here": "libcst" in sys.modules}}))
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True)
    seen = json.loads(out.stdout)
    assert seen["problem"] is None and seen["parser_here"] is False
    cli = subprocess.run([sys.executable, "-m", "trainlint", "check", "--format", "json", "--exit-zero",
                          "--no-cache", "train.py"], capture_output=True, text=True, cwd=tmp_path, check=True)
    expected = json.loads(cli.stdout)
    assert [(f["code"], f["line"]) for f in seen["findings"]] == [(f["code"], f["line"]) for f in expected]
    assert any(f["code"] == "TL201" for f in seen["findings"])


def test_a_lint_that_outlasts_the_wait_is_stopped(tmp_path: Path) -> None:
    lint = ScriptLint(str(_script(tmp_path)))
    assert lint.result(wait=0.0) is None
    assert lint.problem is not None and "did not finish within 0s" in lint.problem
    assert lint._process is not None and lint._process.poll() is not None  # no lint left running


def test_a_lint_held_back_past_the_end_of_the_run_starts_again_at_normal_priority(tmp_path: Path) -> None:
    """On a busy machine the low-priority child may get no processor time at all; once
    the run has ended nothing is left to give way to, and the lint must not be lost."""
    lint = ScriptLint(str(_script(tmp_path)))
    lint.start()
    held = lint._process
    assert held is not None
    os.kill(held.pid, signal.SIGSTOP)  # as the scheduler holds it behind busier processes
    findings = lint.result()
    assert lint.problem is None and findings is not None and any(f["code"] == "TL201" for f in findings)
    assert held.poll() is not None and lint._process is not held  # the held-back child is gone


def test_a_failing_lint_is_a_note(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # paths are shown as from the launch directory
    script = _script(tmp_path)
    lint = ScriptLint(str(script))
    script.unlink()  # gone before the lint reads it
    assert lint.result() is None
    assert lint.problem is not None and lint.problem.startswith("could not lint train.py: FileNotFoundError:")


def test_with_a_cache_folder_an_unchanged_script_is_not_linted_again(tmp_path: Path) -> None:
    script = _script(tmp_path)
    probe = textwrap.dedent(f"""\
        import json, sys
        from sanitizer.core.script_lint import lint_files
        findings = lint_files([{str(script)!r}])
        print(json.dumps({{"findings": findings, "parsed": "libcst" in sys.modules}}))
    """)

    def lint(**env: str) -> dict[str, object]:
        environ = {key: value for key, value in os.environ.items() if key != "SANITIZER_LINT_CACHE"}
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                             env={**environ, **env}, check=True)
        return json.loads(out.stdout)

    uncached = lint()
    assert uncached["parsed"] is True and any(f["code"] == "TL201" for f in uncached["findings"])  # type: ignore[union-attr]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"], "no cache is written unless asked for"
    cache = str(tmp_path / "cache")
    first, second = lint(SANITIZER_LINT_CACHE=cache), lint(SANITIZER_LINT_CACHE=cache)
    assert first == uncached
    assert second == {"findings": uncached["findings"], "parsed": False}  # from the cache: nothing parsed
    script.write_text(TRAIN.replace("torch.cuda.empty_cache()", "pass"))
    changed = lint(SANITIZER_LINT_CACHE=cache)
    assert changed["parsed"] is True and not any(f["code"] == "TL201" for f in changed["findings"])  # type: ignore[union-attr]
