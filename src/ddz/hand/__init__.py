"""The whole hand: ``Game`` (deal, auction, play through the core's ``PlayState``, score),
one auction module per variant, the scoring functions, the table policy (timer, bot seats,
escapes) and records and views. It stands on ``ddz.core``. See docs/architecture.md."""
