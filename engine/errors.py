"""Errors that name the rule a decision broke."""


class Refusal(Exception):
    """A decision the rules refuse. ``rule`` is the RULES.md id, e.g. ``T2``."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


class DecisionError(Refusal):
    """A decision that cannot even be read (wrong shape, unknown card); ``rule`` when its shape breaks one."""

    def __init__(self, message: str, rule: str = "O4"):
        super().__init__(rule, message)
