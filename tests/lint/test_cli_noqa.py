"""Unused `# noqa` codes (TL001) and `--add-noqa`, as a user baselining an
existing codebase meets them."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import CLIP_BUG, DP_BUG, invoke


def _found(out: str) -> list[tuple[str, int, str]]:
    return [(d["path"], d["line"], d["code"]) for d in json.loads(out)]


def test_unused_noqa_is_reported_and_fixed(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "import torch.nn as nn\n"
        "m = nn.DataParallel(m)  # noqa: TL301, TL101  (kept for the release)\n"
        "x = 1  # noqa: TL202\n"
        "y = 2  # noqa: E501, TL202\n"
        "z = 3  # noqa\n"
    )
    code, out, _ = invoke("a.py", "--format", "json", "--no-cache", cwd=tmp_path)
    assert code == 1 and _found(out) == [("a.py", 2, "TL001"), ("a.py", 3, "TL001"), ("a.py", 4, "TL001")]
    assert "TL101" in json.loads(out)[0]["message"]
    code, _, _ = invoke("a.py", "--fix", "--no-cache", cwd=tmp_path)
    assert code == 0
    assert (tmp_path / "a.py").read_text() == (
        "import torch.nn as nn\n"
        "m = nn.DataParallel(m)  # noqa: TL301  (kept for the release)\n"
        "x = 1\n"
        "y = 2  # noqa: E501\n"
        "z = 3  # noqa\n"
    )


def test_two_fixes_of_one_comment_count_as_two(tmp_path: Path) -> None:
    """Fixes that edit the same comment are applied one per round: each is
    counted when it is applied, not again in every round it was offered."""
    (tmp_path / "a.py").write_text("x = 1  # noqa: TL201  # noqa: TL202\ny = 2\n")
    _, _, err = invoke("a.py", "--diff", "--no-cache", cwd=tmp_path)
    assert "Would fix 2 finding(s)." in err
    code, out, _ = invoke("a.py", "--fix", "--show-fixes", "--no-cache", cwd=tmp_path)
    assert code == 0 and "Fixed 2 finding(s):" in out and "2 × TL001" in out
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 2\n"


def test_the_reason_after_a_removed_noqa_stays_a_comment_beside_another(tmp_path: Path) -> None:
    """`# type: ignore  # noqa: TL202 -- legacy`: with the directive gone, its reason
    must not run into the type checker's comment (`# type: ignore  -- legacy` is no
    `type: ignore` mypy accepts)."""
    (tmp_path / "a.py").write_text("y = 2  # type: ignore  # noqa: TL202 -- legacy\nx = 1  # noqa: TL202 -- legacy\n")
    assert invoke("a.py", "--fix", "--no-cache", cwd=tmp_path)[0] == 0
    assert (tmp_path / "a.py").read_text() == "y = 2  # type: ignore  # -- legacy\nx = 1  # -- legacy\n"


def test_only_codes_of_rules_that_ran_are_judged(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1  # noqa: TL301\n")
    assert invoke("a.py", "--select", "TL1,TL001", "--no-cache", cwd=tmp_path)[0] == 0
    assert invoke("a.py", "--per-file-ignores", "a.py:TL301", "--no-cache", cwd=tmp_path)[0] == 0
    assert invoke("a.py", "--extend-ignore", "TL001", "--no-cache", cwd=tmp_path)[0] == 0
    assert invoke("a.py", "--no-cache", cwd=tmp_path)[0] == 1
    (tmp_path / "a.py").write_text("x = 1  # noqa: TL301, TL001\n")
    assert invoke("a.py", "--no-cache", cwd=tmp_path)[0] == 0, "a noqa may silence TL001 itself"


def test_add_noqa_baselines_a_codebase(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(DP_BUG + CLIP_BUG)
    (tmp_path / "more.py").write_bytes(
        b"# -*- coding: latin-1 -*-\r\n"
        b"import torch.nn as nn  # caf\xe9\r\n"
        b"m = nn.DataParallel(m)  # noqa: E501\r\n"
        b'DOC = f"""{nn.DataParallel(\r\n'
        b'    m)}"""\r\n'
    )
    code, out, err = invoke(".", "--add-noqa", "--no-cache", cwd=tmp_path)
    assert code == 0 and out == "" and "Added 4 noqa code(s) to 2 file(s)." in err
    assert (tmp_path / "more.py").read_bytes() == (
        b"# -*- coding: latin-1 -*-\r\n"
        b"import torch.nn as nn  # caf\xe9\r\n"
        b"m = nn.DataParallel(m)  # noqa: E501, TL301\r\n"
        b'DOC = f"""{nn.DataParallel(\r\n'
        b'    m)}"""  # noqa: TL301\r\n'
    )
    train = (tmp_path / "train.py").read_text()
    assert "model = nn.DataParallel(model)  # noqa: TL301\n" in train
    assert "clip_grad_norm_(model.parameters(), 1.0)  # noqa: TL101\n" in train
    code, out, _ = invoke(".", "--no-cache", cwd=tmp_path)
    assert code == 0 and "Found 0 findings (0 fixable)." in out, out
    code, _, err = invoke(".", "--add-noqa", "--no-cache", cwd=tmp_path)
    assert code == 0 and "Added 0 noqa code(s)" in err


def test_add_noqa_drops_unused_codes_so_that_the_baseline_lints_clean(tmp_path: Path) -> None:
    """A `# noqa` code that suppresses nothing would be reported (TL001) right
    after the baseline: `--add-noqa` removes it, as `--fix` does, on the lines it
    adds codes to and elsewhere; other tools' codes stay."""
    (tmp_path / "a.py").write_text(
        "import torch.nn as nn\n"
        "m = nn.DataParallel(nn.Linear(1, 1))  # noqa: TL101\n"
        "x = 1  # noqa: TL301, E501\n"
        "y = 2  # noqa: TL301\n"
    )
    code, out, err = invoke(".", "--add-noqa", "--no-cache", cwd=tmp_path)
    assert code == 0 and out == "", err
    assert "Added 1 noqa code(s) to 1 file(s); removed unused codes from 3 `# noqa` comment(s)." in err
    assert (tmp_path / "a.py").read_text() == (
        "import torch.nn as nn\n"
        "m = nn.DataParallel(nn.Linear(1, 1))  # noqa: TL301\n"
        "x = 1  # noqa: E501\n"
        "y = 2\n"
    )
    assert invoke(".", "--no-cache", cwd=tmp_path)[:2] == (0, "Found 0 findings (0 fixable).\n")
    code, _, err = invoke(".", "--add-noqa", cwd=tmp_path)
    assert code == 0 and "Added 0 noqa code(s) to 0 file(s)." in err


def test_add_noqa_reads_old_mac_line_ends(tmp_path: Path) -> None:
    """Lines that end in a lone CR are lines to `--add-noqa` too, as to the linter."""
    (tmp_path / "cr.py").write_bytes(b"import torch.nn as nn\rm = nn.DataParallel(m)  # noqa: TL301\r"
                                     b"k = nn.DataParallel(m)\r")
    code, _, err = invoke("cr.py", "--add-noqa", "--no-cache", cwd=tmp_path)
    assert code == 0 and "Added 1 noqa code(s) to 1 file(s)." in err and "warning" not in err, err
    assert (tmp_path / "cr.py").read_bytes() == (b"import torch.nn as nn\rm = nn.DataParallel(m)  # noqa: TL301\r"
                                                 b"k = nn.DataParallel(m)  # noqa: TL301\r")
    assert invoke("cr.py", "--no-cache", cwd=tmp_path)[0] == 0


def test_add_noqa_refuses_to_combine_with_fix(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(DP_BUG)
    code, _, err = invoke("a.py", "--add-noqa", "--fix", cwd=tmp_path)
    assert code == 2 and "--add-noqa" in err
    assert (tmp_path / "a.py").read_text() == DP_BUG


def test_add_noqa_marks_a_line_that_takes_no_comment_where_its_statement_ends(tmp_path: Path) -> None:
    """A line that ends with a backslash or inside a string cannot take a comment: the
    `# noqa` goes on the line its statement ends on, covers the finding there, and the
    next run is clean."""
    source = ('import torch.nn as nn\nm = nn.DataParallel(m) if ok else \\\n    None\n'
              'n = nn.DataParallel(m) if len("""\nabc\n""") else 0\n')
    (tmp_path / "a.py").write_text(source)
    code, _, err = invoke("a.py", "--add-noqa", "--no-cache", cwd=tmp_path)
    assert code == 0 and "Added 2" in err, err
    assert (tmp_path / "a.py").read_text() == source.replace("    None\n", "    None  # noqa: TL301\n").replace(
        '""") else 0\n', '""") else 0  # noqa: TL301\n')
    assert invoke("a.py", "--no-cache", cwd=tmp_path)[0] == 0


def test_noqa_inside_a_string_suppresses_nothing(tmp_path: Path) -> None:
    (tmp_path / "s.py").write_text(
        "import torch.nn as nn\n"
        'label = "see # noqa"; a = nn.DataParallel(m)\n'
        "b = nn.DataParallel(m, note='# noqa: TL301')\n"
        'c = nn.DataParallel(m)  # "quoted" but a comment: noqa: TL301 does not count, this one does # noqa: TL301\n'
    )
    code, out, _ = invoke("s.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert [(d["line"], d["code"]) for d in json.loads(out)] == [(2, "TL301"), (3, "TL301")], out


def test_a_mistyped_code_suppresses_nothing_and_words_make_a_bare_noqa(tmp_path: Path) -> None:
    """`# noqa: TL-301` hides no rule, and TL001 says so; `# noqa: legacy` is a bare
    `# noqa`, as flake8 reads it; a rule's name stands for its code, and a space
    before the colon is allowed."""
    (tmp_path / "m.py").write_text(
        "import torch.nn as nn\n"
        "a = nn.DataParallel(m)  # noqa: legacy\n"
        "b = nn.DataParallel(m)  # noqa: data-parallel\n"
        "c = nn.DataParallel(m)  # noqa : TL301\n"
        "d = nn.DataParallel(m)  # noqa: TL-301\n"
        "e = nn.DataParallel(m)  # noqa: TL3O1\n"
        "f = nn.DataParallel(m)  # noqa: pre-existing issue\n"
    )
    _, out, _ = invoke("m.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert sorted((d["line"], d["code"]) for d in json.loads(out)) == [
        (5, "TL001"), (5, "TL301"), (6, "TL001"), (6, "TL301")]


def test_removing_a_noqa_line_near_the_top_keeps_the_lines_below_in_place(tmp_path: Path) -> None:
    """A coding declaration on line 3 is not read by Python: removing line 2 would
    move it to line 2, where it is, and the file would decode otherwise."""
    source = b"#!/usr/bin/env python\n# noqa: TL999\n# -*- coding: latin-1 -*-\ns = 'caf\xc3\xa9'\n"
    (tmp_path / "m.py").write_bytes(source)
    invoke("m.py", "--no-cache", "--fix", cwd=tmp_path)
    fixed = (tmp_path / "m.py").read_bytes()
    assert fixed == source.replace(b"# noqa: TL999\n", b"\n"), fixed


def test_a_file_directive_takes_rule_names(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("# trainlint: noqa: data-parallel\nimport torch.nn as nn\nm = nn.DataParallel(m)\n")
    assert invoke("m.py", "--no-cache", cwd=tmp_path)[0] == 0


def test_a_file_directive_naming_no_rule_is_reported(tmp_path: Path) -> None:
    """`# trainlint: noqa: TL031`, a typo of TL301: the file is not skipped for TL301,
    and TL001 says why, as it does for a line `# noqa`."""
    (tmp_path / "m.py").write_text("# trainlint: noqa: TL031\nimport torch.nn as nn\nm = nn.DataParallel(m)\n")
    _, out, _ = invoke("m.py", "--no-cache", "--format", "json", cwd=tmp_path)
    found = {(d["line"], d["code"], d["message"]) for d in json.loads(out)}
    assert (1, "TL001", "`# trainlint: noqa` names no rule: TL031") in found and {c for _, c, _ in found} == {"TL001", "TL301"}


def test_a_file_directive_is_read_in_any_case_as_a_line_noqa_is(tmp_path: Path) -> None:
    """`# TRAINLINT: NOQA` skips the file as `# NOQA` covers a line (flake8 reads
    its file-level comment in any case too)."""
    (tmp_path / "a.py").write_text("# TRAINLINT: NOQA\nimport torch.nn as nn\nm = nn.DataParallel(m)\n")
    (tmp_path / "b.py").write_text("# Trainlint: NoQA: TL301\nimport torch.nn as nn\nm = nn.DataParallel(m)\n")
    code, out, _ = invoke(".", "--no-cache", cwd=tmp_path)
    assert (code, out) == (0, "Found 0 findings (0 fixable).\n")
