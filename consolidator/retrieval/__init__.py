"""Recall at the turn: the recall index the daemon keeps (`build`), and the read (`read.recall`)."""
