"""The core layer: cards, rules and their options, moves and action ids, errors, the variant
table (``ddz.core.cards``, ``.rules``, ``.action_space``, ``.errors``, ``.variants``; the id
orders of RLCard's action space as data in ``.rlcard_order``). Every other layer stands on
it; it imports only the compiled core (``ddz._core``). See docs/architecture.md."""
