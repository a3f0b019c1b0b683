"""The whole hand: ``Game`` (the core's hand: deal, auction, play, outcome; the table policy
around it: timer, bot seats, escapes), the outcome as a ``GameResult``, records and views. It
stands on ``ddz.core``. See docs/architecture.md."""
from . import game as _game, record as _record

_record.GAME = _game.Game  # the record reader builds Games (record.py says why it is set here)
