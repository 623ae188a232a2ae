"""Tsume compositions that several of the solver's tests solve."""

#: a classic three-ply mate (古典)
KOTEN_3 = "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"
#: an eleven-ply composition whose first proof is longer than its shortest mate
FUTAKAMI_11 = "7nl/6s2/5N2k/6G2/9/9/9/9/9 b 2RG2b2g3s2n3l18p 1"
