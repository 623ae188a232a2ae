"""Which evaluation the search uses: the `EvalType` and `EvalFile` options, applied at
``isready``.

`EvalType learned` (the default) loads the weights of `EvalFile` (empty: those shipped
in the package, the network `kpnn.bin`; a relative name is looked for in `EvalDir`
first, and `kp.bin` names the shipped king-piece table alone) into
`usi_engine.eval.kp`: a king-piece table alone, or a table with the network on top of it
(`usi_engine.training.learn_net`), told apart by the file's magic; `EvalType hand` switches to the
hand-written evaluation, kept as the baseline; `EvalType material` to its piece values
alone (the evaluation of YaneuraOu's material edition, for matches that compare
searches).  A weight file that cannot be used (missing, truncated, of another shape,
damaged) is reported and the weights loaded before stay in use; a file is read again
only when its path, size or time changed.

    >>> loader = EvalLoader()
    >>> loader.apply("hand", "")
    []
    >>> loader.apply("learned", "/no/such/file.bin")[0][:40]
    'EvalFile: cannot read /no/such/file.bin:'
"""
from __future__ import annotations

import os
from pathlib import Path

from usi_engine.eval import weights as eval_weights

from usi_engine.eval import handwritten as evaluate

from usi_engine.eval import kp

EVAL_TYPES = ("learned", "hand", "material")


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
        convention, which match runners such as shogiarena follow), then as given, then
        among the files shipped in the package (`kp.bin`: the king-piece table alone).
        Never raises: a bad file leaves the previous weights (or, if none were ever
        loaded, the shipped ones) in use."""
        kind = str(eval_type).lower()
        if kind in ("hand", "material"):
            evaluate.load_weights(evaluate.material_weights() if kind == "material"
                                  else evaluate.default_weights())
            kp.set_enabled(False)
            return []
        path = str(eval_file).strip() if eval_file else ""
        if path in ("", "<empty>"):
            path = str(eval_weights.embedded_path())
        elif not os.path.isabs(path) and eval_dir and str(eval_dir) != "<empty>":
            in_dir = os.path.join(str(eval_dir), path)
            if os.path.exists(in_dir) or not os.path.exists(path):
                path = in_dir
        if not os.path.isabs(str(eval_file)) and not os.path.exists(path):
            shipped = eval_weights.embedded_kp_path().parent / os.path.basename(str(eval_file))
            if shipped.is_file():
                path = str(shipped)
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
                if self.loaded is not None:
                    messages.append(f"EvalFile: {exc}; keeping {self.loaded[0]}")
                else:
                    fallback = str(eval_weights.embedded_path())
                    messages.append(f"EvalFile: {exc}; using the shipped weights {fallback}")
                    if path != fallback:
                        self._install(fallback)
            else:
                _install_weights(weights)
                self.loaded = identity
                if identity is not None and identity[0] != str(eval_weights.embedded_path()):
                    messages.append(f"EvalFile: loaded {path}")   # the default goes unsaid
        kp.set_enabled(self.loaded is not None)
        return messages

    def _install(self, path: str) -> None:
        """Install a file known to be good (the shipped weights)."""
        try:
            stat = os.stat(path)
            _install_weights(eval_weights.read_any(path))
        except (OSError, eval_weights.WeightFileError):
            return                                  # a broken installation: hand-written
        self.loaded = (str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)


def _install_weights(weights) -> None:
    if isinstance(weights, eval_weights.NetWeights):
        weights.install()
    else:
        kp.install(weights)
