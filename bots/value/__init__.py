"""V, a learned value of a seat's position (docs/bots.md, "vgreedy and vbot"): its features, its
weights file and inference (imported by the bots), and its self-play data and fits (training only,
numpy). The harness calls ``selfplay.play_games`` and ``train.fit_columns`` to train a model."""
