"""The USI option table: declarations, the ``usi`` reply lines and ``setoption``.

Every option the engine offers is declared once, in :data:`DEFAULT_OPTIONS`, as an
:class:`OptionSpec`. :class:`Options` holds the current values, looks names up
case-insensitively (USI names are case-insensitive), and turns ``setoption`` text
into new values. Bad input never raises: :meth:`Options.set` returns the messages the
protocol loop should print as ``info string ...`` and leaves the value unchanged (or
clamped, for an out-of-range spin).

Example::

    >>> opts = Options()
    >>> opts["usi_hash"]
    256
    >>> opts.set("USI_Hash", "99999")
    []
    >>> opts.set("USI_Hash", "9999999")
    ['USI_Hash: 9999999 is above the maximum 1048576; set to 1048576']
    >>> opts["USI_Hash"]
    1048576
    >>> opts.set("USI_MultiPV", "3"), opts["MultiPV"]
    ([], 3)
    >>> opts.usi_lines()[0]
    'option name USI_Hash type spin default 256 min 1 max 1048576'

Other modules add their own options by extending the table, e.g.
``Options(DEFAULT_OPTIONS + (spin("MateDepth", 0, 0, 255, "..."),))`` or
``opts.add(check("Foo", False))``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Union

from usi_engine.usi.record import Record

__all__ = [
    "OPTION_TYPES",
    "OptionSpec",
    "OptionValue",
    "Options",
    "DEFAULT_OPTIONS",
    "DEFAULT_ALIASES",
    "EMPTY",
    "button",
    "check",
    "combo",
    "filename",
    "spin",
    "string",
]

#: The option types of the USI specification.
OPTION_TYPES = ("check", "spin", "combo", "button", "string", "filename")

#: How USI writes an empty string, both in ``option`` lines and in ``setoption``.
EMPTY = "<empty>"

#: A stored value: ``bool`` (check), ``int`` (spin), ``str`` (combo/string/filename),
#: ``None`` (button, which has no state).
OptionValue = Union[bool, int, str, None]

# An integer as USI sends it. Stricter than int(), which would also take "1_000"
# or surrounding whitespace that we want to report rather than guess about.
_INT_RE = re.compile(r"[+-]?[0-9]+")


class OptionSpec(Record):
    """One declared option.

    Build specs with the helpers :func:`spin`, :func:`check`, :func:`combo`,
    :func:`string`, :func:`filename` and :func:`button`, which check that the
    declaration is consistent (``ValueError`` naming the bad field otherwise).

    Example::

        >>> spin("MultiPV", 1, 1, 500).usi_line()
        'option name MultiPV type spin default 1 min 1 max 500'
    """

    __slots__ = ("name", "type", "default", "min", "max", "vars", "doc")
    name: str
    type: str
    default: OptionValue
    min: int | None
    max: int | None
    vars: tuple[str, ...]
    doc: str

    def __init__(self, name: str, type: str, default: OptionValue = None,
                 min: int | None = None, max: int | None = None, vars: tuple[str, ...] = (),
                 doc: str = "") -> None:
        for field, value in (("name", name), ("type", type), ("default", default),
                             ("min", min), ("max", max), ("vars", vars), ("doc", doc)):
            object.__setattr__(self, field, value)
        # Validate at declaration time so a bad table fails at import, in tests,
        # rather than as a confusing `usi` reply in a GUI.
        self._check()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"OptionSpec is frozen: cannot set {name}")

    def __hash__(self) -> int:
        return hash(self.field_values())

    def _check(self) -> None:
        if not self.name or any(c.isspace() for c in self.name):
            raise ValueError(f"option name: {self.name!r} must be non-empty and contain no spaces")
        if self.type not in OPTION_TYPES:
            raise ValueError(f"option {self.name}: type {self.type!r} is not one of {OPTION_TYPES}")
        if self.type == "spin":
            if not (isinstance(self.min, int) and isinstance(self.max, int)):
                raise ValueError(f"option {self.name}: spin needs integer min and max")
            if self.min > self.max:
                raise ValueError(f"option {self.name}: min {self.min} > max {self.max}")
            if not isinstance(self.default, int) or isinstance(self.default, bool):
                raise ValueError(f"option {self.name}: spin default must be an int")
            if not self.min <= self.default <= self.max:
                raise ValueError(
                    f"option {self.name}: default {self.default} outside {self.min}..{self.max}"
                )
        elif self.type == "check":
            if not isinstance(self.default, bool):
                raise ValueError(f"option {self.name}: check default must be a bool")
        elif self.type == "combo":
            if not self.vars:
                raise ValueError(f"option {self.name}: combo needs at least one var")
            if any(not v or any(c.isspace() for c in v) for v in self.vars):
                raise ValueError(f"option {self.name}: combo vars must be non-empty words")
            if self.default not in self.vars:
                raise ValueError(f"option {self.name}: default {self.default!r} is not a var")
        elif self.type in ("string", "filename"):
            if not isinstance(self.default, str):
                raise ValueError(f"option {self.name}: {self.type} default must be a str")
        elif self.type == "button" and self.default is not None:
            raise ValueError(f"option {self.name}: a button has no default")

    def usi_line(self) -> str:
        """The ``option name ... type ...`` line of the ``usi`` reply."""
        line = f"option name {self.name} type {self.type}"
        if self.type == "button":
            return line
        default: str
        if self.type == "check":
            default = "true" if self.default else "false"
        elif self.type in ("string", "filename"):
            default = str(self.default) if self.default else EMPTY
        else:
            default = str(self.default)
        line += f" default {default}"
        if self.type == "spin":
            line += f" min {self.min} max {self.max}"
        elif self.type == "combo":
            line += "".join(f" var {v}" for v in self.vars)
        return line

    def parse(self, text: str | None) -> tuple[OptionValue, list[str], bool]:
        """Turn ``setoption`` value text into a value for this option.

        Returns ``(value, messages, accepted)``; when ``accepted`` is false the
        caller keeps the old value. A clamped spin is accepted *and* reported.

        Example::

            >>> spin("X", 5, 0, 10).parse("12")
            (10, ['X: 12 is above the maximum 10; set to 10'], True)
        """
        name = self.name
        if self.type == "button":
            # A button carries no value; anything sent along is harmless.
            return None, [], True
        if self.type in ("string", "filename"):
            # Some GUIs send "value" with nothing after it (or no "value" at all)
            # for an empty path; treat that like the spec's <empty>.
            if text is None or text.strip() == EMPTY:
                return "", [], True
            return text.strip(), [], True
        if text is None or not text.strip():
            return None, [f"{name}: missing value"], False
        word = text.strip()
        if self.type == "check":
            lowered = word.lower()
            if lowered in ("true", "false"):
                return lowered == "true", [], True
            return None, [f"{name}: {word!r} is not true or false; unchanged"], False
        if self.type == "spin":
            if not _INT_RE.fullmatch(word):
                return None, [f"{name}: {word!r} is not an integer; unchanged"], False
            # A number of hundreds of digits is simply out of range (and int() refuses
            # strings over 4300 digits): saturate it rather than convert it.
            digits = word.lstrip("+-")
            if len(digits) > 30:
                word = ("-" if word.startswith("-") else "") + "9" * 31
            number = int(word)
            assert self.min is not None and self.max is not None
            if number < self.min:
                return self.min, [f"{name}: {number} is below the minimum {self.min}; set to {self.min}"], True
            if number > self.max:
                return self.max, [f"{name}: {number} is above the maximum {self.max}; set to {self.max}"], True
            return number, [], True
        # combo: store the declared spelling so later comparisons are exact.
        for var in self.vars:
            if var.lower() == word.lower():
                return var, [], True
        choices = " ".join(self.vars)
        return None, [f"{name}: {word!r} is not one of {choices}; unchanged"], False


def spin(name: str, default: int, min: int, max: int, doc: str = "") -> OptionSpec:
    """Declare an integer option shown as a spin box (``min <= value <= max``)."""
    return OptionSpec(name, "spin", default, min=min, max=max, doc=doc)


def check(name: str, default: bool, doc: str = "") -> OptionSpec:
    """Declare a boolean option shown as a check box."""
    return OptionSpec(name, "check", default, doc=doc)


def combo(name: str, default: str, vars: Iterable[str], doc: str = "") -> OptionSpec:
    """Declare a choice among fixed words (``vars``)."""
    return OptionSpec(name, "combo", default, vars=tuple(vars), doc=doc)


def string(name: str, default: str = "", doc: str = "") -> OptionSpec:
    """Declare a free-text option (may contain spaces; empty prints as ``<empty>``)."""
    return OptionSpec(name, "string", default, doc=doc)


def filename(name: str, default: str = "", doc: str = "") -> OptionSpec:
    """Declare a path option (GUIs show a file chooser)."""
    return OptionSpec(name, "filename", default, doc=doc)


def button(name: str, doc: str = "") -> OptionSpec:
    """Declare a button: ``setoption name <name>`` triggers an action, no value."""
    return OptionSpec(name, "button", None, doc=doc)


#: USI_Hash's maximum in MB (1 TB; a size the machine cannot give falls back at isready).
MAX_HASH_MB = 1 << 20

#: Threads' default: one search thread per core of this machine (at most 256).
DEFAULT_THREADS = max(1, min(256, os.cpu_count() or 1))

#: The engine's options, in the order the ``usi`` reply lists them.
DEFAULT_OPTIONS: tuple[OptionSpec, ...] = (
    # GUIs send USI_Hash and USI_Ponder even when an engine does not list them;
    # listing them lets the GUI show the real range and default.
    spin("USI_Hash", 256, 1, MAX_HASH_MB,
         "all the table memory in MB (at most 1048576 = 1 TB), allocated at isready: the "
         "search's table (less a slice of 1/8, at most 16 MB, for its mate probe), and go "
         "mate's solver table. More than the memory the system has free is not taken: "
         "isready then allocates what it can and says so"),
    check("USI_Ponder", False, "the GUI may send go ponder"),
    check("Stochastic_Ponder", False,
          "(YaneuraOu's) go ponder thinks on the position before the last move of the "
          "position command (the opponent to move), not on the guessed move; ponderhit "
          "(with the clocks it carries, if any) then starts a new search on the position "
          "sent"),
    spin("MultiPV", 1, 1, 500, "number of principal variations reported; alias USI_MultiPV"),
    spin("SkillLevel", 20, 0, 20,
         "playing strength (YaneuraOu's and Stockfish's name; alias USI_SkillLevel): 20 "
         "full strength; below it a shallower search (depth level + 1) and a move chosen "
         "among the best few lines, the more freely the lower the level (never under go "
         "infinite or USI_AnalyseMode); docs/skill.md has a ladder of the levels"),
    check("ConsiderationMode", False,
          "analysis in a GUI: every iteration reported (PvInterval 0), each PV lengthened "
          "with the transposition table's moves past its end, no PV of an aspiration "
          "fail-low/high"),
    check("OutputFailLHPV", True,
          "report the PV of an aspiration fail-low/high (score with upperbound/lowerbound) "
          "once a search has run 3 s (MultiPV 1; not in ConsiderationMode)"),
    spin("PvInterval", 300, 0, 100000,
         "at least this many ms between two PV reports (from depth 3 on; a line held "
         "back is reported when the interval has passed, and before bestmove); 0 = every "
         "iteration, as under go infinite and ConsiderationMode"),
    spin("NetworkDelay", 120, 0, 10000,
         "ms taken off every deadline for GUI/network latency"),
    spin("NetworkDelay2", 200, 0, 10000,
         "ms kept back from the flag when the byoyomi itself is the budget (no main "
         "time left). The default suits a GUI on the same machine, busy or not (a 1 s "
         "byoyomi is thought for 800 ms: on a loaded 2-core machine a move came up to "
         "105 ms after its deadline); on a CSA server, which counts whole seconds, set it to "
         "NetworkDelay plus 1000. Neither it nor NetworkDelay cuts the think below 60% "
         "of the byoyomi"),
    spin("MinimumThinkingTime", 100, 0, 60000,
         "floor in ms on the soft time target when the clock allows it"),
    spin("SlowMover", 100, 1, 1000, "percent scaling of the soft time target"),
    check("RoundUpToFullSecond", False,
          "for a server or GUI that counts whole seconds dropping the fraction (CSA "
          "servers): stretch the think to just before the next whole second (less "
          "NetworkDelay), time that costs nothing there"),
    spin("MaxMovesToDraw", 0, 0, 100000,
         "game length in plies after which the game is a draw (0 = none; floodgate 256)"),
    combo("EnteringKingRule", "CSARule27",
          ("NoEnteringKing", "CSARule24", "CSARule24H", "CSARule27", "CSARule27H", "TryRule"),
          "the entering-king rule (bestmove win): CSARule27 (28 points for black, 27 for "
          "white), CSARule24 (31 points win; 24-30 would be a draw, which USI cannot "
          "declare), the H variants for handicap games (the upper hand needs the points "
          "it gave up fewer), TryRule (the king that reaches the enemy king's starting "
          "square wins: bestmove is that move), NoEnteringKing"),
    spin("DrawValueBlack", 0, -30000, 30000,
         "what a draw by repetition (or MaxMovesToDraw) is worth to the engine playing "
         "black, in cp (the opponent is counted as valuing it the opposite)"),
    spin("DrawValueWhite", 0, -30000, 30000,
         "the same for the engine playing white"),
    spin("ResignValue", 99999, 100, 99999,
         "resign when the score is below minus this (99999 = never)"),
    spin("Threads", DEFAULT_THREADS, 1, 256,
         "search threads (lazy SMP: helpers share the table), taken at isready; the "
         "default is this machine's core count. go nodes searches on one thread"),
    check("USI_AnalyseMode", False, "the GUI is analysing, not playing"),
    spin("DepthLimit", 0, 0, 1000, "maximum search depth (0 = none)"),
    spin("NodesLimit", 0, 0, 10**12, "maximum nodes per search (0 = none)"),
    combo("EvalType", "learned", ("learned", "hand", "material"),
          "the evaluation: learned (king-piece weights from EvalFile, trained by "
          "usi-engine learn), hand (the hand-set baseline) or material (its piece "
          "values alone, as YaneuraOu's material edition); taken at isready"),
    filename("EvalDir", "eval",
             "folder where a relative EvalFile is looked for first (as in YaneuraOu)"),
    filename("EvalFile", "",
             "weight file of the learned evaluation (empty: EvalDir's nn.bin if there is "
             "one, else the weights shipped in the package); this engine's files or "
             "YaneuraOu's nn.bin (halfkp_256x2-32-32, 512x2-16-32, 1024x2-8-32); read at "
             "isready; a bad file is "
             "reported and the weights loaded before are kept"),
    spin("FV_SCALE", 16, 1, 128,
         "an nn.bin's output divisor, as YaneuraOu's FV_SCALE (Suisho5: 24); taken at "
         "isready"),
    combo("MateLength", "published", ("published", "strict"),
          "how go mate counts a mate's length: published (the convention of tsume "
          "collections: useless interpositions, blocks captured at once that do not make "
          "the mate longer, are not counted) or strict (every defence counts, as some tsume "
          "benchmarks do; the same as usi-engine mate --strict)"),
    combo("PostSearchLevel", "MinLength", ("None", "UpperBound", "MinLength"),
          "how far go mate searches once it has a mate (KomoringHeights' names): None "
          "stops at the first mate (it may be longer than the shortest), UpperBound at "
          "the first line as long as its proof allows (never too short, not proven "
          "shortest), MinLength proves the shortest mate against the longest defence"),
    check("RootIsAndNodeIfChecked", True,
          "go mate with both kings on the board and the side to move in check: the side "
          "to move defends (the line begins with its reply; with one king, its owner "
          "always defends), else it attacks and parries the check with a check"),
    check("MateCheck", False,
          "after go mate finds a mate, check the composition (as usi-engine mate --check): "
          "other mates on the main line, longer defences and equal variations, each an info "
          "string with its line, before the checkmate line; stop ends the check"),
    # The opening book (usi_engine/book), as YaneuraOu names its options.
    check("USI_OwnBook", True,
          "play from the book BookFile names while it has the position"),
    filename("BookFile", "standard_book.db",
             "the book, read at isready: a YaneuraOu text book (.db) or an Apery book "
             "(.bin); a relative name is looked for in BookDir, then in the working "
             "folder, then among the package's books (standard_book.db is shipped); "
             "empty or no_book = no book"),
    filename("BookDir", "book", "folder where a relative BookFile is looked for first"),
    spin("BookMoves", 16, 0, 10000,
         "use the book while the position's ply (SFEN move number) is at most this"),
    spin("BookIgnoreRate", 0, 0, 100, "percent chance of searching instead at a book position"),
    spin("BookEvalDiff", 30, 0, 99999,
         "play only book moves valued within this many cp of the best one"),
    spin("BookEvalBlackLimit", 0, -99999, 99999,
         "play only book moves valued at least this (cp) with black to move"),
    spin("BookEvalWhiteLimit", -140, -99999, 99999,
         "play only book moves valued at least this (cp) with white to move"),
    spin("BookDepthLimit", 16, 0, 99999,
         "no book move where the book's first move was searched less deep than this "
         "(0 = any depth, for books without depths, such as those made from game records)"),
    check("BookOnTheFly", False,
          "search the book file on disk at each move instead of reading it at isready "
          "(a text book must be sorted: usi-engine book sort)"),
    check("ConsiderBookMoveCount", False,
          "choose among the book moves in proportion to their counts (else evenly)"),
    check("NarrowBook", False, "leave out book moves played in under 10% of the games"),
    spin("BookPvMoves", 8, 1, 246, "length of the PV shown for a book move, followed in the book"),
    check("IgnoreBookPly", False, "a book position matches whatever its ply"),
    check("FlippedBook", True, "also look up the position with the colours swapped"),
    filename("DebugLogFile", "",
             "append every line in and out, each with a timestamp (and > for in, < for "
             "out), to this file, for support requests; empty = off"),
)

#: Names accepted as another spelling of a declared option (keys lower-case).
DEFAULT_ALIASES: dict[str, str] = {"usi_multipv": "MultiPV", "usi_skilllevel": "SkillLevel"}


class Options(Mapping[str, OptionValue]):
    """Current option values with case-insensitive lookup.

    A read-only :class:`~collections.abc.Mapping` from canonical option names to
    values (``bool``, ``int``, ``str``, or ``None`` for buttons); change values only
    through :meth:`set` / :meth:`setoption`, which validate.

    Example::

        >>> opts = Options()
        >>> opts.set("usi_ponder", "TRUE")
        []
        >>> opts["USI_Ponder"]
        True
        >>> opts.set("Foo", "1")
        ['unknown option Foo']
        >>> opts.add(filename("LogFolder"))
        >>> opts.setoption("name logfolder value My Logs/a  b")
        []
        >>> opts["LogFolder"]
        'My Logs/a  b'
    """

    def __init__(
        self,
        specs: Iterable[OptionSpec] = DEFAULT_OPTIONS,
        aliases: Mapping[str, str] = DEFAULT_ALIASES,
    ) -> None:
        self._specs: dict[str, OptionSpec] = {}  # lower-case name -> spec, in order
        self._values: dict[str, OptionValue] = {}  # lower-case name -> value
        self._aliases: dict[str, str] = {}
        for spec in specs:
            self.add(spec)
        for alias, target in aliases.items():
            self.add_alias(alias, target)

    # -- declaring -----------------------------------------------------------------

    def add(self, spec: OptionSpec) -> None:
        """Declare one more option (``ValueError`` if the name is taken)."""
        key = spec.name.lower()
        if key in self._specs or key in self._aliases:
            raise ValueError(f"option name: {spec.name} is already declared")
        self._specs[key] = spec
        self._values[key] = spec.default

    def add_alias(self, alias: str, target: str) -> None:
        """Accept ``alias`` as another name of the declared option ``target``."""
        key = alias.lower()
        if key in self._specs or key in self._aliases:
            raise ValueError(f"option alias: {alias} is already declared")
        if target.lower() not in self._specs:
            raise ValueError(f"option alias: target {target} is not declared")
        self._aliases[key] = target.lower()

    # -- reading -------------------------------------------------------------------

    def _key(self, name: str) -> str | None:
        key = name.lower()
        key = self._aliases.get(key, key)
        return key if key in self._specs else None

    def spec(self, name: str) -> OptionSpec:
        """The declaration of ``name`` (any case, aliases allowed); ``KeyError`` if unknown."""
        key = self._key(name)
        if key is None:
            raise KeyError(f"unknown option {name}")
        return self._specs[key]

    def __getitem__(self, name: str) -> OptionValue:
        key = self._key(name)
        if key is None:
            raise KeyError(f"unknown option {name}")
        return self._values[key]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._key(name) is not None

    def __iter__(self) -> Iterator[str]:
        return (spec.name for spec in self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    def specs(self) -> list[OptionSpec]:
        """All declarations, in table order."""
        return list(self._specs.values())

    def usi_lines(self) -> list[str]:
        """The ``option ...`` lines of the ``usi`` reply, in table order."""
        return [spec.usi_line() for spec in self._specs.values()]

    def snapshot(self) -> dict[str, OptionValue]:
        """A plain ``{canonical name: value}`` copy, e.g. to hand to a search thread
        so a ``setoption`` arriving mid-search cannot change its settings."""
        return {spec.name: self._values[key] for key, spec in self._specs.items()}

    # -- writing -------------------------------------------------------------------

    def set(self, name: str, value_text: str | None) -> list[str]:
        """Set ``name`` from the text after ``value`` (``None`` if there was none).

        Returns messages to print as ``info string ...``; an empty list means the
        value was taken as given. Never raises on bad input: an unknown name or a
        bad value leaves every option unchanged; an out-of-range spin is clamped.
        For string/filename options the whole text is the value (spaces included,
        outer whitespace stripped) and ``<empty>`` means the empty string.

        Example::

            >>> opts = Options()
            >>> opts.set("MultiPV", "two")
            ["MultiPV: 'two' is not an integer; unchanged"]
            >>> opts.set("EnteringKingRule", "noenteringking"), opts["EnteringKingRule"]
            ([], 'NoEnteringKing')
        """
        key = self._key(name)
        if key is None:
            return [f"unknown option {name}"]
        value, messages, accepted = self._specs[key].parse(value_text)
        if accepted:
            self._values[key] = value
        return messages

    def setoption(self, args: str) -> list[str]:
        """Apply the raw text after ``setoption``: ``name <id> [value <x>]``.

        Works on the raw text, not on tokens, so a string value keeps its inner
        spacing exactly. Returns messages as :meth:`set` does.

        Example::

            >>> opts = Options()
            >>> opts.setoption("name USI_Hash value 1024")
            []
            >>> opts["USI_Hash"]
            1024
        """
        words = list(re.finditer(r"\S+", args))
        if not words or words[0].group().lower() != "name" or len(words) < 2:
            return ["setoption: expected 'name <id> [value <x>]'"]
        value_at = next(
            (i for i, w in enumerate(words[2:], start=2) if w.group().lower() == "value"),
            None,
        )
        name_words = words[1:value_at] if value_at is not None else words[1:]
        if not name_words:
            return ["setoption: missing option name"]
        # Names contain no spaces; a multi-word "name" is reported as unknown below.
        name = " ".join(w.group() for w in name_words)
        value = None
        if value_at is not None:
            value = args[words[value_at].end():].strip()
        return self.set(name, value)

    def reset(self) -> None:
        """Put every option back to its declared default."""
        for key, spec in self._specs.items():
            self._values[key] = spec.default
