"""Training: self-play data (`gensfen`), a teacher's scores (`relabel`), and the
learners of the king-piece table (`learn`) and of the network on top (`learn_net`)."""
