"""`read_record` and `write_record`: formats by name, guessed from a file's extension
or its text, and text decoding (UTF-8 with or without BOM, else CP932)."""
from __future__ import annotations

import os
from pathlib import Path

from usi_engine.record.model import Record, RecordError

FORMATS = ("kif", "ki2", "csa", "jkf", "usi")
EXTENSIONS = {".kif": "kif", ".kifu": "kif", ".ki2": "ki2", ".ki2u": "ki2", ".csa": "csa",
              ".jkf": "jkf", ".json": "jkf", ".usi": "usi", ".sfen": "usi"}


def decode(data: bytes, source: str | None = None) -> str:
    """Record bytes as text: UTF-8 (BOM or not; ``.kifu``/``.ki2u`` are UTF-8), else
    CP932 (Shift_JIS, the ``.kif``/``.ki2``/``.csa`` default)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if source and Path(source).suffix.lower() in (".kifu", ".ki2u", ".jkf"):
        raise RecordError("not UTF-8 text (a .kifu file is UTF-8)", source)
    try:
        return data.decode("cp932")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise RecordError("neither UTF-8 nor CP932 (Shift_JIS) text", source, line) from None


def guess_format(text: str, source: str | None = None) -> str:
    """The format of a record: from the extension, else from the text."""
    if source:
        fmt = EXTENSIONS.get(Path(source).suffix.lower())
        if fmt:
            return fmt
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{"):
        return "jkf"
    lines = [line.strip() for line in stripped.splitlines() if line.strip()]
    if any(line.startswith(("position ", "startpos", "sfen ")) for line in lines[:3]):
        return "usi"
    if any(line[:2] in ("V2", "V3", "PI", "P1", "N+", "N-") or line.startswith("$")
           or (len(line) >= 7 and line[0] in "+-" and line[1:5].isdigit()) for line in lines[:50]):
        return "csa"
    import re
    if any(re.match(r"^[0-9]+\s+\S", line) for line in lines):
        return "kif"
    if any(line[0] in "▲△☗☖" for line in lines):
        return "ki2"
    if lines and len(lines[0].split()) in (3, 4) and lines[0].count("/") == 8:
        return "usi"
    return "kif"


def read_record(path_or_text: str | os.PathLike | bytes, format: str | None = None) -> list[Record]:
    """The games of a record file (a path) or text: a list of `Record`.

    `format` is one of "kif" (KIF/KIFU), "ki2", "csa", "jkf", "usi" (``position``
    lines or SFENs); None guesses it from the extension, else from the text.  Raises
    `RecordError` naming the file and line of what could not be read (an illegal move
    among them), OSError when a file cannot be opened."""
    source = None
    if isinstance(path_or_text, bytes):
        text = decode(path_or_text)
    elif isinstance(path_or_text, os.PathLike) or (
            isinstance(path_or_text, str) and "\n" not in path_or_text
            and len(path_or_text) < 4096 and Path(path_or_text).suffix.lower() in EXTENSIONS
            and Path(path_or_text).exists()):
        source = os.fspath(path_or_text)
        text = decode(Path(source).read_bytes(), source)
    else:
        text = str(path_or_text)
    text = text.lstrip("\ufeff")
    fmt = (format or guess_format(text, source)).lower()
    if fmt in ("kifu",):
        fmt = "kif"
    if fmt not in FORMATS and fmt != "sfen":
        raise RecordError(f"unknown format {format!r}; expected one of {', '.join(FORMATS)}",
                          source)
    if fmt in ("kif", "ki2"):
        from usi_engine.record.kif import read_kif
        return read_kif(text, source, ki2=(fmt == "ki2"))
    if fmt == "csa":
        from usi_engine.record.csa import read_csa
        return read_csa(text, source)
    if fmt == "jkf":
        from usi_engine.record.jkf import read_jkf
        return read_jkf(text, source)
    from usi_engine.record.usi import read_usi
    return read_usi(text, source)


def write_record(record: Record, format: str) -> str:
    """The record as text in `format` ("kif", "ki2", "csa", "jkf", "usi"); encode KIF
    as CP932 for a .kif file (`encode_record`), UTF-8 otherwise.  RecordError if a move
    is illegal."""
    fmt = format.lower()
    try:
        if fmt in ("kif", "kifu"):
            from usi_engine.record.kif import write_kif
            return write_kif(record)
        if fmt == "ki2":
            from usi_engine.record.kif import write_ki2
            return write_ki2(record)
        if fmt == "csa":
            from usi_engine.record.csa import write_csa
            return write_csa(record)
        if fmt == "jkf":
            from usi_engine.record.jkf import write_jkf
            return write_jkf(record)
        if fmt in ("usi", "sfen"):
            from usi_engine.record.usi import write_usi
            return write_usi(record)
    except (KeyError, ValueError) as exc:
        if isinstance(exc, RecordError):
            raise
        raise RecordError(f"cannot write the record as {fmt}: {exc}", record.source or None) from None
    raise RecordError(f"unknown format {format!r}; expected one of {', '.join(FORMATS)}")


def write_records(records: list[Record], format: str) -> str:
    """Several games in one text: CSA separated by ``/`` lines, USI one line each;
    KIF, KI2 and JKF hold one game per file, so they are written one after another
    (KIF/KI2 separated by a blank line; JKF one object per line)."""
    texts = [write_record(r, format) for r in records]
    if format.lower() == "csa":
        return "/\n".join(texts)
    if format.lower() in ("kif", "ki2"):
        return "\n".join(texts)
    return "".join(texts)


def encode_record(text: str, path: str | os.PathLike | None) -> bytes:
    """Bytes for a file: CP932 for .kif/.ki2/.csa (the customary encoding; UTF-8 when
    the text has characters CP932 lacks), UTF-8 otherwise."""
    suffix = Path(path).suffix.lower() if path else ""
    if suffix in (".kif", ".ki2", ".csa"):
        try:
            return text.encode("cp932")
        except UnicodeEncodeError:
            pass
    return text.encode("utf-8")
