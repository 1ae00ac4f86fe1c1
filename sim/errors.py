"""The user-facing error: the CLI prints it and exits with status 2."""


class UserError(ValueError):
    """Bad input from a user: says what is wrong and what is allowed."""
