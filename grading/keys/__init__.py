"""One module per chapter: the checkers of its exercises (``grading.registry.exercise``)."""
