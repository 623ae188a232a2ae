"""Which evaluation a search uses: the `EvalType` and `EvalFile` options, applied at
``isready``.

`EvalType learned` (the default) reads the weights of `EvalFile` (empty: those shipped
in the package, the network `kpnn.bin`; a relative name is looked for in `EvalDir`
first, then in the working folder, then among the shipped files: `kp.bin` names the
shipped king-piece table alone) into a `kp.Network`: a
king-piece table alone, or a table with the network on top of it
(`usi_engine.training.learn_net`), told apart by the file's magic.  `EvalType hand`
chooses the hand-written evaluation, kept as the baseline, and `EvalType material` its
piece values alone (the evaluation of YaneuraOu's material edition, for matches that
compare searches).  A weight file that cannot be used (missing, truncated, of another
shape, damaged) is reported once and the weights loaded before stay in use; a file is
read again (and a failure reported again) only when its path, size or time changed.
A command that must have the weights it names (``usi-engine bench --eval-file``) uses
`load_network`, which raises instead of falling back.

The loader decides; the searcher searches with what it is given:

    >>> from usi_engine.search import Searcher
    >>> loader = EvalLoader()
    >>> loader.apply("hand", "")
    []
    >>> loader.network is None
    True
    >>> loader.apply("learned", "/no/such/file.bin")[0][:40]
    'EvalFile: cannot read /no/such/file.bin:'
    >>> Searcher().set_evaluation(loader.network)

The hand-written evaluation's weights (`hand` or `material`) are one table for the
process, set by `apply`; the learned weights belong to each `Network`.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING

from usi_engine.eval import handwritten
from usi_engine.eval import kp
from usi_engine.eval import weights as eval_weights
from usi_engine.eval.nnue_file import HalfKpNet

if TYPE_CHECKING:
    import numpy as np

EVAL_TYPES = ("learned", "hand", "material")


@functools.lru_cache(maxsize=1)
def shipped_network() -> kp.Network | None:
    """The network shipped in the package, read once (None if the installation lacks
    it or it is damaged: searches then use the hand-written evaluation)."""
    try:
        return as_network(eval_weights.read_any(str(eval_weights.embedded_path())))
    except (OSError, eval_weights.WeightFileError):
        return None


def as_network(weights: np.ndarray | eval_weights.NetWeights | eval_weights.LayeredWeights
               | HalfKpNet, fv_scale: int = 16) -> kp.Network:
    """A weight file's contents (`eval_weights.read_any`) as a `kp.Network` (fv_scale:
    YaneuraOu's FV_SCALE, for an nn.bin)."""
    if isinstance(weights, HalfKpNet):
        try:
            return kp.Network(None, halfkp=weights, fv_scale=fv_scale)
        except ValueError as exc:
            raise eval_weights.WeightFileError(str(exc)) from None
    if isinstance(weights, (eval_weights.NetWeights, eval_weights.LayeredWeights)):
        return weights.network()
    return kp.Network(weights)


def load_network(eval_file: str, eval_dir: str = "") -> kp.Network:
    """The weights `eval_file` names (resolved as the `EvalFile` option is: in
    `eval_dir` first, then as given, then among the shipped files) as a `kp.Network`;
    `eval_weights.WeightFileError` (a one-line reason) when they cannot be used.
    Nothing falls back: for commands that were told which weights to use."""
    return as_network(eval_weights.read_any(EvalLoader._resolve(eval_file, eval_dir)))


class EvalLoader:
    """Keeps track of the loaded weight file; `apply` reads the options, and `network`
    is then what a `Searcher` should search with (None: the hand-written evaluation)."""

    def __init__(self) -> None:
        self.loaded: tuple[str, int, int] | None = None   # (path, size, mtime_ns)
        self.network: kp.Network | None = None
        self._learned: kp.Network | None = None
        # the file that failed last, as (path, identity): reported once, not at every
        # apply while it stays the same
        self._failed: tuple[str, tuple[str, int, int] | None] | None = None

    @property
    def loaded_path(self) -> str | None:
        """The path of the learned weights read last (None before any were read)."""
        return None if self.loaded is None else self.loaded[0]

    def apply(self, eval_type: str, eval_file: str, eval_dir: str = "eval",
              fv_scale: int = 16) -> list[str]:
        """Choose the evaluation; returns the messages for ``info string`` lines.
        A relative `eval_file` is looked for in `eval_dir` first (YaneuraOu's EvalDir
        convention, which match runners such as shogiarena follow), then as given, then
        among the files shipped in the package (`kp.bin`: the king-piece table alone).
        An empty `eval_file` with an `nn.bin` in `eval_dir` reads that (as YaneuraOu's
        NNUE edition does); `fv_scale` is its FV_SCALE. Never raises: a bad file leaves the previous weights (or, if none were ever
        read, the shipped ones) in use."""
        kind = str(eval_type).lower()
        if kind in ("hand", "material"):
            handwritten.load_weights(handwritten.material_weights() if kind == "material"
                                     else handwritten.default_weights())
            self.network = None
            self._failed = None
            return []
        handwritten.load_weights(handwritten.default_weights())
        path = self._resolve(eval_file, eval_dir)
        messages: list[str] = []
        try:
            stat = os.stat(path)
            identity = (str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)
        except OSError:
            identity = None
        if self._failed is not None and self._failed[0] != path:
            self._failed = None       # another file was asked for since
        if self._failed is not None and self._failed == (path, identity):
            pass              # the same unusable file, already reported: nothing new
        elif identity is None or identity != self.loaded:
            try:
                network = as_network(eval_weights.read_any(path), fv_scale)
            except eval_weights.WeightFileError as exc:
                self._failed = (path, identity)
                if self.loaded is not None:
                    messages.append(f"EvalFile: {exc}; keeping {self.loaded[0]}")
                else:
                    fallback = str(eval_weights.embedded_path())
                    messages.append(f"EvalFile: {exc}; using the shipped weights {fallback}")
                    self._use_shipped()
            else:
                self._failed = None
                self._learned = network
                self.loaded = identity
                if identity is not None and identity[0] != str(eval_weights.embedded_path()):
                    # (the full path: which file of several candidates was read)
                    messages.append(f"EvalFile: loaded {os.path.abspath(path)}")
        if self._learned is not None and self._learned.head == "halfkp":
            self._learned.set_fv_scale(fv_scale)
        self.network = self._learned
        return messages

    @staticmethod
    def _resolve(eval_file: str, eval_dir: str) -> str:
        path = str(eval_file).strip() if eval_file else ""
        if path in ("", "<empty>"):
            if eval_dir and str(eval_dir) != "<empty>":
                nn_bin = os.path.join(str(eval_dir), "nn.bin")
                if os.path.isfile(nn_bin):
                    return nn_bin          # (YaneuraOu's NNUE edition: EvalDir/nn.bin)
            return str(eval_weights.embedded_path())
        if not os.path.isabs(path) and eval_dir and str(eval_dir) != "<empty>":
            in_dir = os.path.join(str(eval_dir), path)
            if os.path.exists(in_dir) or not os.path.exists(path):
                path = in_dir
        if not os.path.isabs(str(eval_file)) and not os.path.exists(path):
            shipped = eval_weights.embedded_kp_path().parent / os.path.basename(str(eval_file))
            if shipped.is_file():
                path = str(shipped)
        return path

    def _use_shipped(self) -> None:
        """The shipped weights, known to be good (or, in a broken installation, none:
        the hand-written evaluation)."""
        self._learned = shipped_network()
        if self._learned is not None:
            path = eval_weights.embedded_path()
            stat = os.stat(path)
            self.loaded = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
