"""Shogi notation in pure Python, shared by every room above the compiled core: SFEN
text and hands (:mod:`~usi_engine.notation.sfen`), the USI score convention
(:mod:`~usi_engine.notation.score`), ``position`` lines
(:mod:`~usi_engine.notation.position_line`) and the CSA board
(:mod:`~usi_engine.notation.csa_board`). It imports nothing else of the package."""
