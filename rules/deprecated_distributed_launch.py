from __future__ import annotations

import re

import libcst as cst

from trainlint.context import FileContext
from trainlint.analysis.literals import string_value
from trainlint.analysis.scopes import dotted_name, import_from_module
from trainlint.analysis.walk import iter_nodes
from trainlint.rule import Rule

LAUNCH = "torch.distributed.launch"
# `-m torch.distributed.launch` in a command line; not `torch.distributed.launcher`
_TORCHRUN = re.compile(r"(?<![\w.])torchrun(?![\w])|torch\.distributed\.run(?![\w])")
_COMMAND = re.compile(r"-m\s+torch\.distributed\.launch(?![\w])")


class DeprecatedDistributedLaunch(Rule):
    """
    ## What it does
    Flags `torch.distributed.launch` where code uses it: imported
    (`import torch.distributed.launch`, `from torch.distributed import launch`),
    reached as an attribute (`torch.distributed.launch.main()`), or named in a
    command that starts it: a list element `"torch.distributed.launch"`
    (`["python", "-m", "torch.distributed.launch", ...]`) or a string, f-string
    or template containing `-m torch.distributed.launch`.

    ## Why is this bad?
    `torch.distributed.launch` is deprecated in favor of `torchrun`, which
    sets `LOCAL_RANK` in the environment instead of passing `--local_rank`,
    restarts failed workers and supports elastic jobs. The old launcher prints
    a deprecation warning and is due for removal; scripts that parse
    `--local_rank` break when started with `torchrun`.

    ## Example
    ```python
    cmd = ["python", "-m", "torch.distributed.launch", "--nproc_per_node=8", "train.py"]
    ```

    ## Use instead
    ```python
    cmd = ["torchrun", "--nproc_per_node=8", "train.py"]
    ```

    ## Fix safety
    No fix: `torchrun` passes the local rank differently, so the launched
    script may need changes too.

    ## Limitations
    Docstrings and prose that mention the module without `-m` (a help text
    saying "set by torch.distributed.launch") are not flagged, nor are shell
    scripts and YAML files. `torch.distributed.launcher.api` (torchrun's own
    API) and `paddle.distributed.launch` are different modules. A command
    string in a function that also names `torchrun` or
    `torch.distributed.run` is taken as a fallback for old PyTorch versions
    and not flagged, even when the choice between them is the user's.
    """

    code = "TL303"
    name = "deprecated-distributed-launch"
    severity = "warning"
    message = "`torch.distributed.launch` is deprecated: use `torchrun`"
    triggers = ("launch",)
    bad = (
        "import subprocess\n"
        "cmd = [\n"
        "    'python', '-m',\n"
        "    'torch.distributed.launch',  # expect: TL303\n"
        "    '--nproc_per_node=4', 'train.py',\n"
        "]\n"
        "subprocess.run(cmd, check=True)\n",
        "import os\n"
        "os.system(f'python -m torch.distributed.launch --nproc_per_node={n} train.py')  # expect: TL303\n",
        "import torch.distributed.launch  # expect: TL303\n",
        "from torch.distributed import launch  # expect: TL303\n"
        "launch.main()\n",
        "import torch\n"
        "if __name__ == '__main__':\n"
        "    torch.distributed.launch.main()  # expect: TL303\n",
        "TEMPLATE = 'python -m torch.distributed.launch --nproc_per_node {gpus} {script}'  # expect: TL303\n"
        "script = TEMPLATE.format(gpus=8, script='train.py')\n",
        "import torch.distributed as dist\n"
        "dist.launch.main(['--nproc_per_node', '2', 'train.py'])  # expect: TL303\n",
    )
    good = (
        # torchrun's own API
        "from torch.distributed.launcher.api import LaunchConfig, elastic_launch\n"
        "config = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=4)\n"
        "elastic_launch(config, train)()\n",
        # another framework's launcher
        "import subprocess\n"
        "subprocess.run(['python', '-m', 'paddle.distributed.launch', 'train.py'])\n",
        "cmd = ['torchrun', '--nproc_per_node=4', 'train.py']\n",
        # prose, not a command
        "import argparse\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--local_rank', type=int, help='set by torch.distributed.launch')\n",
        "def main():\n"
        "    '''Run with python -m torch.distributed.launch --nproc_per_node 2 main.py'''\n"
        "# python -m torch.distributed.launch train.py\n",
        # a fallback for PyTorch versions without torchrun
        "import importlib.util, sys\n"
        "def command(script):\n"
        "    if importlib.util.find_spec('torch.distributed.run') is not None:\n"
        "        return [sys.executable, '-m', 'torch.distributed.run', script]\n"
        "    return [sys.executable, '-m', 'torch.distributed.launch', '--use_env', script]\n",
        "import torch.distributed.launcher as launcher\n"
        "cmd = 'python -m torch.distributed.launcher_helper'\n",
        # the same fallback written with f-strings
        "def command(script, nproc, legacy):\n"
        "    if legacy:\n"
        "        return f'python -m torch.distributed.launch --nproc_per_node={nproc} {script}'\n"
        "    return f'torchrun --nproc_per_node={nproc} {script}'\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._attributes: list[cst.Attribute] = []
        self._strings: list[cst.BaseString] = []
        self._in_import = False

    def visit_Import(self, node: cst.Import) -> None:
        if any(_is_launch(dotted_name(alias.name)) for alias in node.names):
            self.report(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = import_from_module(node)
        if _is_launch(module):
            self.report(node)
        elif module == "torch.distributed" and type(node.names) is not cst.ImportStar:
            if any(dotted_name(alias.name) == "launch" for alias in node.names):
                self.report(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "launch" and not self._in_import:
            self._attributes.append(node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = string_value(node)
        if value is not None and (value.strip() == LAUNCH or _COMMAND.search(value)):
            self._strings.append(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        text = "".join(p.value for p in node.parts if type(p) is cst.FormattedStringText)
        if _COMMAND.search(text):
            self._strings.append(node)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        self._in_import = True

    def leave_ImportAlias(self, node: cst.ImportAlias) -> None:
        self._in_import = False

    def finish(self) -> None:
        for attribute in self._attributes:
            if self.ctx.qualified_name(attribute) == LAUNCH:
                self.report(attribute)
        for string in self._strings:
            if not self._is_docstring(string) and not self._beside_torchrun(string):
                self.report(string)

    def _beside_torchrun(self, string: cst.BaseString) -> bool:
        """The same function also names torchrun: the old launcher is a
        fallback there, not the way the code starts jobs."""
        function = self.ctx.enclosing_function(string)
        if function is None:
            return False
        for node in iter_nodes(function):
            if type(node) is cst.SimpleString:
                value = string_value(node)
            elif type(node) is cst.FormattedString:  # the text between the `{...}` parts
                value = " ".join(part.value for part in node.parts if type(part) is cst.FormattedStringText)
            else:
                continue
            if value is not None and _TORCHRUN.search(value):
                return True
        return False

    def _is_docstring(self, string: cst.BaseString) -> bool:
        """A string statement on its own: documentation, not a command."""
        parent = self.ctx.parent(string)
        while type(parent) is cst.ConcatenatedString:
            parent = self.ctx.parent(parent)
        return type(parent) is cst.Expr


def _is_launch(module: str | None) -> bool:
    return module is not None and (module == LAUNCH or module.startswith(LAUNCH + "."))
