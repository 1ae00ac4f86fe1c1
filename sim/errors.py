"""The user-facing errors: the CLI catches ``UserError`` (and so its subclasses), prints the message
and exits with status 2.  Each message says what is wrong and what is allowed."""


class UserError(ValueError):
    """Bad input from a user: says what is wrong and what is allowed."""


class ProfileError(UserError):
    """A profile file, key or value that is not allowed."""


class CardError(UserError):
    """A card written in a way the card notation does not allow."""
