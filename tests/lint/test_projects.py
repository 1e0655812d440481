"""Projects of several files (tests/lint/projects/*): every default rule runs
over the whole project, as users run it, and must give exactly the findings
marked `# expect:` in its files, in serial and parallel runs. Look-alikes
(helpers whose names promise an effect they do not have) stay clean."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from trainlint.config import Config, Selection, select_rules
from trainlint.rule import expected_marks
from trainlint.runner import RunOptions, run

PROJECTS = Path(__file__).parent / "projects"


def _files(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*.py"))


def _lint(root: Path, jobs: int = 1) -> set[tuple[str, int, str]]:
    selection = select_rules(None, [], [])
    result = run(_files(root), selection, Config(root=root), RunOptions(jobs=jobs))
    return {(Path(f.path).relative_to(root).as_posix(), f.line, f.code) for f in result.findings}


def _marks(root: Path) -> set[tuple[str, int, str]]:
    return {
        (Path(path).relative_to(root).as_posix(), line, code)
        for path in _files(root)
        for line, code in expected_marks(Path(path).read_text(encoding="utf-8"))
    }


@pytest.mark.parametrize("project", sorted(p for p in PROJECTS.iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_project_findings(project: Path) -> None:
    assert _lint(project) == _marks(project)


def test_parallel_runs_follow_the_same_calls() -> None:
    project = PROJECTS / "package_layout"
    assert _lint(project, jobs=2) == _lint(project, jobs=1)


def test_each_file_alone_misses_what_lies_in_the_others() -> None:
    """Linted alone, a file cannot see its helpers: the findings that need
    them are exactly the ones that go."""
    project = PROJECTS / "deit_layout"
    selection = select_rules(None, [], [])
    alone = run([str(project / "engine.py")], selection, Config(root=project), RunOptions(jobs=1))
    assert {(f.line, f.code) for f in alone.findings} == {(14, "TL101")}


def _copy_with_cached_runs(tmp_path: Path, name: str) -> tuple[Path, Callable[[], set[tuple[str, int, str]]]]:
    """A copy of project `name` to edit, and a run of every default rule over it
    through one result cache: (file name, line, code) of each finding."""
    import shutil

    project = tmp_path / name
    shutil.copytree(PROJECTS / name, project)
    selection = select_rules(None, [], [])

    def cached() -> set[tuple[str, int, str]]:
        result = run(_files(project), selection, Config(root=project), RunOptions(jobs=1, cache_dir=tmp_path / "cache"))
        return {(Path(f.path).name, f.line, f.code) for f in result.findings}

    return project, cached


def test_a_file_that_only_calls_other_modules_follows_their_changes_through_the_cache(tmp_path: Path) -> None:
    """main.py has no training nor mode switch of its own: it still gets what
    train_loop() and evaluate() do, and a cached run sees evaluate() change."""
    project, cached = _copy_with_cached_runs(tmp_path, "orchestrator_layout")
    assert cached() == {("main.py", 12, "TL405")}
    evaluate = project / "evaluate.py"
    evaluate.write_text(evaluate.read_text().replace("    return correct\n", "    model.train()\n    return correct\n", 1))
    assert cached() == set()
    assert cached() == set()


def test_inherited_methods_follow_their_base_class_through_the_cache(tmp_path: Path) -> None:
    """`self.free_memory()` of trainer.py runs core.py's method, two classes up:
    a cached run sees that method change, and the findings that rested on it go."""
    project, cached = _copy_with_cached_runs(tmp_path, "inheritance_layout")
    before = cached()
    assert before == cached() == _marks(project)
    core = project / "core.py"
    core.write_text(core.read_text().replace("        torch.cuda.empty_cache()\n", "        self.freed = True\n", 1))
    lines = {path.name: path.read_text().splitlines() for path in project.glob("*.py")}
    resting_on_core = {f for f in before if f[2] == "TL201" and "free_memory()" in lines[f[0]][f[1] - 1]}
    assert len(resting_on_core) == 2
    assert cached() == before - resting_on_core


def test_a_model_class_that_stops_being_a_module_is_followed_through_the_cache(tmp_path: Path) -> None:
    """train.py and distill.py build `Net` and `Student` on nets.py's `Backbone`, a module
    one class up: once `Backbone` derives from no class of `torch.nn`, a cached run no
    longer takes them for new modules, and their findings go; those of pkg/'s
    `Classifier` stay."""
    project, cached = _copy_with_cached_runs(tmp_path, "imported_model_layout")
    before = cached()
    assert {(Path(path).name, line, code) for path, line, code in _marks(project)} == before == cached()
    nets = project / "nets.py"
    nets.write_text(nets.read_text().replace("class Backbone(nn.Module):", "class Backbone:", 1))
    assert cached() == cached() == {("finetune.py", 9, "TL405"), ("train.py", 33, "TL405")}


@pytest.mark.parametrize(("module", "base", "code"), [
    ("schedules.py", "torch.optim.lr_scheduler._LRScheduler", "TL404"),
    ("optimizers.py", "torch.optim.Optimizer", "TL401"),
])
def test_a_class_that_stops_deriving_from_torchs_kind_is_followed_through_the_cache(
        tmp_path: Path, module: str, base: str, code: str) -> None:
    """train.py's and finetune.py's schedules and optimizers are built from classes of
    schedules.py and optimizers.py, some through a class of cosine.py (which finetune.py
    alone imports) or of train.py itself: once the class there derives from no scheduler or
    optimizer of torch, a cached run no longer takes them for one and their findings go;
    put back, they come back."""
    project, cached = _copy_with_cached_runs(tmp_path, "imported_scheduler_layout")
    marked = {(Path(path).name, line, found) for path, line, found in _marks(project)}
    assert cached() == marked
    source = project / module
    text = source.read_text()
    source.write_text(text.replace(f"({base}):", ":", 1))
    assert cached() == cached() == {finding for finding in marked if finding[2] != code}
    source.write_text(text)
    assert cached() == marked


def test_a_folder_put_on_the_import_path_elsewhere_is_followed_through_the_cache(tmp_path: Path) -> None:
    """tools/train.py finds `core.function` in lib/ because `_init_paths.py` puts lib/ on
    `sys.path`: once it puts lib_dry/ there instead, a cached run follows the other module."""
    project, cached = _copy_with_cached_runs(tmp_path, "init_paths_layout")
    assert ("train.py", 11, "TL404") in cached()
    init_paths = project / "tools" / "_init_paths.py"
    init_paths.write_text(init_paths.read_text().replace('"..", "lib")', '"..", "lib_dry")', 1))
    assert ("train.py", 11, "TL404") not in cached()
    assert ("finetune.py", 15, "TL404") in cached()
def test_modules_that_put_folders_on_the_import_path_run_in_the_order_imported_through_the_cache(
        tmp_path: Path) -> None:
    """full_last.py imports z_dry_paths, then a_full_paths: lib/ ends up first, and its
    `train_one_epoch` steps. Swapping the two imports puts lib_dry/ first: a cached run
    follows the order as it changes."""
    project, cached = _copy_with_cached_runs(tmp_path, "search_path_forms_layout")
    assert ("full_last.py", 14, "TL404") in cached()
    script = project / "scripts" / "full_last.py"
    text = script.read_text()
    script.write_text(text.replace("import z_dry_paths  # noqa: F401\nimport a_full_paths  # noqa: F401\n",
                                   "import a_full_paths  # noqa: F401\nimport z_dry_paths  # noqa: F401\n"))
    assert ("full_last.py", 14, "TL404") not in cached()
    script.write_text(text)
    assert ("full_last.py", 14, "TL404") in cached()


def test_overrides_a_base_class_loop_runs_follow_either_module_through_the_cache(tmp_path: Path) -> None:
    """callbacks.py's overrides are judged as base.py's `Trainer.fit()` runs them: a
    cached run sees the loop stop handing `on_step_end` the loss itself, and see it
    again once restored; and sees an override of callbacks.py start keeping the loss,
    judged against the loop's facts as stored."""
    project, cached = _copy_with_cached_runs(tmp_path, "trainer_hooks_layout")
    before = cached()
    kept = ("callbacks.py", 15, "TL202")
    assert kept in before and ("callbacks.py", 30, "TL201") in before
    base = project / "trainer" / "base.py"
    loop = base.read_text()
    base.write_text(loop.replace("self.on_step_end(loss)", "self.on_step_end(loss.item())", 1))
    assert cached() == cached() == before - {kept}
    base.write_text(loop)
    assert cached() == before
    callbacks = project / "trainer" / "callbacks.py"
    callbacks.write_text(callbacks.read_text().replace("append(loss.detach())", "append(loss)", 1))
    assert cached() == cached() == before | {("callbacks.py", 25, "TL202")}


def test_an_override_in_another_module_names_the_loop_and_its_module() -> None:
    project = PROJECTS / "trainer_hooks_layout"
    result = run(_files(project), select_rules(["TL201"], [], []), Config(root=project), RunOptions(jobs=1))
    assert [(Path(f.path).name, f.line, f.message) for f in result.findings] == [("callbacks.py", 30, (
        "`torch.cuda.empty_cache()` runs on every iteration of the loop of `Trainer.fit()` (trainer/base.py), "
        "which calls `on_step_end()`: it defeats the caching allocator and slows training"))]


def test_a_module_whose_only_helper_starts_running_the_model_is_followed_through_the_cache(tmp_path: Path) -> None:
    """infer.py has nothing to summarize but a function that calls its parameter (the
    forward of the model it is handed). Once `predict` runs no model the file is no
    member: a cached run sees that edit, and the one that makes it a member again."""
    project, cached = _copy_with_cached_runs(tmp_path, "helper_module_layout")
    expected = {(Path(path).name, line, code) for path, line, code in _marks(project)}
    infer = project / "infer.py"
    original = infer.read_text()
    assert cached() == expected
    infer.write_text(original.replace("    return model(x)\n", "    return x\n", 1))
    assert cached() == set()  # every finding of the project rests on `infer.predict`
    infer.write_text(original)
    assert cached() == expected


@pytest.mark.parametrize(("name", "caller"), [
    ("evaluator_layout", "train.py"), ("inherited_scaler_layout", "trainer.py"), ("trainer_step_layout", "train.py"),
    ("guarded_parameter_layout", "train.py"), ("helper_module_layout", "train.py"), ("helper_chain_layout", "train.py"),
    ("helper_module_layout", "scoring.py"), ("loader_kwargs_layout", "defaults.py"), ("loader_kwargs_layout", "wrapped.py"),
    ("guarded_constant_layout", "train.py"), ("guarded_wrapper_layout", "train.py"),
    ("guarded_wrapper_module_layout", "train.py"), ("no_grad_step_layout", "run.py"),
    ("detection_repo_layout", "train.py"), ("reexport_layout", "train_none.py"),
])
def test_facts_read_back_from_the_store_keep_their_findings(tmp_path: Path, name: str, caller: str) -> None:
    """What these findings rest on (a method's loop of forwards, the scaler a base
    class's constructor builds, a step that hands its loss to a method that
    back-propagates it, which parameter bounds a helper's scheduler step, the tests it puts
    that parameter to, what a wrapper gives it, the flags under which a step back-propagates
    a loss of its own) survives the store: the caller, edited, is linted again with
    the other modules' facts read back, and keeps its findings; a name another module
    re-exports from torch (`GradScaler` of utils/misc.py) stays what it is, though the
    caller, told so up front, calls it by that name."""
    project, cached = _copy_with_cached_runs(tmp_path, name)
    expected = {(Path(path).name, line, code) for path, line, code in _marks(project)}
    assert cached() == expected
    edited = project / caller
    edited.write_text(edited.read_text() + "# edited\n")
    assert cached() == expected


def test_a_preset_of_loader_options_that_changes_its_split_is_followed_through_the_cache(tmp_path: Path) -> None:
    """wrapped.py calls presets.py, which returns what options.py builds: a preset
    that asks for another split, or a builder whose split defaults to another, moves
    the finding of the module two calls away."""
    project, cached = _copy_with_cached_runs(tmp_path, "loader_kwargs_layout")
    assert ("wrapped.py", 12, "TL302") in cached()
    presets = project / "presets.py"
    presets.write_text(presets.read_text().replace('loader_options(cfg, dataset, "train")', 'loader_options(cfg, dataset, "val")'))
    assert ("wrapped.py", 12, "TL302") not in cached()
    assert ("wrapped.py", 23, "TL302") in cached()
    options = project / "options.py"
    options.write_text(options.read_text().replace('def split_options(dataset, split="train")',
                                                   'def split_options(dataset, split="val")'))
    found = cached()
    assert ("wrapped.py", 23, "TL302") not in found and ("defaults.py", 9, "TL302") not in found


@pytest.mark.parametrize("how", ["created", "excluded"])
def test_a_module_two_imports_away_that_appears_later_is_followed_through_the_cache(tmp_path: Path, how: str) -> None:
    """train.py calls a.tidy(), which calls b.deep(), which empties the CUDA cache.
    a.py, with nothing to summarize, is a member only once b.py is a file of the
    run: when b.py appears after a cached run (created, brought back by a branch
    switch, no longer excluded), the cached run finds what a run without the cache
    finds."""
    (tmp_path / "train.py").write_text(
        "import torch\nfrom a import tidy\n"
        "for x in loader:\n    opt.zero_grad()\n    model(x).sum().backward()\n    opt.step()\n    tidy()\n")
    (tmp_path / "a.py").write_text("from b import deep\n\n\ndef tidy():\n    deep()\n")
    deep = "import torch\n\n\ndef deep():\n    torch.cuda.empty_cache()\n"
    selection = select_rules(None, [], [])

    def cached(exclude: list[str]) -> set[tuple[str, int, str]]:
        files = [str(p) for p in sorted(tmp_path.glob("*.py")) if p.name not in exclude]
        result = run(files, selection, Config(root=tmp_path), RunOptions(jobs=1, cache_dir=tmp_path / ".cache"))
        return {(Path(f.path).name, f.line, f.code) for f in result.findings}

    if how == "created":
        assert cached([]) == set()
        (tmp_path / "b.py").write_text(deep)
    else:
        (tmp_path / "b.py").write_text(deep)
        assert cached(["b.py"]) == set()
    assert cached([]) == {("train.py", 7, "TL201")}
    assert cached([]) == {("train.py", 7, "TL201")}


def test_a_configuration_kept_elsewhere_does_not_move_the_project(tmp_path: Path) -> None:
    """pre-commit with `args: [--config, configs/lint.toml]`: a file named alone gets
    the findings the run over its folder gives it; the configuration's folder holds
    none of the project's modules."""
    from cli_runner import invoke

    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "lint.toml").write_text("[tool.trainlint]\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "utils.py").write_text("import torch\n\n\ndef tidy():\n    torch.cuda.empty_cache()\n")
    (tmp_path / "src" / "train.py").write_text(
        "from utils import tidy\n"
        "for x in loader:\n    opt.zero_grad()\n    model(x).sum().backward()\n    opt.step()\n    tidy()\n")
    for named in ("src", "src/train.py"):
        _, out, _ = invoke("--config", "configs/lint.toml", named, "--no-cache", "-q", cwd=tmp_path)
        assert "src/train.py:6:5: TL201" in out, (named, out)


def test_a_package_linted_alone_resolves_imports_of_itself(tmp_path: Path) -> None:
    """No configuration file and every file inside one package (`proj/mypkg/`):
    `from mypkg.utils import free_memory` resolves from the package's parent,
    whether the path given is the package or the folder above it."""
    package = tmp_path / "proj" / "mypkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text("import torch\n\n\ndef free_memory():\n    torch.cuda.empty_cache()\n")
    (package / "train.py").write_text(
        "import torch\n"
        "from mypkg.utils import free_memory\n\n\n"
        "def train(model, loader):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "        free_memory()\n"
    )
    selection = select_rules(None, [], [])
    for given in (package, package.parent):
        result = run(_files(given), selection, Config(root=given), RunOptions(jobs=1))
        assert {(Path(f.path).name, f.line, f.code) for f in result.findings} == {("train.py", 11, "TL201")}


def test_a_module_that_does_nothing_shadows_a_farther_one_through_the_cache(tmp_path: Path) -> None:
    """scripts/train.py imports `utils`: the top-level utils.py until a
    scripts/utils.py exists, which holds nothing a summary tells (it is not
    even a member of the project). A cached run sees the new file: the
    finding that rested on the farther module goes, and comes back with
    the file removed."""
    project, cached = _copy_with_cached_runs(tmp_path, "sibling_import_layout")
    near = project / "scripts" / "utils.py"
    near.unlink()
    assert ("train.py", 14, "TL201") in cached()
    near.write_text("import gc\n\n\ndef free_memory():\n    gc.collect()\n")
    assert ("train.py", 14, "TL201") not in cached()
    near.unlink()
    assert ("train.py", 14, "TL201") in cached()


@pytest.mark.parametrize("project", sorted(p for p in PROJECTS.iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_each_file_linted_alone_gets_the_findings_of_the_whole_run(project: Path, tmp_path: Path) -> None:
    """What a pre-commit hook runs, one changed file at a time, and an editor, from
    standard input: each file of every project, named alone in a repository or
    read from stdin, gets exactly the findings the run over the whole project gives it, however far away the helpers it relies on are (a
    helper's helper, a package's re-export of a module imported whole)."""
    import json
    import shutil

    from cli_runner import invoke

    copy = tmp_path / project.name
    shutil.copytree(project, copy)
    if not (copy / "pyproject.toml").exists():
        (copy / "pyproject.toml").write_text("[tool.trainlint]\n")  # the repository's root
    for path in _files(copy):
        name = Path(path).relative_to(copy).as_posix()
        expected = expected_marks(Path(path).read_text(encoding="utf-8"))
        _, out, _ = invoke(name, "--no-cache", "--format", "json", cwd=copy)
        assert {(d["line"], d["code"]) for d in json.loads(out)} == expected, name
        # an editor's format-on-save: the same text through standard input
        _, out, _ = invoke("-", "--stdin-filename", name, "--format", "json", cwd=copy,
                           stdin=Path(path).read_bytes())
        assert {(d["line"], d["code"]) for d in json.loads(out)} == expected, f"{name} from stdin"


def test_a_step_through_a_helper_is_told_as_it_is() -> None:
    """The message says what the helper does: `step_only()` steps, the loop
    back-propagates; `train_step()`-like helpers do both."""
    project = PROJECTS / "deep_helpers_layout"
    result = run(_files(project), select_rules(None, [], []), Config(root=project), RunOptions(jobs=1))
    message = next(f.message for f in result.findings if f.code == "TL401" and "step_only" in f.message)
    assert message.startswith("`step_only()` steps `optimizer` after this loop's backward pass")


def test_a_file_linted_alone_follows_the_modules_it_imports(tmp_path: Path) -> None:
    """What a pre-commit hook runs: only the changed file is named. Its imports
    are read as in a run over the whole project, so it gets the same findings;
    the modules it imports are neither reported nor fixed."""
    from cli_runner import invoke

    project = tmp_path / "proj"
    shutil_copy = __import__("shutil").copytree
    shutil_copy(PROJECTS / "step_elsewhere_layout", project)
    (project / "pyproject.toml").write_text("[tool.trainlint]\n")
    helper = project / "amp_helpers.py"
    helper.write_text("import torch\n\n\ndef make_scaler():\n    return torch.cuda.amp.GradScaler()\n")
    engine = project / "engine.py"
    engine.write_text("import amp_helpers\n" + engine.read_text())
    whole = {line for line in invoke(".", "--no-cache", cwd=project)[1].splitlines() if line.startswith("train.py:")}
    assert len(whole) == 5
    for cache in ("--no-cache", None):
        args = ["train.py"] + ([cache] if cache else [])
        code, out, _ = invoke(*args, cwd=project)
        assert code == 1 and set(out.splitlines()[:-1]) == whole
    code, out, _ = invoke("train.py", "--fix", cwd=project)
    assert "torch.cuda.amp.GradScaler()" in helper.read_text(), "a module read for context is not fixed"


def test_a_package_beside_a_module_of_its_name_is_the_one_imported(tmp_path: Path) -> None:
    """`proj/utils/__init__.py` and `proj/utils.py`: Python imports the package, so
    `from .utils import release` runs the package's function, never the module's."""
    (tmp_path / "proj" / "utils").mkdir(parents=True)
    (tmp_path / "proj" / "__init__.py").write_text("")
    emptying = "import torch\n\n\ndef release():\n    torch.cuda.empty_cache()\n"
    quiet = "def release():\n    pass\n"
    (tmp_path / "proj" / "engine.py").write_text(
        "from .utils import release\n\n\ndef fit(model, loader, optimizer):\n    for x in loader:\n"
        "        optimizer.zero_grad()\n        model(x).sum().backward()\n        optimizer.step()\n"
        "        release()\n")
    for package, module, expected in ((quiet, emptying, set()), (emptying, quiet, {("proj/engine.py", 9, "TL201")})):
        (tmp_path / "proj" / "utils" / "__init__.py").write_text(package)
        (tmp_path / "proj" / "utils.py").write_text(module)
        assert _lint(tmp_path) == expected


def test_a_namespace_package_resolves_from_the_folder_named(tmp_path: Path) -> None:
    """`proj/` without `__init__.py`, run as `python -m proj.engine` from the folder
    `trainlint .` names: `from proj.utils import release` is that folder's module,
    though every file found lies in `proj/`."""
    import json

    from cli_runner import invoke

    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "utils.py").write_text("import torch\n\n\ndef release():\n    torch.cuda.empty_cache()\n")
    (tmp_path / "proj" / "engine.py").write_text(
        "from proj.utils import release\n\n\ndef fit(model, loader, optimizer):\n    for x in loader:\n"
        "        optimizer.zero_grad()\n        model(x).sum().backward()\n        optimizer.step()\n"
        "        release()\n")
    _, out, _ = invoke(".", "--no-cache", "--format", "json", cwd=tmp_path)
    assert [(d["path"], d["line"], d["code"]) for d in json.loads(out)] == [("proj/engine.py", 9, "TL201")]


@pytest.mark.parametrize("name", ["detection_repo_layout", "trainer_hooks_layout", "gan_rl_layout"])
def test_every_rule_selected_gives_the_marks_cold_and_cached(tmp_path: Path, name: str) -> None:
    """`--select TL` (preview rules too) over repositories shaped like public ones:
    the same findings as the default run, linted cold, then twice through one cache,
    also after a run of the default selection has filled it."""
    project = PROJECTS / name
    every = select_rules(["TL"], [], [])

    def findings(selection: Selection, cache: Path | None) -> set[tuple[str, int, str]]:
        result = run(_files(project), selection, Config(root=project), RunOptions(jobs=1, cache_dir=cache))
        return {(Path(f.path).relative_to(project).as_posix(), f.line, f.code) for f in result.findings}

    marks = _marks(project)
    assert findings(every, None) == marks
    cache = tmp_path / "cache"
    assert findings(select_rules(None, [], []), cache) == marks
    assert findings(every, cache) == findings(every, cache) == marks


def _fixable_amp_lines(project: Path, cache: Path | None) -> dict[str, list[int]]:
    """The lines of each file whose TL102 finding comes with a fix."""
    result = run(_files(project), select_rules(["TL102"], [], []), Config(root=project),
                 RunOptions(jobs=1, cache_dir=cache))
    found: dict[str, list[int]] = {}
    for f in result.findings:
        found.setdefault(Path(f.path).name, [])
        if f.fix is not None:
            found[Path(f.path).name].append(f.line)
    return found


def test_an_amp_api_patched_by_a_module_the_file_imports_is_not_rewritten(tmp_path: Path) -> None:
    """train_npu.py imports ports/npu.py, which replaces `torch.cuda.amp`'s autocast and
    GradScaler with the NPU's: the old spelling runs the port, `torch.amp` would not, so the
    findings stay without a fix. train_cuda.py imports a module that only tunes cuDNN: fixed.
    A cached run sees the port stop (and start again) patching."""
    import shutil

    project = tmp_path / "amp_patch_layout"
    shutil.copytree(PROJECTS / "amp_patch_layout", project)
    cache = tmp_path / "cache"
    patched = {"train_npu.py": [], "train_cuda.py": [9, 12]}
    assert _fixable_amp_lines(project, None) == _fixable_amp_lines(project, cache) == patched
    port = project / "ports" / "npu.py"
    text = port.read_text()
    port.write_text(text.replace("torch.cuda.amp.autocast = ", "autocast = ").replace("setattr(", "print("))
    assert _fixable_amp_lines(project, cache) == {"train_npu.py": [9, 12], "train_cuda.py": [9, 12]}
    port.write_text(text)
    assert _fixable_amp_lines(project, cache) == _fixable_amp_lines(project, cache) == patched


def test_an_amp_api_patched_by_a_module_imported_through_others_is_not_rewritten(tmp_path: Path) -> None:
    """train_npu.py imports launch.py, which imports device_setup.py, which imports the port
    (ports/npu.py) and launch.py back: no fix. train_cuda.py imports speed_setup.py, which
    imports only cuDNN's settings (and itself): fixed. A cached run sees the middle of the
    chain stop (and start again) importing the port."""
    import shutil

    project = tmp_path / "amp_patch_chain_layout"
    shutil.copytree(PROJECTS / "amp_patch_chain_layout", project)
    cache = tmp_path / "cache"
    patched = {"train_npu.py": [], "train_cuda.py": [8, 11]}
    assert _fixable_amp_lines(project, None) == _fixable_amp_lines(project, cache) == patched
    setup = project / "device_setup.py"
    text = setup.read_text()
    setup.write_text(text.replace("import ports.npu", "import ports.tuning"))
    assert _fixable_amp_lines(project, cache) == {"train_npu.py": [9, 12], "train_cuda.py": [8, 11]}
    setup.write_text(text)
    assert _fixable_amp_lines(project, cache) == _fixable_amp_lines(project, cache) == patched


_AMP_TRAIN = """import torch
import {module}


def train(model, batch):
    scaler = torch.cuda.amp.GradScaler()
    with torch.cuda.amp.autocast():
        loss = model(batch)
    scaler.scale(loss).backward()
"""
_PORT = "import torch\nimport torch_npu\n\ntorch.cuda.amp.autocast = torch_npu.npu.amp.autocast\n"


def test_an_amp_api_behind_a_chain_of_imports_too_long_to_follow_is_not_rewritten(tmp_path: Path) -> None:
    """train_far.py imports far0, which imports far1, ... up to the port far9, ten imports
    away: past the chain the project follows, what it patches is not known, so no fix.
    train_near.py imports near0 ... near7, as far as the chain is followed, and near7
    imports only `os`: fixed."""
    for name, length in (("far", 9), ("near", 7)):
        (tmp_path / f"train_{name}.py").write_text(_AMP_TRAIN.format(module=f"{name}0"))
        for step in range(length):
            (tmp_path / f"{name}{step}.py").write_text(f"import {name}{step + 1}\n")
    (tmp_path / "far9.py").write_text(_PORT)
    (tmp_path / "near7.py").write_text("import os\n")
    for cache in (None, tmp_path / "cache"):
        fixable = _fixable_amp_lines(tmp_path, cache)
        assert (fixable["train_far.py"], fixable["train_near.py"]) == ([], [6, 7])


@pytest.mark.parametrize("load", ['importlib.import_module("port")', '__import__("port")',
                                  'runpy.run_path("port.py")'])
def test_an_amp_api_after_a_module_that_imports_by_name_is_not_rewritten(tmp_path: Path, load: str) -> None:
    """launch.py loads the port by a name it spells in a call (`importlib.import_module`,
    `__import__`, `runpy`): which module runs is not followed, so it may patch AMP: no
    fix in train.py, which imports launch, nor in train_self.py, which loads it itself.
    plain.py only mentions `import_module` in a comment: train_plain.py keeps the fix."""
    (tmp_path / "port.py").write_text(_PORT)
    (tmp_path / "launch.py").write_text(f"import importlib\nimport runpy\n\n{load}\n")
    (tmp_path / "plain.py").write_text("import os  # not importlib.import_module\n")
    (tmp_path / "train.py").write_text(_AMP_TRAIN.format(module="launch"))
    (tmp_path / "train_self.py").write_text(_AMP_TRAIN.format(module=f"importlib\nimport runpy\n\n{load}"))
    (tmp_path / "train_plain.py").write_text(_AMP_TRAIN.format(module="plain"))
    for cache in (None, tmp_path / "cache"):
        fixable = _fixable_amp_lines(tmp_path, cache)
        assert (fixable["train.py"], fixable["train_self.py"], fixable["train_plain.py"]) == ([], [], [6, 7])


def test_a_star_import_of_a_package_that_imports_torch_keeps_the_fix(tmp_path: Path) -> None:
    """train.py does `from models import *`; the package's modules bind `torch` by `import
    torch` alone (vit.py) or keep their imports out of `__all__` (resnet.py): the fix to
    torch.amp is offered. train_backend.py star-imports a module that assigns `torch`: no
    fix. A cached run follows the package's modules as they change."""
    import shutil

    project = tmp_path / "star_torch_layout"
    shutil.copytree(PROJECTS / "star_torch_layout", project)
    cache = tmp_path / "cache"
    fixed = {"train.py": [9, 12], "train_backend.py": []}
    refused = {"train.py": [], "train_backend.py": []}
    assert _fixable_amp_lines(project, None) == _fixable_amp_lines(project, cache) == fixed
    vit, resnet = project / "models" / "vit.py", project / "models" / "resnet.py"
    vit_text, resnet_text = vit.read_text(), resnet.read_text()
    vit.write_text(vit_text.replace("import torch\n", "from backend import torch\n", 1))
    assert _fixable_amp_lines(project, cache) == _fixable_amp_lines(project, None) == refused
    vit.write_text(vit_text)
    assert _fixable_amp_lines(project, cache) == fixed
    # resnet.py binds `torch` otherwise, behind an `__all__` that leaves it out; then without it
    # (from a stand-in: backend.py loads a module by name, which may patch anything of torch)
    (project / "stand_in.py").write_text("torch = object()\n")
    resnet.write_text(resnet_text.replace(
        "import torch.nn as nn\n", "import torch.nn as nn\nfrom stand_in import torch\n"))
    assert _fixable_amp_lines(project, cache) == _fixable_amp_lines(project, None) == fixed
    hidden = resnet.read_text()
    resnet.write_text(hidden.replace('__all__ = ["ResNet"]\n',
                                     'if __name__ != "__main__":\n    __all__ = ["ResNet"]\n'))
    assert _fixable_amp_lines(project, cache) == refused  # an `__all__` under an `if` may not be there
    resnet.write_text(hidden.replace('__all__ = ["ResNet"]\n', ""))
    assert _fixable_amp_lines(project, cache) == _fixable_amp_lines(project, None) == refused
    # a cycle of star imports: what it binds is never settled
    resnet.write_text(resnet_text.replace('__all__ = ["ResNet"]\n', "") + "from models import *\n")
    assert _fixable_amp_lines(project, cache) == _fixable_amp_lines(project, None) == refused


_HELPER = "def helper():\n    pass\n"
_IMPORTS_HELPERS = "\nimport helpers  # noqa: E402\n"


@pytest.mark.parametrize(("added", "fixed"), [
    # a package's submodule `torch` that nothing imports: the star import binds torch
    ({"models/torch.py": _HELPER}, [9, 12]),
    ({"models/torch/__init__.py": ""}, [9, 12]),
    # imported by the package itself, or by a module the file imports: the package's `torch`
    ({"models/torch.py": _HELPER, "models/__init__.py": "from .torch import helper\n"}, []),
    ({"models/torch/__init__.py": "", "models/__init__.py": "from . import torch as backend\n"}, []),
    ({"models/torch.py": _HELPER, "helpers.py": "import models.torch\n", "train.py": _IMPORTS_HELPERS}, []),
    ({"models/torch.py": _HELPER, "helpers.py": "from models import torch\n", "train.py": _IMPORTS_HELPERS}, []),
    # another package's submodule `torch`: not the one the star import reads
    ({"models/torch.py": _HELPER, "other/__init__.py": "", "other/torch.py": _HELPER,
      "helpers.py": "import other.torch\n", "train.py": _IMPORTS_HELPERS}, [9, 12]),
    # a namespace package `models/torch/`: no file of the run says who imports it
    ({"models/torch/ops.py": "SCALE = 2\n"}, []),
])
def test_a_star_import_of_a_package_with_a_submodule_torch_keeps_the_fix_until_it_is_imported(
        tmp_path: Path, added: dict[str, str], fixed: list[int]) -> None:
    """A submodule `models/torch.py` becomes the package's `torch` only once something
    imports it: the package's `__init__.py`, or a module the file's imports run. Until
    then `from models import *` binds `torch` to torch, and the fix is offered."""
    import shutil

    project = tmp_path / "star_torch_layout"
    shutil.copytree(PROJECTS / "star_torch_layout", project)
    for name, text in added.items():
        target = project / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((target.read_text() if target.exists() else "") + text)
    assert _fixable_amp_lines(project, None)["train.py"] == fixed
    assert _fixable_amp_lines(project, tmp_path / "cache")["train.py"] == fixed


@pytest.mark.parametrize(("changed", "fixed"), [
    ({}, [6, 10]),  # utils.py: `import torch` and helpers: read, and it binds torch
    ({"utils.py": "def backend():\n    return None\n\n\ntorch = backend()\n"}, []),  # it rebinds it
    ({"utils.py": "from backend import *\n", "backend.py": "torch = None\n"}, []),  # so does its own star import
    ({"utils.py": "LR = 0.1\n"}, [6, 10]),  # constants only: no member, and it binds no torch
    ({"utils.py": None}, []),  # not linted: what it binds is not known
])
def test_a_star_import_of_a_plain_helper_module_is_read_for_how_it_binds_torch(
        tmp_path: Path, changed: dict[str, str | None], fixed: list[int]) -> None:
    """star_import_layout's train.py (given an `import torch` of its own) does `from utils
    import *`, a module of helper functions (`def accuracy`): it is read, and it binds
    `torch` to torch, so the fix is offered, until it binds `torch` otherwise or cannot
    be read."""
    import shutil

    project = tmp_path / "star_import_layout"
    shutil.copytree(PROJECTS / "star_import_layout", project)
    train = project / "train.py"
    train.write_text("import torch\n" + train.read_text())
    for name, text in changed.items():
        if text is None:
            (project / name).unlink()
        else:
            (project / name).write_text(text)
    assert _fixable_amp_lines(project, None)["train.py"] == fixed
    assert _fixable_amp_lines(project, tmp_path / "cache")["train.py"] == fixed


_VIT = Path("models") / "vit.py"
_RESNET = Path("models") / "resnet.py"


@pytest.mark.parametrize(("changed", "added"), [
    # `__all__` hands on what a module-level `__getattr__` returns for "torch"
    (_VIT, '__all__ = ["torch", "ViT"]\n\n\ndef __getattr__(name):\n    return None\n'),
    (_RESNET, '\n\ndef __getattr__(name):\n    return None\n'),
    (_RESNET, '__all__ = ["ResNet", "torch"]\n'),
    (_VIT, "type torch = int\n"),
    # writes to the module's globals by name
    (_VIT, 'globals()["torch"] = None\n'),
    (_VIT, "globals().update(torch=None)\n"),
    (_VIT, "vars().update(torch=None)\n"),
    (_VIT, 'import sys\nsetattr(sys.modules[__name__], "torch", None)\n'),
    (_VIT, 'exec("torch = None")\n'),
    (_RESNET, 'import numpy as torch\nglobals()["__all__"].append("torch")\n'),
])
def test_a_star_import_of_a_module_that_may_bind_torch_otherwise_withholds_the_fix(
        tmp_path: Path, changed: Path, added: str) -> None:
    """The star_torch_layout's train.py is fixed (see above) until a star-imported module
    may bind `torch` to something else: a module-level
    `__getattr__`, `"torch"` in an `__all__` without `import torch`, `type torch = ...`,
    or a write to its globals by name."""
    import shutil

    project = tmp_path / "star_torch_layout"
    shutil.copytree(PROJECTS / "star_torch_layout", project)
    target = project / changed
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text((target.read_text() if target.exists() else "") + added)
    assert _fixable_amp_lines(project, None)["train.py"] == []


def test_a_scaler_handed_to_a_helper_of_another_module_gets_no_fix() -> None:
    """scaler_hook_layout/train.py hands its scalers to helpers of other modules, one of
    which (events.py, which the linter does not summarize) subscribes a callback updating
    it, two of which register an optimizer step hook updating it: an `update()` added after
    the step could run twice, so no finding there has a fix, but the one whose helper only
    prints the scale (`report_scale(scaler)`, line 91; not `report_and_keep(scaler, kept)`,
    which also keeps it). The hooked ones say why the hook is
    not enough (a skipped step does not run it)."""
    project = PROJECTS / "scaler_hook_layout"
    result = run(_files(project), select_rules(["TL104"], [], []), Config(root=project), RunOptions(jobs=1))
    assert [f.line for f in result.findings if f.fix is not None] == [91]
    assert len(result.findings) == 8
    hooked = [f.line for f in result.findings if "step hook" in f.message]
    assert hooked == [18, 30]
