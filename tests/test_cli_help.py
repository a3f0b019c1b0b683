"""Every option of every ``ddz`` subcommand has a help text, and an option with a default
says it ("default …", with the value where it is a number or a word): ``ddz SUBCOMMAND
--help`` is enough to use a subcommand."""
import argparse

import pytest

from ddz.cli import build_parser, main


def _subcommands():
    p = build_parser()
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("ddz has no subcommands")


SUB = _subcommands()


def _shown(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def test_every_documented_subcommand_is_walked():
    assert {"play", "selfplay", "moves", "bench", "replay", "solve", "serve"} <= set(SUB)


@pytest.mark.parametrize("name", sorted(SUB))
def test_every_option_has_help_and_its_default(name):
    missing = []
    for a in SUB[name]._actions:
        if isinstance(a, (argparse._HelpAction, argparse._VersionAction)):
            continue
        label = "/".join(a.option_strings) or a.dest
        if not a.help or a.help == argparse.SUPPRESS:
            missing.append(f"{label}: no help")
            continue
        takes_value = a.nargs != 0 and not isinstance(a, (argparse._StoreTrueAction, argparse._StoreFalseAction))
        if a.option_strings and takes_value and a.default is not None:
            text = a.help % dict(vars(a), prog=SUB[name].prog) if "%(" in a.help else a.help  # as argparse prints it
            if "default" not in text:
                missing.append(f"{label}: the help does not give the default ({a.default!r})")
            elif isinstance(a.default, (int, float, str)) and _shown(a.default) not in text.replace("_", "") \
                    and str(a.default) not in text:
                missing.append(f"{label}: the help gives another default than {a.default!r}: {a.help!r}")
    assert not missing, f"ddz {name}: " + "; ".join(missing)


@pytest.mark.parametrize("name", sorted(SUB))
def test_help_prints(name, capsys):
    with pytest.raises(SystemExit) as e:
        main([name, "--help"])
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: ddz {name}")
