"""The README's Python examples print what their comments say (their type check:
test_typing.py)."""
import re

from conftest import ROOT

README = ROOT / "README.md"


def python_examples() -> str:
    return "\n".join(re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S))


def test_readme_example_prints_what_its_comments_say():
    from usi_engine import Position
    pos = Position()
    assert len(pos.legal_moves()) == 30
    pos.push_usi("7g7f")
    comment = re.search(r"print\(pos\.perft\(4\)\)\s+# ([0-9]+)", python_examples())
    assert comment and pos.perft(4) == int(comment.group(1))
