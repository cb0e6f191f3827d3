"""The papers' figures as data, at the bottom of the layers (it imports nothing of ours): the
catalog of every figure with what each shows and which function draws it (:mod:`.catalog`), and
paper 002's baselines as whole designs (:mod:`.designs`). Experiment files, sweeps, plots and the
command line read them; nothing here draws."""
