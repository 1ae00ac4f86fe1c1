"""One module per `kalooki` subcommand; each defines ``register(subparsers)``."""
