"""`--fix` and `--diff` read and write the result cache: a file whose cached
findings have nothing to fix is not analysed again, and a plain run right
after `--fix` is served entirely from the cache."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_runner import CLIP_BUG, UNSAFE_ONLY, invoke


def _counts(err: str) -> tuple[int, int]:
    """(linted, from the cache) as `-v` reports them."""
    match = re.search(r"(\d+) linted, (\d+) from the cache", err)
    assert match, err
    return int(match.group(1)), int(match.group(2))


def test_fix_analyses_only_what_it_fixes_and_leaves_everything_cached(project: Path) -> None:
    assert _counts(invoke("src", "-v", cwd=project)[2]) == (3, 0)
    code, _, err = invoke("src", "--fix", "-v", cwd=project)
    assert _counts(err) == (1, 2), "only clip.py has something to fix"
    assert "scaler.unscale_(opt)" in (project / "src" / "clip.py").read_text()
    code, out, err = invoke("src", "-v", cwd=project)
    assert _counts(err) == (0, 3), "the fixed file's findings were cached under its new content"
    assert (code, out) == invoke("src", "--no-cache", cwd=project)[:2]
    assert _counts(invoke("src", "--diff", "-v", cwd=project)[2]) == (0, 3)


def test_diff_reads_the_cache_and_caches_files_it_would_not_change(project: Path) -> None:
    code, out, err = invoke("src", "--diff", "-v", cwd=project)
    assert code == 1 and "+    scaler.unscale_(opt)" in out and _counts(err) == (3, 0)
    assert (project / "src" / "clip.py").read_text() == CLIP_BUG
    code, out, err = invoke("src", "--diff", "-v", cwd=project)
    assert code == 1 and "+    scaler.unscale_(opt)" in out
    assert _counts(err) == (1, 2), "what a diff leaves unchanged is cached; the diffed file is not"


def test_a_finding_with_an_unsafe_fix_needs_analysis_only_with_unsafe_fixes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(UNSAFE_ONLY)
    invoke("a.py", cwd=tmp_path)
    assert _counts(invoke("a.py", "--fix", "-v", cwd=tmp_path)[2]) == (0, 1)
    assert (tmp_path / "a.py").read_text() == UNSAFE_ONLY
    assert _counts(invoke("a.py", "--fix", "--unsafe-fixes", "-v", cwd=tmp_path)[2]) == (1, 0)
    assert "empty_cache" not in (tmp_path / "a.py").read_text()
    assert _counts(invoke("a.py", "-v", cwd=tmp_path)[2]) == (0, 1)


# A file analysed twice in one run: first without what the module it imports does,
# then again once the project knows (see `trainlint.project_pass`).
_HELPERS = """import torch


def freeze(head):
    head.eval()


def features(model, data):
    return collect(model, data)


@torch.no_grad()
def collect(model, loader):
    for batch in loader:
        pass
"""
_PROBE = """import torch
from pkg.helpers import features


def linear_probe(model, data):
    rows = features(model, data)
    loader = torch.utils.data.DataLoader(rows)


with torch.cuda.amp.autocast():
    pass
"""


def test_a_file_analysed_twice_is_diffed_and_fixed_once(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text("VERSION = '1'\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "helpers.py").write_text(_HELPERS)
    (tmp_path / "pkg" / "probe.py").write_text(_PROBE)
    code, out, _ = invoke(".", "--diff", "--no-cache", cwd=tmp_path)
    assert code == 1 and out.count("+++ b/pkg/probe.py") == 1, out
    assert out.count('+with torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True):') == 1, out
    code, out, err = invoke(".", "--fix", cwd=tmp_path)
    assert code == 0 and "Fixed 1 finding(s) in 1 file(s)" in out + err, (out, err)
    assert (tmp_path / "pkg" / "probe.py").read_text() == _PROBE.replace(
        "torch.cuda.amp.autocast()", 'torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True)')
    assert invoke(".", "--diff", cwd=tmp_path)[:2] == (0, "")


def test_a_fix_through_a_symbolic_link_fixes_the_file_it_points_to(tmp_path: Path) -> None:
    """The link stays a link, whether it is named or found in a folder; the file
    it points to gets the fix."""
    for named in ("link.py", "."):
        root = tmp_path / named.strip(".") / "run" if named == "." else tmp_path / "named"
        (root / "real").mkdir(parents=True)
        target = root / "real" / "target.py"
        target.write_text("import torch\ns = torch.cuda.amp.GradScaler(enabled=False)\n")
        (root / "link.py").symlink_to(Path("real") / "target.py")
        code, _, err = invoke(named, "--fix", "--no-cache", cwd=root)
        assert code == 0, err
        assert (root / "link.py").is_symlink()
        assert 'torch.amp.GradScaler("cuda", enabled=False)' in target.read_text()


def test_a_fix_keeps_the_last_line_end_of_old_mac_files(tmp_path: Path) -> None:
    """A file whose lines end in a lone CR keeps the CR after its last line."""
    path = tmp_path / "cr.py"
    path.write_bytes(b"import torch\rs = torch.cuda.amp.GradScaler()\r")
    code, _, err = invoke("cr.py", "--fix", "--no-cache", cwd=tmp_path)
    assert code == 0, err
    fixed = path.read_bytes()
    assert fixed.endswith(b")\r") and b"\n" not in fixed and b"torch.amp.GradScaler(" in fixed


def test_a_fix_keeps_the_byte_order_mark_and_each_line_end(tmp_path: Path) -> None:
    """A file saved on Windows (a UTF-8 byte order mark, CRLF) with lines of
    another editor's (LF) among them: each line keeps its own end, a line the
    fix adds (`import torch`) ends as the file's first line does, and the file
    keeps its mark and permissions."""
    path = tmp_path / "train.py"
    path.write_bytes(b"\xef\xbb\xbffrom torch.cuda.amp import GradScaler\r\n"
                     b"x = 1\n"
                     b"s = GradScaler()  # noqa: E501\r\n")
    path.chmod(0o751)
    code, _, err = invoke("train.py", "--fix", "--no-cache", cwd=tmp_path)
    assert code == 0, err
    assert path.read_bytes() == (b"\xef\xbb\xbfimport torch\r\n"
                                 b"from torch.cuda.amp import GradScaler\r\n"
                                 b"x = 1\n"
                                 b's = torch.amp.GradScaler("cuda")  # noqa: E501\r\n')
    assert path.stat().st_mode & 0o7777 == 0o751


def test_a_file_changed_while_it_is_linted_is_not_fixed_and_its_findings_are_those_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor saving the file between trainlint's read and its write: the fixed
    text is not written, and what is reported is the file as it was read (fixable
    findings marked as usual), not the fixed text that was never written."""
    from trainlint import runner

    (tmp_path / "clip.py").write_text(CLIP_BUG)
    expected = invoke("clip.py", "--no-cache", cwd=tmp_path)[1]
    apply = runner._apply

    def edited_meanwhile(task, analysed, options, result):  # type: ignore[no-untyped-def]
        with open(task.path, "a", encoding="utf-8") as handle:
            handle.write("EDITED = 1\n")
        return apply(task, analysed, options, result)

    monkeypatch.setattr(runner, "_apply", edited_meanwhile)
    code, out, err = invoke("clip.py", "--fix", "--no-cache", "--jobs", "1", cwd=tmp_path)
    assert code == 2 and "clip.py: changed while it was being linted; not fixed" in err
    assert out == expected and "TL101 [*]" in out
    assert (tmp_path / "clip.py").read_text() == CLIP_BUG + "EDITED = 1\n"
