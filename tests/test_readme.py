"""The README's examples run as written: its Python blocks execute, its C block compiles and runs."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


@pytest.mark.parametrize("index", range(len(re.findall(r"```python\n", README))))
def test_python_block_runs(index, capsys):
    block = re.findall(r"```python\n(.*?)```", README, re.S)[index]
    if block.startswith(("# needs a board", "# needs an arm")):
        pytest.skip("needs hardware: " + block.splitlines()[0])
    code = compile(block, f"README.md python block {index}", "exec")
    if "SimulatedPiper" not in block:
        exec(code, {})
        return
    # The driving examples keep the driver's real 0.1 s feedback deadline against a simulated arm on
    # its own thread. On a loaded 2-core CI host that thread was once starved for 102 ms (CI of
    # 246a91a): the driver stopped as designed. That one wall-clock cause alone gets a second run, on
    # a fresh driver and simulator; every other error, and a second stale feedback, fails.
    from piperik.agilex.driver import FeedbackStaleError

    ns: dict = {}
    try:
        exec(code, ns)
    except FeedbackStaleError:
        for name in ("drv", "sim"):
            if name in ns:
                ns[name].close()
        exec(code, {})


def test_c_block_compiles_and_runs(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on PATH")
    block = re.findall(r"```c\n(.*?)```", README, re.S)[0]
    include, body = block.split("\n", 1)
    program = tmp_path / "readme_example.c"
    program.write_text(f'{include}\n#include <stdio.h>\nint main(void)\n{{\n{body}\n'
                       'printf("%d solutions, selected %d\\n", set.count, sel.index);\n'
                       'return set.count == 8 && sel.index >= 0 ? 0 : 1;\n}\n')
    sources = [str(p) for p in sorted((ROOT / "csrc" / "src").glob("*.c"))] + [str(ROOT / "tables" / "pik_trig_table.c")]
    exe = tmp_path / "readme_example"
    subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2",
                    f"-I{ROOT / 'csrc' / 'include'}", str(program), *sources, "-lm", "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
