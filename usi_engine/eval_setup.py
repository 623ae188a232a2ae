"""Which evaluation the search uses: the `EvalType` and `EvalFile` options, applied at
``isready``.

`EvalType learned` (the default) loads the weights of `EvalFile` (empty: those shipped
in the package; a relative name is looked for in `EvalDir` first) into
`usi_engine.kp`: a king-piece table alone, or a table with the network on top of it
(`usi_engine.learn_net`), told apart by the file's magic; `EvalType hand` switches to the
hand-written evaluation, kept as the baseline.  A weight file that cannot be used
(missing, truncated, of another shape, damaged) is reported and the weights loaded
before stay in use; a file is read again only when its path, size or time changed.

    >>> loader = EvalLoader()
    >>> loader.apply("hand", "")
    []
    >>> loader.apply("learned", "/no/such/file.bin")[0][:40]
    'EvalFile: cannot read /no/such/file.bin:'
"""
from __future__ import annotations

import os
from pathlib import Path

from usi_engine import eval_weights, kp

EVAL_TYPES = ("learned", "hand")


class EvalLoader:
    """Keeps track of the loaded weight file; `apply` makes the options take effect."""

    def __init__(self) -> None:
        self.loaded: tuple[str, int, int] | None = None   # (path, size, mtime_ns)

    @property
    def loaded_path(self) -> str | None:
        """The path of the weights in use (None before any were loaded)."""
        return None if self.loaded is None else self.loaded[0]

    def apply(self, eval_type: str, eval_file: str, eval_dir: str = "eval") -> list[str]:
        """Select the evaluation; returns the messages for ``info string`` lines.
        A relative `eval_file` is looked for in `eval_dir` first (YaneuraOu's EvalDir
        convention, which match runners such as shogiarena follow), then as given.
        Never raises: a bad file leaves the previous weights (or, if none were ever
        loaded, the hand-written evaluation) in use."""
        if str(eval_type).lower() == "hand":
            kp.set_enabled(False)
            return []
        path = str(eval_file).strip() if eval_file else ""
        if path in ("", "<empty>"):
            path = str(eval_weights.embedded_path())
        elif not os.path.isabs(path) and eval_dir and str(eval_dir) != "<empty>":
            in_dir = os.path.join(str(eval_dir), path)
            if os.path.exists(in_dir) or not os.path.exists(path):
                path = in_dir
        messages: list[str] = []
        try:
            stat = os.stat(path)
            identity = (str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)
        except OSError:
            identity = None
        if identity is None or identity != self.loaded:
            try:
                weights = eval_weights.read_any(path)
            except eval_weights.WeightFileError as exc:
                messages.append(f"EvalFile: {exc}; " + (
                    f"keeping {self.loaded[0]}" if self.loaded is not None
                    else "using the hand-written evaluation"))
            else:
                if isinstance(weights, eval_weights.NetWeights):
                    weights.install()
                else:
                    kp.install(weights)
                self.loaded = identity
                if identity is not None and identity[0] != str(eval_weights.embedded_path()):
                    messages.append(f"EvalFile: loaded {path}")   # the default goes unsaid
        kp.set_enabled(self.loaded is not None)
        return messages
