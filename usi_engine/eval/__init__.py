"""Static evaluation: the learned king-piece table with its network (`kp`), the
hand-written evaluation (`handwritten`), weight files (`weights`) and the loader that
chooses between them (`loader.EvalLoader`)."""
