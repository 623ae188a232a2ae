"""SkillLevel: a weaker partner that errs as a person does.

Below full strength (level 20, the default) the engine searches less deep and plays a
move chosen among the best few lines instead of the best one, with a probability that
falls with how much worse the line is, by a temperature that grows as the level falls:
it misses what a shallow search misses, and among near-equal moves it picks any. It
never plays an illegal move (every line is a searched root move) and never thinks
longer than the clock allows (the depth limit only shortens the think).

    >>> skill = Skill(20)
    >>> skill.full, skill.depth_limit(), skill.lines()
    (True, None, 1)
    >>> Skill(0).depth_limit(), Skill(0).lines(), Skill(10).depth_limit()
    (1, 8, 11)
    >>> import random
    >>> Skill(20).choose([300, 0, -50], random.Random(1))
    0
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

__all__ = ["Skill", "MAX_LEVEL"]

#: Full strength; the option's range is 0..MAX_LEVEL, as YaneuraOu's SkillLevel.
MAX_LEVEL = 20
#: The depth limit at level 0; each level adds one ply (level 19: depth 20).
DEPTH_AT_LEVEL_0 = 1
#: Lines searched at level 19 (and one more every four levels below it).
LINES_NEAR_FULL = 4
#: The temperature, in centipawns, at level 20 - n is TEMPERATURE_SCALE * n ** 1.5:
#: level 19 8 cp (a coin between near-equal moves), level 10 253 cp, level 0 716 cp
#: (nearly any of the lines).
TEMPERATURE_SCALE = 8.0
#: Scores beyond this count as this (a mate found is one, a mate against is the other).
SCORE_CLAMP = 5000


@dataclass(frozen=True)
class Skill:
    """One SkillLevel (0-20; 20 is full strength)."""

    level: int = MAX_LEVEL

    @property
    def full(self) -> bool:
        return self.level >= MAX_LEVEL

    def depth_limit(self) -> int | None:
        """The deepest iteration searched (None: no limit)."""
        return None if self.full else DEPTH_AT_LEVEL_0 + max(0, self.level)

    def lines(self) -> int:
        """How many root lines (MultiPV) the choice is made among."""
        return 1 if self.full else LINES_NEAR_FULL + (MAX_LEVEL - 1 - max(0, self.level)) // 4

    def temperature_cp(self) -> float:
        return 0.0 if self.full else TEMPERATURE_SCALE * (MAX_LEVEL - max(0, self.level)) ** 1.5

    def choose(self, scores_cp: list[int], rng: random.Random) -> int:
        """The index of the line to play among lines scored ``scores_cp`` (best first,
        from the mover's view): 0 at full strength, else drawn with weights
        exp((score - best) / temperature)."""
        if self.full or len(scores_cp) <= 1:
            return 0
        clamped = [max(-SCORE_CLAMP, min(SCORE_CLAMP, s)) for s in scores_cp]
        top = max(clamped)
        temperature = self.temperature_cp()
        weights = [math.exp((s - top) / temperature) for s in clamped]
        return rng.choices(range(len(clamped)), weights=weights)[0]
