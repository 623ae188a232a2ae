"""The documents name only what exists: every repository path a page names is there,
and no page tells a user to install a package name that no index has."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOP_FOLDERS = ("usi_engine/", "bench/", "tests/", "docs/", "tools/", "sfen/", ".ci/",
               ".github/")
#: a path of the repository as the pages write it: a top folder, then path characters
#: (with ``*`` and ``{a,b}``: a pattern, which must match at least one file)
PATH = re.compile(r"(?<![\w./-])((?:\.\./)?(?:%s)[\w./*-]*(?:\{[\w,]*\}[\w./*-]*)*)"
                  % "|".join(re.escape(top) for top in TOP_FOLDERS))
#: git-ignored output folders that the scripts make; named in the pages, never tracked
OUTPUT_FOLDERS = ("bench/out/",)


def pages() -> list[Path]:
    found = [ROOT / "README.md"]
    for folder in ("docs", "bench", "tools", "tests"):
        found += sorted((ROOT / folder).rglob("*.md"))
    return [page for page in found if ".venv" not in page.parts]


def named_paths(page: Path) -> list[str]:
    names = []
    for match in PATH.finditer(page.read_text(encoding="utf-8")):
        name = match.group(1).rstrip(".,:;")
        if name.startswith(OUTPUT_FOLDERS) or re.search(r"[A-Z]{3,}\.", name):
            continue                   # an output, or a placeholder such as FILE.jsonl
        names.append(name)
    return names


def expanded(name: str) -> list[str]:
    """``a{1,2}b`` as ``a1b``, ``a2b``."""
    braces = re.search(r"\{([\w,]*)\}", name)
    if braces is None:
        return [name]
    return [spelled for choice in braces.group(1).split(",")
            for spelled in expanded(name[:braces.start()] + choice + name[braces.end():])]


def exists(page: Path, name: str) -> bool:
    """Relative to the repository root, or to the page's own folder (bench/README.md
    writes ``tools/make_openings.py`` for ``bench/tools/make_openings.py``); every
    spelling of a pattern matches a file."""
    def one(spelled: str) -> bool:
        if "*" in spelled:
            return any(base.glob(spelled) for base in (ROOT, page.parent))
        return (ROOT / spelled).exists() or (page.parent / spelled).exists()
    return all(one(spelled) for spelled in expanded(name))


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_every_path_a_page_names_exists(page):
    missing = sorted({name for name in named_paths(page) if not exists(page, name)})
    assert missing == [], f"{page.relative_to(ROOT)} names paths that do not exist: {missing}"


def test_the_path_check_sees_a_missing_path(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Run `bench/no_such_script.py`, then read docs/architecture.md and "
                    "`sfen/tsume/generated-mate{1,4}.txt`.\n")
    assert named_paths(page) == ["bench/no_such_script.py", "docs/architecture.md",
                                 "sfen/tsume/generated-mate{1,4}.txt"]
    assert not exists(page, "bench/no_such_script.py") and exists(page, "docs/architecture.md")
    assert not exists(page, "sfen/tsume/generated-mate{1,4}.txt")
    assert exists(page, "sfen/tsume/generated-mate{1,3}.txt") and exists(page, "sfen/*.txt")


def sources() -> list[Path]:
    return pages() + sorted((ROOT / "usi_engine").rglob("*.py"))


def test_no_page_or_help_installs_a_package_name_no_index_has():
    # (the package is installed from its checkout; "usi-engine[extra]" is on no index)
    wrong = [str(path.relative_to(ROOT)) for path in sources()
             if re.search(r"pip install \\?[\"']?usi-engine\[", path.read_text(encoding="utf-8"))]
    assert wrong == []
