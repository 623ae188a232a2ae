"""The README's Python examples type-check against the package's stubs (mypy), and
print what their comments say."""
import os
import re
import subprocess
import sys

from conftest import ROOT

README = ROOT / "README.md"


def python_examples() -> str:
    return "\n".join(re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S))


def mypy(source: str, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / "readme_examples.py"
    path.write_text(source)
    env = dict(os.environ, MYPYPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental",
                           "--cache-dir", str(tmp_path / "cache"), str(path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)


def test_readme_examples_type_check(tmp_path):
    source = python_examples()
    assert "Searcher().search(" in source and "MateSolver().solve(" in source
    result = mypy(source, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_type_check_sees_the_stubs(tmp_path):
    """A misspelt keyword must be caught: the examples are checked, not waved through."""
    source = python_examples() + "\nSearcher().search(pos, dpth=8)\n"
    result = mypy(source, tmp_path)
    assert result.returncode != 0 and "dpth" in result.stdout


def test_readme_example_prints_what_its_comments_say():
    from usi_engine import Position
    pos = Position()
    assert len(pos.legal_moves()) == 30
    pos.push_usi("7g7f")
    comment = re.search(r"print\(pos\.perft\(4\)\)\s+# ([0-9]+)", python_examples())
    assert comment and pos.perft(4) == int(comment.group(1))
