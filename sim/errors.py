"""The user-facing errors: the CLI catches ``UserError`` (and so its subclasses), prints the message
and exits with status 2.  Each message says what is wrong and what is allowed.  An interrupt (Ctrl-C)
ends a command with one line and status 130 (``is_interrupt`` recognises it)."""


class UserError(ValueError):
    """Bad input from a user: says what is wrong and what is allowed."""


class ProfileError(UserError):
    """A profile file, key or value that is not allowed."""


class CardError(UserError):
    """A card written in a way the card notation does not allow."""


def is_interrupt(e: BaseException) -> bool:
    """Whether ``e`` is a Ctrl-C: a KeyboardInterrupt, or an error it caused (numba reports one that
    lands inside a compiled function as a SystemError whose cause is the KeyboardInterrupt)."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False
