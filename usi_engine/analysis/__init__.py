"""Game analysis: see :mod:`usi_engine.analysis.core`."""
from usi_engine.analysis.core import (MARKS, AnalysisSettings, GameAnalysis, Line, PlyAnalysis,
                                      analyze_record, mark_for, win_rate)

__all__ = ["AnalysisSettings", "GameAnalysis", "Line", "PlyAnalysis", "MARKS", "analyze_record",
           "mark_for", "win_rate"]
