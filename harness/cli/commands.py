"""The typer app class every command group of ``ellibir`` is made with. Its commands refuse, before any
option is read, an option given twice that is not repeatable (the parser kept the last value silently;
options that take a list stay repeatable) and an empty value for any option or argument (``--bot ""``
named the current folder). Both are usage errors: one line, exit code 2."""

from __future__ import annotations

from collections import Counter

import typer
from typer.core import TyperCommand


class OnceCommand(TyperCommand):
    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:  # shell completion parses partial command lines
            opts, _, order = self.make_parser(ctx).parse_args(args=list(args))  # the parser consumes its list
            problem = given_problem(self.get_params(ctx), opts, order)
            if problem:
                ctx.fail(problem)  # a usage error
        return super().parse_args(ctx, args)


def given_problem(params: list, opts: dict, order: list) -> str:
    """What is wrong with the options as the parser read them (``order``: a parameter for each time it
    was given): one that takes one value given twice, or an empty value; "" when nothing is."""
    times = Counter(p for p in order if p.param_type_name == "option" and not (p.multiple or p.count or p.is_eager))
    for param, n in times.items():
        if n > 1:
            return f"{shown(param)} is given {n} times: it is not repeatable, give it once"
    for param in params:
        value = opts.get(param.name)
        if any(isinstance(v, str) and not v.strip() for v in (value if isinstance(value, (list, tuple)) else [value])):
            return f"{shown(param)} is given an empty value: give a value, or leave it out"
    return ""


def shown(param) -> str:
    if param.param_type_name == "option":
        return "/".join(param.opts + param.secondary_opts)
    return param.metavar or param.name.upper()


class Commands(typer.Typer):
    """``typer.Typer`` whose commands are ``OnceCommand``s."""

    def command(self, *args, **kwargs):
        kwargs.setdefault("cls", OnceCommand)
        return super().command(*args, **kwargs)
