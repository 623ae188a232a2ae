# Reading the mating line back (mate/line.pyx).
from usi_engine.core.position cimport Pos
from usi_engine.mate.table cimport Solver

cdef object exact_line(Solver* s, int value, bint settle)
cdef object principal_variation(Solver* s, int length)
cdef bint verify_mate_line(Pos* p, list pv)
